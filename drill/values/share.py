"""A share (0 to 1) as a whole percentage, rounded once and the same way everywhere.

Saves keep shares to three decimals (0.875); the table prints that saved figure and the words
under it quote it too. Python's own `:.0%` rounds a half to even (0.875 -> 88%, but 0.625 ->
62%) and, given the unrounded share, can land a point away from the saved one. Rounding half up
from the three saved decimals gives one answer for one night, wherever it is printed.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def percent(share: float) -> str:
    """0.875 -> "88%", 0.505 -> "51%"; the share is first taken to the three decimals a save keeps."""
    kept = Decimal(repr(round(share, 3)))
    return f"{(kept * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)}%"
