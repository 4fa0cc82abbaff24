"""Every Python package folder ships: pyproject.toml lists it (the mapping from
pipeline/ and operator/ to iwcbench.* needs an explicit list)."""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_every_package_folder_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for top, name in (("pipeline", "iwcbench.pipeline"), ("operator", "iwcbench.operator")):
        for init in (ROOT / top).rglob("__init__.py"):
            if "node_modules" in init.parts:
                continue
            rel = init.parent.relative_to(ROOT / top)
            found.add(".".join([name, *rel.parts]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
