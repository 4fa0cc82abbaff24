"""Our JavaScript's unit tests (tests/js/*.test.mjs, node:test) pass under the machine's
Node. They run from here rather than from hack/verify: verify checks that generated and
linted files are as they should be, the test suite checks behaviour, and this way a
failing JavaScript test fails `pytest` (and hack/test) like any other, with node's
report in the failure. They need the project's Node tools (hack/setup), as the
integration tests do."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from iwcbench.pipeline.kits import processes

ROOT = pathlib.Path(__file__).resolve().parents[3]
TESTS = ROOT / "tests" / "js"


@pytest.mark.node
def test_node_unit_tests_pass() -> None:
    files = sorted(TESTS.glob("*.test.mjs"))
    assert files, "no tests/js/*.test.mjs"
    done = subprocess.run([processes.node_binary(), "--test", "--test-reporter=tap", *map(str, files)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    failing = [line for line in done.stdout.splitlines() if line.startswith("not ok")]
    assert done.returncode == 0 and not failing, done.stdout[-6000:] + done.stderr[-2000:]
    # every test ran (a file that failed to load would count none of its own)
    written = sum(line.startswith("test(") for f in files for line in f.read_text(encoding="utf-8").splitlines())
    assert f"# pass {written}\n" in done.stdout, done.stdout[-2000:]
