"""Replicas by name: the `drill.replicas` entry points of installed packages, read from their
metadata. Each test installs a real (tiny) distribution: a `*.dist-info` folder with an
entry_points.txt on sys.path, which importlib.metadata reads as it reads any installed package.
Looking a name up imports nothing; loading the replica imports its module, from where it is
installed, never from the current folder."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from replica.errors import ReplicaRefused
from replica.interface import (
    BUILTIN,
    GROUP,
    canonical_ref,
    installed_replicas,
    load_replica,
    resolve_factory,
)
from tests.security.conftest import one_line

REPO = Path(__file__).resolve().parents[2]
MODULE = """from pathlib import Path

Path(__file__).with_name("IMPORTED").write_text("yes\\n")


def make(settings):
    return None
"""


def install(site: Path, dist: str, points: dict[str, str], module: str = "week3_replica") -> Path:
    """A real installed distribution: its module and its metadata, as pip would leave them."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(MODULE)
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")
    return site


@pytest.fixture
def site(tmp_path, monkeypatch):
    folder = tmp_path / "site"
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    sys.modules.pop("week3_replica", None)
    sys.modules.pop("other_replica", None)


def test_an_installed_entry_point_is_found_by_name_without_importing_it(site) -> None:
    install(site, "week3", {"my-week3": "week3_replica:make"})
    assert installed_replicas()["my-week3"] == [("week3_replica:make", "week3")]
    assert canonical_ref("my-week3") == "week3_replica:make"
    assert not (site / "IMPORTED").exists() and "week3_replica" not in sys.modules
    factory = resolve_factory("my-week3")  # loading it is what imports it
    assert callable(factory) and (site / "IMPORTED").exists()


def test_an_incident_names_it_and_validates_without_importing_it(site, planted, cli) -> None:
    install(site, "week3", {"my-week3": "week3_replica:make"})
    source = (REPO / "incidents" / "dead-rank.yaml").read_text()
    path = planted.folder / "week3.yaml"
    path.write_text(
        source.replace("    yours: true\n", "    yours: true\n    replica_factory: my-week3\n")
    )
    code, out, err = cli("validate", str(path))
    assert code == 0, out + err
    assert not (site / "IMPORTED").exists() and "week3_replica" not in sys.modules


def test_a_config_names_it(site, planted) -> None:
    from drill.replica_choice import project_replica

    install(site, "week3", {"my-week3": "week3_replica:make"})
    (planted.folder / "pyproject.toml").write_text('[tool.drill]\nreplica = "my-week3"\n')
    assert project_replica() == "my-week3"
    (planted.folder / "pyproject.toml").write_text('[tool.drill]\nreplica = "my-week4"\n')
    with pytest.raises(ValueError, match="no replica named 'my-week4' is installed"):
        project_replica()
    assert "week3_replica" not in sys.modules


def test_a_package_cannot_take_over_a_shipped_name(site) -> None:
    install(site, "sneaky", {"addition-gpt": "week3_replica:make", "spiral-mlp": "os:system"})
    assert canonical_ref("addition-gpt") == BUILTIN["addition-gpt"]
    assert canonical_ref("spiral-mlp") == BUILTIN["spiral-mlp"]


def test_a_name_two_packages_declare_is_refused(site) -> None:
    install(site, "week3", {"my-week3": "week3_replica:make"})
    install(site, "other", {"my-week3": "other_replica:make"}, module="other_replica")
    with pytest.raises(ReplicaRefused, match=r"more than one installed package \(other, week3\)"):
        canonical_ref("my-week3")


def test_an_installed_module_is_not_looked_for_in_the_current_folder(site, planted) -> None:
    # The entry point names `plant`, which only the current folder holds: loading by name must
    # not reach it (only a module:factory typed on the command line may come from here).
    install(site, "week3", {"from-here": "plant:make"})
    with pytest.raises(ReplicaRefused, match="no module named 'plant'"):
        load_replica("from-here", {})
    assert not planted.ran.exists()


def test_drill_declares_the_shipped_replicas_as_entry_points() -> None:
    # A reinstalled drill finds them through importlib.metadata; BUILTIN is what a checkout
    # that was not reinstalled falls back on. The two must agree.
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["entry-points"][GROUP] == BUILTIN


def test_a_name_not_installed_is_one_line_on_the_command_line(planted, cli) -> None:
    code, _, err = cli("run", "dead-rank", "--backend", "sim", "--replica", "my-week9")
    said = one_line(err)
    assert code == 2 and "--replica: no replica named 'my-week9' is installed" in said, said
