"""`iwc run --explorer assisted` end to end against the fake Messages API, in real
Chromium: the heuristic explores a counter whose bonus needs 500 clicks, its coverage
stalls, and the LLM tester (the fake) is asked for turns of three steps, each turn with
one guidance call on the code not yet run, up to --assist-steps; the trace says which
steps were the tester's and why, and the app's ledger holds exactly those calls."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline import cli
from iwcbench.pipeline.stages.exploring import llm_policy
from fakes.anthropic_server import text, tool_use

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Counter</title></head><body>
<button id="more">Add one</button> <output id="n">0</output>
<script>
let n = 0;
function bonus() { document.getElementById('n').textContent = 'bonus!'; }
document.getElementById('more').addEventListener('click', () => {
  n += 1;
  document.getElementById('n').textContent = String(n);
  if (n > 500) bonus();
});
</script></body></html>"""


def test_the_assisted_explorer_asks_the_tester_only_where_coverage_stalls(tmp_path, fake_anthropic):
    app = tmp_path / "apps" / "model-a" / "counter"
    app.mkdir(parents=True)
    (app / "index.html").write_text(PAGE)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "counter", "prompt": "A counter with a bonus at 500."}) + "\n")
    guidance_asked = []

    def handler(body):
        if body["system"] == llm_policy.GUIDANCE_SYSTEM:
            guidance_asked.append(json.dumps(body["messages"]))
            return text("Click Add one many more times.")
        ref = next(line.split("[ref=")[1].split("]")[0] for line in json.dumps(body["messages"]).split("\\n")
                   if 'button \\"Add one\\"' in line)
        return tool_use("click", {"ref": ref, "intent": "push the counter towards its bonus"})

    fake_anthropic.handler = handler
    out = tmp_path / "out"
    code = cli.main(["run", "--tasks", str(tasks), "--apps", str(tmp_path / "apps"), "--out", str(out),
                     "--explorer", "assisted", "--explorer-model", "claude-test-tester", "--assist-steps", "4",
                     "--max-steps", "40", "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror"),
                     "--no-quality"])
    assert code == 0
    result = json.loads((out / "apps/model-a/counter/result.json").read_text())
    assert result["outcome"] == "evaluated", result["reason"]
    trace = json.loads((out / "apps/model-a/counter/trace.json").read_text())
    assert trace["explorer"] == "assisted"
    by_tester = [s for s in trace["steps"] if (s.get("choice") or {}).get("how") == "llm"]
    assert len(by_tester) == 4, [(s["index"], s.get("choice")) for s in trace["steps"]]
    assert all(s["action"]["intent"] == "push the counter towards its bonus" and s["ok"] for s in by_tester)
    assert by_tester[0]["index"] > 10  # only once the heuristic's coverage had stalled
    purposes = result["llm_usage"]["purposes"]
    assert purposes["explore.step"]["calls"] == 4 and purposes["explore.guidance"]["calls"] == 2
    # the second turn's guidance asks what the first did (the same code left, the same page):
    # the response cache answers it
    assert len(guidance_asked) == 1 and "bonus" in guidance_asked[0]
    assert purposes["explore.guidance"]["cache_hits"] == 1
    assert "explore.summary" not in purposes
    assert trace["summary"].startswith("The LLM tester took 4 of the steps, in 2 turns")
