"""The fixed folder name `operator/` must never shadow the standard library's
`operator` for a Python started anywhere in the checkout (it has no __init__.py, so
the standard library's regular module wins)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROBE = "import fractions, operator; print(operator.__file__); print(operator.or_(1, 2))"


@pytest.mark.parametrize("where", ["", "operator", "pipeline", "tests", "hack"])
@pytest.mark.parametrize("python", [sys.executable, getattr(sys, "_base_executable", sys.executable)])
def test_a_bare_interpreter_in_the_checkout_gets_the_standard_library(where, python):
    for argv, stdin in (([python, "-c", PROBE], None), ([python, "-"], PROBE)):
        done = subprocess.run(argv, cwd=ROOT / where, input=stdin, capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin"}, timeout=60)
        assert done.returncode == 0, done.stderr
        found, value = done.stdout.split()
        assert not pathlib.Path(found).is_relative_to(ROOT / "operator") and value == "3"


def test_the_operator_is_still_importable_from_the_package():
    from iwcbench.operator import api

    assert pathlib.Path(api.__file__).parent == ROOT / "operator"
