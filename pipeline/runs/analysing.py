"""The validation analyses a user runs on finished results: human agreement, two runs
compared (guidance ablation, judging protocols), judge robustness. Each reads results
(and votes), runs the pure analysis, stores it under ``analyses/`` of the run it is
about, and re-renders that run's report so the analysis shows there.
"""

from __future__ import annotations

import json
import pathlib

import pydantic

from iwcbench.pipeline.contracts import analyses, artifacts
from iwcbench.pipeline.runs import evidence as stored, finishing, inputs
from iwcbench.pipeline.stages.analysing import agreement as agreeing, comparing, robustness


def read_votes(path: str) -> list[analyses.PairVote | analyses.RatingVote]:
    """votes.jsonl: one vote a line, a pairwise preference {"task", "model_a",
    "model_b", "winner"} or a rating {"task", "model", "score"}; a bad line is an error
    naming its number and field."""
    file = pathlib.Path(path)
    if not file.is_file():
        raise inputs.BadInput(f"--votes: no such file: {path}")
    votes: list[analyses.PairVote | analyses.RatingVote] = []
    for number, line in enumerate(file.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = analyses.RatingVote if isinstance(data, dict) and "score" in data else analyses.PairVote
            votes.append(kind.model_validate(data))
        except json.JSONDecodeError as exc:
            raise inputs.BadInput(f"--votes: line {number}: not JSON: {exc.msg}") from None
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "vote"
            raise inputs.BadInput(f"--votes: line {number}: {where}: "
                                  f"{first['msg'].removeprefix('Value error, ')}") from None
    return votes


def _store_analysis(run_uri: str, artifact: artifacts.Artifact, analysis: analyses.Agreement
                    | analyses.Comparison | analyses.Robustness) -> str:
    store, _ = inputs.results_location(run_uri)
    stored.RunFiles(store).save(artifact, analysis)
    run, _ = inputs.load_results(run_uri)
    finishing.render_report(store, run)
    return f"{store.uri}/{artifact.key}"


def agreement(results_uri: str, votes_path: str) -> tuple[analyses.Agreement, str]:
    run, _ = inputs.load_results(results_uri)
    overall = {(a.model, a.task_id): a.overall for a in run.apps}
    found = agreeing.agreement(agreeing.pairs_from(read_votes(votes_path)), overall,
                               votes_source=votes_path, results_source=results_uri)
    return found, _store_analysis(results_uri, artifacts.AGREEMENT, found)


def compare(a_uri: str, b_uri: str, a_label: str, b_label: str,
            into: str | None = None) -> tuple[analyses.Comparison, str]:
    a, _ = inputs.load_results(a_uri, "A")
    b, _ = inputs.load_results(b_uri, "B")
    found = comparing.compare(a.apps, b.apps, a_source=a_uri, b_source=b_uri, a_label=a_label, b_label=b_label)
    return found, _store_analysis(into or b_uri, artifacts.COMPARISON, found)


def robustness_of(a_uri: str, b_uri: str, into: str | None = None) -> tuple[analyses.Robustness, str]:
    a, _ = inputs.load_results(a_uri, "A")
    b, _ = inputs.load_results(b_uri, "B")
    found = robustness.analyse(a, b, a_uri, b_uri)
    return found, _store_analysis(into or b_uri, artifacts.ROBUSTNESS, found)
