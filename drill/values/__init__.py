"""The value types incident files are written in (durations, moments, sizes, rates, names), their
strict parsing and their bounds. Below both the incident models and the fault kinds, which speak
the same units (drill/incident, drill/faults)."""
