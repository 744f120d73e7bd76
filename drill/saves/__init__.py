"""Saves: one JSON Lines file per session, appended and fsynced as the game goes.

    {"type": "header", "format": 2, "drill_version": ..., "engine_version": ..., "incident_id":
     ..., "incident_sha256": ..., "incident_path": ..., "seed": ..., "backend": ..., "ranks":
     ..., "origin": {"machine": ..., "cpu": ..., "torch": ..., "cpu_kernels": ...}}
    {"type": "action", "n": 1, "time": 1230.0, "end": 1290.0, "text": "health gpu-a-2",
     "accepted": true, "result": "..."}
    {"type": "text", "key": "runbook.health", "value": "..."}      learner's own words
    {"type": "score", "score": {...}, "end_time": ..., "seed": ..., "backend": ...}

The modules: reader (every field of every line checked, located errors), json_line (bounded
parsing of one line), files (opening without following links, regular files only), writer
(whole lines or none), origin (machine and torch build), verify (what a replay must reproduce),
incident (the incident a save names, read only from allowed places), folder (new names, best
scores), lock (one writer per save), header_check (what verify checks in the header first).
"""

from drill.saves.files import MAX_SAVE_BYTES
from drill.saves.folder import best_scores, default_save_path
from drill.saves.incident import check_incident, resolve_saved_incident, saved_incident_path
from drill.saves.model import Save, SavedAction, SaveError
from drill.saves.reader import BACKENDS, FORMAT, MAX_RANKS, read_save
from drill.saves.writer import SaveWriter

__all__ = [
    "BACKENDS",
    "FORMAT",
    "MAX_RANKS",
    "MAX_SAVE_BYTES",
    "Save",
    "SaveError",
    "SaveWriter",
    "SavedAction",
    "best_scores",
    "check_incident",
    "default_save_path",
    "read_save",
    "resolve_saved_incident",
    "saved_incident_path",
]
