"""incidents/README.md, the authoring guide, stays true to the code it describes."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from pydantic import BaseModel

from drill.incident.models import Incident
from drill.incident.yaml_source import load_yaml_document, load_yaml_file

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "drill" / "incidents" / "README.md"
TEXT = GUIDE.read_text(encoding="utf-8")


def _models(model: type[BaseModel], seen: set[type[BaseModel]]) -> None:
    if model in seen:
        return
    seen.add(model)
    for info in model.model_fields.values():
        pending = [info.annotation]
        while pending:
            item = pending.pop()
            if isinstance(item, type) and issubclass(item, BaseModel):
                _models(item, seen)
            pending.extend(typing.get_args(item))


def field_names() -> set[str]:
    models: set[type[BaseModel]] = set()
    _models(Incident, models)
    return {info.alias or name for model in models for name, info in model.model_fields.items()}


def test_the_guide_has_no_em_dash() -> None:
    assert "\u2014" not in TEXT


def test_the_guide_names_every_field_of_the_models() -> None:
    missing = sorted(name for name in field_names() if f"`{name}`" not in TEXT)
    assert not missing, f"incidents/README.md does not describe: {', '.join(missing)}"


def test_the_annotated_example_is_the_shipped_dead_rank_incident() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", TEXT, flags=re.DOTALL)
    example = next(block for block in blocks if "id: dead-rank" in block)
    written = load_yaml_document(example, "README.md").data
    shipped = load_yaml_file(REPO / "drill" / "incidents" / "dead-rank.yaml").data
    assert written == shipped, (
        "the annotated example in incidents/README.md drifted from dead-rank.yaml"
    )
    Incident.model_validate(written)


def test_the_guide_mentions_the_whole_workflow() -> None:
    for command in (
        "drill new",
        "drill validate",
        "drill test",
        "drill schema -o drill/incidents/schema.json",
    ):
        assert command in TEXT


def _kind_section(kind: str) -> str:
    match = re.search(rf"^#### `{kind}`\n(.*?)(?=^#{{2,4}} )", TEXT, flags=re.DOTALL | re.M)
    assert match, f"incidents/README.md has no `#### `{kind}`` section"
    return match.group(1)


def test_the_guide_describes_every_fault_kind_and_its_own_fields() -> None:
    from drill.faults import KINDS
    from drill.faults.base import FaultBase

    common = set(FaultBase.model_fields) | {"kind"}
    for name, kind in KINDS.items():
        section = _kind_section(name)
        own = sorted(set(kind.spec.model_fields) - common)
        missing = [field for field in own if f"`{field}`" not in section]
        assert not missing, f"the guide's {name} section does not describe: {', '.join(missing)}"
