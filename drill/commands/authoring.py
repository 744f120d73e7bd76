"""The instructor's commands: validate, schema, new."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from drill import paths
from drill.atomic_file import write_text_atomic
from drill.commands.printing import say
from drill.engine.static_check import check
from drill.errors import UserError
from drill.incident.errors import IncidentError, Problem, sorted_unique
from drill.incident.library import incident_files, resolve_incident
from drill.incident.loader import load_incident, load_incident_bytes
from drill.incident.migrate_text import rewrite
from drill.incident.migrations import describe
from drill.incident.models import SCHEMA_VERSION, Incident
from drill.incident.starter import STARTER

SCHEMA_ID = "3am-drill-incident"


def validate(args: argparse.Namespace) -> int:
    files = incident_files(args.paths)
    if not files:
        raise UserError("no incident files found there; give .yaml files or folders holding them")
    problems: list[Problem] = []
    for path in files:
        try:
            loaded = load_incident(path)
        except IncidentError as exc:
            problems += exc.problems
            continue
        problems += check(loaded)
        if loaded.migration:
            say(old_schema_notice(loaded))
    for problem in sorted_unique(problems):
        say(str(problem), err=True)
    if problems:
        return 2
    say(f"{len(files)} incident{'s' if len(files) != 1 else ''} valid")
    return 0


def old_schema_notice(loaded) -> str:
    """What `drill validate` says of a file written for an earlier schema."""
    lines = [
        f"{loaded.path}: written for incident schema {loaded.migrated_from}; it loads through a"
        f" migration to schema {SCHEMA_VERSION}. `drill migrate {loaded.path}` would change:"
    ]
    for change in loaded.migration:
        line, _ = (
            loaded.doc.key_where(change.loc)
            if change.action in ("rename", "drop")
            else loaded.doc.where(change.loc)
        )
        lines.append(f"  {describe(change, line)}")
    return "\n".join(lines)


def migrate(args: argparse.Namespace) -> int:
    """Rewrite old incident files in place (or, with --check, say what would change)."""
    files = incident_files(args.paths)
    if not files:
        raise UserError("no incident files found there; give .yaml files or folders holding them")
    stale = 0
    for path in files:
        loaded = load_incident(path)
        if not loaded.migration:
            say(f"{path}: already incident schema {SCHEMA_VERSION}")
            continue
        stale += 1
        say(old_schema_notice(loaded))
        if args.check:
            continue
        raw = Path(path).read_bytes()
        text = rewrite(raw.decode("utf-8"), loaded.doc, list(loaded.migration))
        after = load_incident_bytes(text.encode("utf-8"), str(path))
        if after.migration or after.incident != loaded.incident:
            raise UserError(
                f"{path}: the rewritten file would not load as the same incident; the file is"
                " unchanged (please report this as a bug in drill migrate)"
            )
        write_text_atomic(path, text)
        say(f"{path}: rewritten for incident schema {SCHEMA_VERSION}")
    return 1 if args.check and stale else 0


def incident_schema() -> dict:
    schema = Incident.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "3am Drill incident",
        "description": "One incident for 3am Drill. See incidents/README.md for every field.",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def schema_text() -> str:
    return json.dumps(incident_schema(), indent=2, sort_keys=True) + "\n"


def schema(args: argparse.Namespace) -> int:
    text = schema_text()
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def new(args: argparse.Namespace) -> int:
    name = args.name
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", name):
        raise UserError(
            f"{name!r} is not an incident id; use lower case letters, digits and -, like disk-fills-twice"
        )
    target = Path(args.output) if args.output else Path(f"{name}.yaml")
    if target.exists():
        raise UserError(f"{target} already exists; pick another name or -o PATH")
    schema_ref = _schema_path_for(target)
    if args.source:
        source = resolve_incident(args.source)
        text = Path(source.path).read_text(encoding="utf-8")
        text, count = re.subn(r"(?m)^id:\s*\S+\s*$", f"id: {name}", text, count=1)
        if not count:
            raise UserError(f"{source.path} has no top-level `id:` line to rename")
        text = re.sub(r"(?m)^# yaml-language-server: \$schema=.*\n", "", text)
        text = f"# yaml-language-server: $schema={schema_ref}\n" + text
    else:
        text = STARTER.format(id=name, schema=schema_ref)
    target.write_text(text, encoding="utf-8")
    say(f"wrote {target}; check it with `drill validate {target}`")
    return 0


def _schema_path_for(target: Path) -> str:
    """A relative path from the new file to the shipped schema, when it is inside the repo."""
    schema_file = paths.schema_file()
    try:
        return os.path.relpath(schema_file, target.resolve().parent)
    except ValueError:
        return str(schema_file)
