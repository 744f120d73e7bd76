"""3am Drill: a terminal incident-drill game for GPU cluster operations."""

__version__ = "0.1.0"

# Bumped whenever the engine's behaviour changes in a way that would change a replay.
ENGINE_VERSION = "2"
