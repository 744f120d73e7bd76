"""The night screen's panels, one module each."""
