"""The judge of a night, a layer above the night it judges.

Par and floor (par.py), the ensemble of variant nights (ensemble.py), the measured outcome and
its parts (outcome.py, collateral.py, discipline.py, excess.py, plan_check.py, progress.py,
undisturbed.py) and the score built from them (score.py). Scoring plays whole nights through the
engine (drill/engine/drill.py, drill/engine/headless.py), so it sits above them: a night never
imports its own judge. `score_drill(drill)` in par.py is the Score of a night that was played.
"""
