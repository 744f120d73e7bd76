"""No import circles among the modules of drill/ and replica/, type-only imports included.

The layers contracts (tests/test_layers.py) only see imports between the modules they name, and
a circle inside one layer passes them. This walks every import grimp finds, `if TYPE_CHECKING:`
ones too (a type named from above is still a dependency), and fails naming each circle: one
path around it, and every module caught in it.
"""

from __future__ import annotations

import grimp

PACKAGES = ("drill", "replica")


def import_graph() -> dict[str, set[str]]:
    """Each module of drill/ and replica/ and the modules of those packages it imports."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False, cache_dir=None)
    return edges_of(graph)


def edges_of(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    ours = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    return {m: graph.find_modules_directly_imported_by(m) & ours for m in sorted(ours)}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (and any module that imports
    itself), each sorted; Tarjan's algorithm, iterative so a deep chain cannot overflow."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges.get(node, ()):
                    found.append(sorted(group))
    return sorted(found)


def path_around(edges: dict[str, set[str]], group: list[str]) -> list[str]:
    """One shortest way around a circle, from its first module back to it."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for imported in sorted(edges.get(module, ()) & members):
                if imported == start:
                    path = [start, module]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path[1:]), start]
                if imported not in came_from:
                    came_from[imported] = module
                    following.append(imported)
        frontier = following
    raise AssertionError(f"{group} is not a circle")


def describe(edges: dict[str, set[str]], groups: list[list[str]]) -> str:
    lines = []
    for group in groups:
        lines.append(" -> ".join(path_around(edges, group)))
        lines.append(f"    ({len(group)} modules in this circle: {', '.join(group)})")
    return "\n".join(lines)


def test_no_module_of_drill_or_replica_imports_itself_around_a_circle():
    edges = import_graph()
    assert "drill.engine.drill" in edges and "replica.interface" in edges, "no modules found"
    found = circles(edges)
    assert not found, "import circles (break each by moving the shared piece down):\n" + describe(
        edges, found
    )


def test_the_walk_finds_a_circle_and_names_it():
    """The check can fail: a small graph with a circle (through a type-only import, as grimp
    reports one) and a clean branch is reported with the circle's path and only its modules."""
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("drill.engine.drill", "drill.engine.scoring.par"),
        ("drill.engine.scoring.par", "drill.engine.headless"),
        ("drill.engine.headless", "drill.engine.drill"),
        ("drill.engine.drill", "drill.engine.snapshot"),
        ("drill.tui.app", "drill.engine.drill"),
    ]:
        graph.add_import(importer=importer, imported=imported)
    edges = edges_of(graph)
    found = circles(edges)
    assert found == [["drill.engine.drill", "drill.engine.headless", "drill.engine.scoring.par"]]
    assert path_around(edges, found[0]) == [
        "drill.engine.drill",
        "drill.engine.scoring.par",
        "drill.engine.headless",
        "drill.engine.drill",
    ]
    assert "drill.engine.drill -> drill.engine.scoring.par" in describe(edges, found)


def test_a_module_that_imports_itself_is_a_circle():
    assert circles({"drill.a": {"drill.a"}, "drill.b": set()}) == [["drill.a"]]
