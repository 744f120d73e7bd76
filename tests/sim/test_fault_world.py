"""The fault kinds reach the world only through FaultWorld (drill/faults/world.py): the real
World has every member the protocol names, no fault kind imports the simulation, not even for
the type checker, and no circle joins the simulation, the fault kinds and the incident layer.
mypy compares World and the protocol member by member in drill/sim/world.py (`as_fault_world`);
this is the run-time half, on a world that is playing."""

from __future__ import annotations

import grimp
import pytest

from drill.faults import world as fw
from tests.drillkit import build, job_spec
from tests.drillkit import world as make_world

SCRATCH = {
    "name": "scratch",
    "capacity": "20TB",
    "used": "10TB",
    "quotas": {"ml": "5TB"},
    "read_bandwidth": "10GB/s",
    "write_bandwidth": "10GB/s",
}


def members(protocol: type) -> set[str]:
    """The names a protocol declares: its methods, properties and plain attributes."""
    declared = set(getattr(protocol, "__annotations__", {})) | set(vars(protocol))
    return {name for name in declared if not name.startswith("_")}


@pytest.fixture(scope="module")
def playing():
    train = job_spec("train", yours=True, team="ml", checkpoint={"every": 20, "volume": "scratch"})
    world = make_world(build(jobs=[train], storage=[SCRATCH]))
    world.run_until(1800)
    return world


def test_the_world_has_every_member_a_fault_kind_may_use(playing):
    world = playing
    job = world.jobs["train"]
    node = world.cluster.nodes[job.nodes[0]]
    assert job.current is not None and job.checkpoints.live(), "the night should be training"
    parts = [
        (fw.FaultWorld, world),
        (fw.FaultCluster, world.cluster),
        (fw.FaultNode, node),
        (fw.FaultGpu, node.gpus[0]),
        (fw.FaultHca, node.hcas[0]),
        (fw.FaultJob, job),
        (fw.FaultAttempt, job.current),
        (fw.FaultCheckpoints, job.checkpoints),
        (fw.FaultCheckpoint, job.checkpoints.live()[0]),
        (fw.FaultFailures, world.failures),
        (fw.FaultVolume, world.volumes["scratch"]),
        (fw.FaultTraining, world.training),
        (fw.FaultLedger, world.faults),
        (fw.FaultIncident, world.incident),
        (fw._Named, world.incident.learner_job),
        (fw._Fleet, world.incident.cluster),
    ]
    missing = [
        f"{protocol.__name__}.{name}"
        for protocol, part in parts
        for name in sorted(members(protocol))
        if not hasattr(part, name)
    ]
    assert not missing, f"the world lacks what FaultWorld promises: {missing}"
    # Every protocol of the module is walked above, so a new one cannot go unchecked.
    walked = {protocol for protocol, _ in parts}
    declared = {
        value
        for value in vars(fw).values()
        if isinstance(value, type)
        and getattr(value, "_is_protocol", False)
        and value.__module__ == fw.__name__
    }
    assert declared <= walked, f"walk these too: {sorted(p.__name__ for p in declared - walked)}"


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected components of more than one module among `modules` (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph.find_modules_directly_imported_by(module) & modules:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # Imports under `if TYPE_CHECKING:` count: a circle the checker walks is still a circle.
    return grimp.build_graph("drill", exclude_type_checking_imports=False)


def test_no_fault_kind_imports_the_simulation(graph):
    chains = graph.find_shortest_chains(importer="drill.faults", imported="drill.sim")
    assert not chains, f"drill/faults reaches drill/sim: {sorted(chains)}"


def test_the_fault_kinds_and_the_incident_layer_import_each_other_one_way(graph):
    """incident gathers the kinds' models; the kinds stand on the value types below both."""
    assert not graph.find_shortest_chains(importer="drill.faults", imported="drill.incident")
    assert not graph.find_shortest_chains(importer="drill.values", imported="drill.incident")


def test_no_circle_among_the_simulation_the_faults_and_the_incident_layer(graph):
    """The simulation's parts name the SimWorld protocol, not the World that builds them; the
    season's world lives with the Incident model that checks it."""
    packages = ("drill.sim", "drill.faults", "drill.incident", "drill.values")
    modules = {m for m in graph.modules if m.startswith(packages)}
    assert not _cycles(graph, modules)
