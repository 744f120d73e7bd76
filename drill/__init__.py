"""3am Drill: a terminal incident-drill game for GPU cluster operations."""

__version__ = "0.1.0"


def __getattr__(name: str):
    # ENGINE_VERSION was a hand-bumped "1" that nobody bumped. It is now the source fingerprint
    # (drill/fingerprint.py), computed on first use so `import drill` stays cheap.
    if name == "ENGINE_VERSION":
        from drill.fingerprint import source_fingerprint

        return source_fingerprint()
    raise AttributeError(f"module 'drill' has no attribute {name!r}")
