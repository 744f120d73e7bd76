from __future__ import annotations

import dataclasses

import pytest

from replica.config import ReplicaConfig


def test_defaults_are_valid_and_frozen() -> None:
    cfg = ReplicaConfig()
    assert cfg.global_batch % cfg.ranks == 0
    assert cfg.vocab == 13
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 1.0  # type: ignore[misc]


def test_hash_is_canonical() -> None:
    assert ReplicaConfig().config_hash() == ReplicaConfig().config_hash()
    assert ReplicaConfig(seed=1).config_hash() != ReplicaConfig().config_hash()
    # An int where a float is expected hashes like the float.
    assert ReplicaConfig(lr=1).config_hash() == ReplicaConfig(lr=1.0).config_hash()
    assert len(ReplicaConfig().config_hash()) == 64


def test_hash_is_stable_across_processes(run_python) -> None:
    code = "from replica.config import ReplicaConfig; print(ReplicaConfig(seed=7).config_hash())"
    out = run_python(code).stdout.strip()
    assert out == ReplicaConfig(seed=7).config_hash()


def test_from_mapping_accepts_known_keys() -> None:
    cfg = ReplicaConfig.from_mapping({"seed": 3, "ranks": 2})
    assert cfg == ReplicaConfig(seed=3, ranks=2)


def test_from_mapping_rejects_unknown_key_by_name() -> None:
    with pytest.raises(ValueError, match="'widht'"):
        ReplicaConfig.from_mapping({"widht": 64})


@pytest.mark.parametrize(
    "kwargs, text",
    [
        ({"width": 30, "heads": 4}, "multiple of heads"),
        ({"global_batch": 30, "ranks": 4}, "divide global_batch"),
        ({"layers": 0}, "layers"),
        ({"lr": 0.0}, "lr"),
        ({"seed": "1"}, "seed"),
        ({"ranks": True}, "ranks"),
    ],
)
def test_invalid_configs_are_refused(kwargs: dict, text: str) -> None:
    with pytest.raises(ValueError, match=text):
        ReplicaConfig(**kwargs)


def test_import_replica_is_cheap_and_isolated(run_python) -> None:
    # `import replica` and the config must not pull in torch; no replica module may pull in
    # drill, simpy, textual or rich.
    code = """
        import sys
        import replica
        from replica import ReplicaConfig, replica_world_for
        ReplicaConfig().config_hash()
        replica_world_for(8, 16, 4)
        assert "torch" not in sys.modules, "import replica pulled in torch"
        import pkgutil, importlib
        for m in pkgutil.iter_modules(replica.__path__):
            importlib.import_module("replica." + m.name)
        for name in replica.__all__:
            getattr(replica, name)
        bad = sorted(m for m in sys.modules if m.split(".")[0] in {"drill", "simpy", "textual", "rich"})
        assert not bad, bad
        print("ok")
    """
    assert run_python(code).stdout.strip() == "ok"
