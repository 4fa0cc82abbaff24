"""The LLM-only commands as a user calls them: `iwc checklist`, `iwc robustness`,
and the configuration errors that name the field."""

from __future__ import annotations

import json

from fakes.anthropic_server import tool_use
from fakes.judge_evidence import role_of

from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import results


def test_checklist_command_writes_tasks_with_criteria(tmp_path, fake_anthropic, capsys):
    def handler(body):
        if role_of(body) == "checklist.propose":
            return tool_use("submit_checklist", {"functional": ["items can be added"],
                                                 "content": ["shows a count"], "visual": []})
        return tool_use("submit_merged_checklist", {"criteria": [
            {"kind": "functional", "text": "Items can be added", "supported_by": ["A", "B", "C"]},
            {"kind": "content", "text": "Shows a count", "supported_by": ["A", "B"]}]})

    fake_anthropic.handler = handler
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "a shopping list"}\n')
    out = tmp_path / "with-checklists.jsonl"
    assert cli.main(["checklist", "--tasks", str(tasks), "--out", str(out),
                     "--judges", "claude-a,claude-b,claude-c"]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(c["kind"], c["text"]) for c in written[0]["checklist"]] == [
        ("functional", "Items can be added"), ("content", "Shows a count")]
    assert "1 with a checklist" in capsys.readouterr().out


def test_checklist_command_needs_three_judges(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "x"}\n')
    assert cli.main(["checklist", "--tasks", str(tasks), "--out", str(tmp_path / "o"),
                     "--judges", "claude-a,claude-b"]) == 2
    assert "--judges" in capsys.readouterr().err


def _results(path, overall):
    """A finished run's results.json with this leaderboard (ranks by overall)."""
    order = sorted(overall, key=lambda m: -overall[m])
    rows = [results.LeaderboardRow(rank=order.index(m) + 1, model=m, overall=v, metrics={"aesthetics": 50 + 10 * v})
            for m, v in overall.items()]
    run = results.RunResults(run=results.RunInfo(configuration={}, config_hash="x", started_at="2026-12-01T00:00:00"),
                             leaderboard=tuple(sorted(rows, key=lambda r: r.rank)))
    path.mkdir()
    (path / "results.json").write_text(run.model_dump_json())
    return str(path)


def test_robustness_command_compares_two_judges(tmp_path, capsys):
    a = _results(tmp_path / "a", {"m1": 1.0, "m2": 0.2, "m3": -1.2})
    b = _results(tmp_path / "b", {"m1": 0.9, "m2": -0.3, "m3": -0.1})
    assert cli.main(["robustness", a, b]) == 0
    captured = capsys.readouterr()
    found = json.loads(captured.out.splitlines()[0])
    assert found["models"] == 3 and found["pairs"] == 3 and found["pairs_kept"] == 2
    assert "2 of 3 model pairs keep their order" in captured.err
    # the rank-change table (IWC-Bench Table 5), stored with B and shown in its report
    assert [(r["model"], r["rank_a"], r["rank_b"], r["delta"]) for r in found["ranks"]] == [
        ("m1", 1, 1, 0), ("m2", 2, 3, 1), ("m3", 3, 2, -1)]
    stored = json.loads((tmp_path / "b" / "analyses" / "robustness.json").read_text())
    assert stored["levels"][0]["metric"] == "aesthetics"
    assert "Judge robustness" in (tmp_path / "b" / "report" / "index.html").read_text()


def test_llm_explorer_without_a_model_is_a_named_config_error(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "x"}\n')
    (tmp_path / "apps").mkdir()
    assert cli.main(["run", "--tasks", str(tasks), "--apps", str(tmp_path / "apps"),
                     "--out", str(tmp_path / "out"), "--explorer", "llm"]) == 2
    assert "exploration.model" in capsys.readouterr().err


def test_bad_task_file_names_line_and_field(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "x"}\n{"id": "t2", "prompt": "y", "checklist": '
                     '[{"id": "1", "kind": "sound", "text": "z"}]}\n')
    (tmp_path / "apps").mkdir()
    assert cli.main(["run", "--tasks", str(tasks), "--apps", str(tmp_path / "apps"),
                     "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "checklist.0.kind" in err
