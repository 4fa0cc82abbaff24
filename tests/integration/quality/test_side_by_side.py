"""Jobs side by side in the tool server (``Tools.together``): each answer comes back
in order with its own seconds, as the same job alone gives it; a job past its limit
is a failure of that tool, the others still answer, and the server is stopped (what
overran may still be running) so the next job starts a fresh one."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import quality as records
from iwcbench.pipeline.stages.quality import sources, tooling

pytestmark = pytest.mark.browser  # needs the npm tools (hack/setup)

CODE = "// adds\nfunction add(a, b) {\n  return a + b;\n}\nadd(1, 2);\n"


def _units() -> list[dict]:
    kept = records.AppSources(files=(records.SourceFile(path="app.js", language="js", text=CODE),))
    return [u.job() for u in sources.units(kept)]


def test_jobs_side_by_side_answer_in_order_as_alone(tools):
    alone = tools.static_tools(_units(), ["helo"], 60)
    warm = tooling.Job("warm", {"chromium": False, "firefox": None}, 60, "warming")
    both = tools.together([tooling.static_job(_units(), ["helo"], 60), warm])
    assert len(both) == 2 and all(isinstance(a, dict) for a in both), both
    assert both[0]["_seconds"] >= 0 and both[1]["_seconds"] >= 0 and both[1]["failed"] == []
    assert {k: v for k, v in both[0].items() if k not in ("_seconds", "versions")} == {
        k: v for k, v in alone.items() if k != "versions"}
    assert both[0]["unknown_words"] == ["helo"]
    with pytest.raises(ValueError):
        tools.together([tooling.static_job(_units(), [], 60), tooling.static_job(_units(), [], 60)])


def test_a_job_past_its_limit_fails_alone_and_the_server_is_stopped():
    with tooling.Tools() as tools:
        # starting Chromium takes longer than 1 ms: that job overruns, the static one answers
        slow = tooling.Job("warm", {"chromium": True, "firefox": None}, 0.001, "warming")
        answers = tools.together([slow, tooling.static_job(_units(), [], 60)])
        assert isinstance(answers[0], tooling.ToolFailure) and "did not answer within" in answers[0].reason
        assert isinstance(answers[1], dict) and "versions" in answers[1]
        assert tools._server is None  # stopped: the next job starts a fresh one
        assert isinstance(tools.static_tools(_units(), [], 60), dict)
