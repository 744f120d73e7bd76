"""Where the files drill ships live: found through importlib.resources, so they are the same
files from a checkout, an editable install or an installed wheel.

The shipped incidents, their JSON Schema and the authoring guide sit in `drill/incidents/`
inside the package. Nothing here computes a path from another module's `__file__`.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

PACKAGE = "drill"
INCIDENTS_FOLDER = "incidents"
SCHEMA_NAME = "schema.json"
GUIDE_NAME = "README.md"


@cache
def incidents_dir() -> Path:
    """The folder of shipped incident YAML files, the schema and the guide."""
    folder = resources.files(PACKAGE) / INCIDENTS_FOLDER
    if not isinstance(folder, Path):
        # Loading incidents needs real files (their path is in every error and save); a zip
        # import would need them extracted first, which no supported install does.
        raise RuntimeError(
            f"drill's shipped incidents are not plain files ({folder!r}); install drill from"
            " its wheel or a checkout, not as a zip"
        )
    return folder


def schema_file() -> Path:
    """The shipped JSON Schema for incident files (`drill schema -o` regenerates it)."""
    return incidents_dir() / SCHEMA_NAME


def guide_file() -> Path:
    """The incident authoring guide."""
    return incidents_dir() / GUIDE_NAME
