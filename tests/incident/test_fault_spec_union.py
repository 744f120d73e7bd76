"""drill/faults/__init__.py builds FaultSpec from the registry at run time and writes the same
union out for the type checker, which cannot build one. The two must name the same models in
the same order, or the checker reasons about a different set of kinds than the game loads."""

from __future__ import annotations

import ast
import inspect

import drill.faults
from drill.faults import KINDS


def _checker_union() -> list[type]:
    tree = ast.parse(inspect.getsource(drill.faults))
    branch = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
        and any(
            isinstance(stmt, ast.Assign) and stmt.targets[0].id == "FaultSpec" for stmt in node.body
        )
    )
    union = next(
        node
        for node in ast.walk(branch)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Union"
    )
    models = []
    for element in union.slice.elts:
        assert isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name)
        models.append(getattr(getattr(drill.faults, element.value.id), element.attr))
    return models


def test_the_checkers_fault_union_is_the_registrys():
    assert _checker_union() == [kind.spec for kind in KINDS.values()]
