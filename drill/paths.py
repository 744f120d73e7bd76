"""Where the files drill ships live: the folder the import system found the `drill` package
in, so they are the same files from a checkout, an editable install or an installed wheel.

The shipped incidents, their JSON Schema and the authoring guide sit in `drill/incidents/`
inside the package. Nothing here computes a path from another module's `__file__`. The
package's spec says where it was found, which is what importlib.resources reads for a package
of plain files; importlib.resources itself costs a hundredth of a second to import, paid
before the first frame, so it is asked only for a package that is not plain files.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

PACKAGE = "drill"
INCIDENTS_FOLDER = "incidents"
SCHEMA_NAME = "schema.json"
GUIDE_NAME = "README.md"


@cache
def package_dir() -> Path:
    """The folder of the `drill` package."""
    __import__(PACKAGE)
    spec = sys.modules[PACKAGE].__spec__
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if spec is not None and spec.has_location and len(locations) == 1:
        folder = Path(locations[0])
        if folder.is_dir():
            return folder
    from importlib import resources

    found = resources.files(PACKAGE)
    if not isinstance(found, Path):
        # Loading incidents needs real files (their path is in every error and save); a zip
        # import would need them extracted first, which no supported install does.
        raise RuntimeError(
            f"drill's shipped files are not plain files ({found!r}); install drill from"
            " its wheel or a checkout, not as a zip"
        )
    return found


@cache
def incidents_dir() -> Path:
    """The folder of shipped incident YAML files, the schema and the guide."""
    folder = package_dir() / INCIDENTS_FOLDER
    if not folder.is_dir():
        raise RuntimeError(
            f"drill's shipped incidents are missing ({folder}); install drill again from its"
            " wheel or a checkout"
        )
    return folder


def schema_file() -> Path:
    """The shipped JSON Schema for incident files (`drill schema -o` regenerates it)."""
    return incidents_dir() / SCHEMA_NAME


def guide_file() -> Path:
    """The incident authoring guide."""
    return incidents_dir() / GUIDE_NAME
