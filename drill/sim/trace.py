"""Job traces for the world: the reader lives with the incident (drill/incident/trace.py), since
the loader reads an incident's trace file when it loads the incident."""

from drill.incident.trace import COLUMNS, TraceError, TraceJob, read_trace, units

__all__ = ["COLUMNS", "TraceError", "TraceJob", "read_trace", "units"]
