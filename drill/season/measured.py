"""The simulator against checkpoint theory, measured: written by
`python -m drill.season.theory`, checked by tests/theory/test_checkpoint_theory.py.

Each row: factor of Young's interval, cadence in steps, interval T in seconds, measured
waste, its standard error, the curve C/T + (T/2 + R)/M at T, failures counted."""

NIGHTS = 300
CHECKPOINT = 60.0
RESTART = 1935.015
MTBF = 108000.0
YOUNG = 3600.0
LEAST_AT = 0.967  # x Young's interval
ROWS = (
    (0.25, 15, 900.0, 0.08939, 0.0022, 0.08875, 113),
    (0.5, 30, 1800.0, 0.06003, 0.00253, 0.05958, 108),
    (0.75, 45, 2700.0, 0.05377, 0.00309, 0.05264, 106),
    (1.0, 60, 3600.0, 0.05408, 0.00383, 0.05125, 104),
    (1.5, 90, 5400.0, 0.0604, 0.00522, 0.05403, 98),
    (2.0, 120, 7200.0, 0.062, 0.00635, 0.05958, 91),
    (4.0, 240, 14400.0, 0.0873, 0.01367, 0.08875, 55),
)
