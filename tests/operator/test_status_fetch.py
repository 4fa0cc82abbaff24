"""`iwc status RUN` and `iwc fetch RUN` against an EvaluationRun whose status the operator
and the scoring Job would have written: what a person reads, the exit code a script
reads, the results folder with its digest checked, and a clear refusal when the run has
not finished."""

from __future__ import annotations

import datetime
import hashlib
import threading
import time

import boto3
import pytest

from fakes import operator_harness as h
from iwcbench.operator import api, watching
from iwcbench.pipeline import cli

RESULTS = b'{"schema_version": 1, "apps": [], "leaderboard": []}'
NOW = "2026-12-06T10:00:00Z"


def _finished(bucket: str, name: str, digest: str | None = None) -> dict:
    uri = f"s3://{bucket}/runs/{name}/results.json"
    return {
        "phase": "Succeeded", "progress": "14/14", "round": 0, "costUsd": 1.2345, "leader": "aurora-7b",
        "counts": {"total": 14, "succeeded": 13, "failed": 1, "active": 0, "queued": 0, "pending": 0},
        "conditions": [
            {"type": "SpecValid", "status": "True", "reason": "Valid", "message": "", "lastTransitionTime": NOW},
            {"type": "AppsListed", "status": "True", "reason": "Listed", "message": "14 apps", "lastTransitionTime": NOW},
            {"type": "WithinBudget", "status": "False", "reason": "BudgetReached",
             "message": "$1.2345 of maxCost $1", "lastTransitionTime": NOW},
            {"type": "Complete", "status": "True", "reason": "Scored", "message": "results published",
             "lastTransitionTime": NOW}],
        "failures": [{"app": "brisk-3b/000014", "job": "x-000014-abc", "reason": "DeadlineExceeded",
                      "message": "Job was active longer than specified deadline", "time": NOW}],
        "resultsURI": uri,
        "results": {"uri": uri, "digest": digest or "sha256:" + hashlib.sha256(RESULTS).hexdigest(), "apps": 14,
                    "overallName": "offline overall",
                    "leaderboard": [{"rank": 1, "model": "aurora-7b", "overall": 0.497, "apps": 7},
                                    {"rank": 2, "model": "brisk-3b", "overall": -0.512, "apps": 7}]},
    }


def _running() -> dict:
    return {"phase": "Running", "progress": "5/14",
            "counts": {"total": 14, "succeeded": 4, "failed": 1, "active": 2, "queued": 0, "pending": 7},
            "conditions": [{"type": "Admitted", "status": "False", "reason": "WaitingForAdmission",
                            "message": "2 Jobs waiting for Kueue's admission in queue team-a",
                            "lastTransitionTime": NOW}]}


def _patch_status(apiserver, namespace: str, name: str, status: dict) -> None:
    code, data = apiserver.call(apiserver.request(
        "PATCH", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{namespace}/{api.PLURAL}/{name}/status",
        {"status": status}))
    assert code == 200, data


def _iwc(monkeypatch, capsys, kubeconfig, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _store_run(bucket: str, name: str) -> None:
    s3 = boto3.client("s3")
    for key, body in {"results.json": RESULTS, "report/index.html": b"<h1>leaderboard</h1>",
                      "report/assets/report.css": b"body{}", "report/apps/aurora-7b/t.html": b"<p>app</p>",
                      "apps/aurora-7b/t/trace.json": b"{}", ".iwc/owner.json": b"{}"}.items():
        s3.put_object(Bucket=bucket, Key=f"runs/{name}/{key}", Body=body)


# ---------------------------------------------------------------- status


def test_status_of_a_finished_run_says_what_its_status_holds(apiserver, namespace, s3_bucket, tmp_path,
                                                              monkeypatch, capsys):
    apiserver.apply_run(namespace, h.run_manifest("done", s3_bucket, maxCost=1))
    _patch_status(apiserver, namespace, "done", _finished(s3_bucket, "done"))
    code, out, err = _iwc(monkeypatch, capsys, apiserver.kubeconfig(tmp_path / "kc.json"),
                          "status", "done", "-n", namespace)
    assert code == 0, err
    assert f"EvaluationRun {namespace}/done: Succeeded" in out
    assert "14/14 ended: 13 succeeded, 1 failed" in out
    assert "$1.23 of maxCost $1" in out and "leader     aurora-7b" in out
    assert f"s3://{s3_bucket}/runs/done/results.json" in out
    assert "1 aurora-7b +0.497; 2 brisk-3b -0.512 (offline overall)" in out
    assert "WithinBudget=False BudgetReached" in out
    assert "SpecValid" not in out and "Complete" not in out  # conditions that say nothing is wrong stay out
    assert "brisk-3b/000014  DeadlineExceeded" in out


def test_status_exit_codes_and_watch(apiserver, namespace, s3_bucket, tmp_path, monkeypatch, capsys):
    kubeconfig = apiserver.kubeconfig(tmp_path / "kc.json")
    apiserver.apply_run(namespace, h.run_manifest("going", s3_bucket))
    code, out, _ = _iwc(monkeypatch, capsys, kubeconfig, "status", "going", "-n", namespace)
    assert code == watching.EXIT_NOT_ENDED and "Pending" in out and "has not looked at it yet" in out
    _patch_status(apiserver, namespace, "going", _running())
    code, out, _ = _iwc(monkeypatch, capsys, kubeconfig, "status", "going", "-n", namespace)
    assert code == watching.EXIT_NOT_ENDED and "Admitted=False WaitingForAdmission" in out
    assert "5/14 ended: 4 succeeded, 1 failed; 2 active, 7 pending" in out

    later = threading.Timer(1.0, _patch_status, (apiserver, namespace, "going", {**_finished(s3_bucket, "going"),
                                                                                "failures": []}))
    later.start()
    try:
        code, out, err = _iwc(monkeypatch, capsys, kubeconfig, "status", "going", "-n", namespace,
                              "--watch", "--interval", "0.2", "--timeout", "60")
    finally:
        later.join()
    assert code == 0, err
    assert "Running  5/14 ended" in out and "Succeeded  14/14 ended" in out  # one line per change, then the summary

    _patch_status(apiserver, namespace, "going", {"phase": "Failed"})
    assert _iwc(monkeypatch, capsys, kubeconfig, "status", "going", "-n", namespace)[0] == watching.EXIT_FAILED
    code, _, err = _iwc(monkeypatch, capsys, kubeconfig, "status", "nope", "-n", namespace)
    assert code == watching.EXIT_NOT_FOUND and "no EvaluationRun nope" in err


def test_watch_gives_up_at_its_timeout():
    runs = iter([{"status": {"phase": "Running"}}] * 100)
    seen = []
    clock = iter(range(100))
    run = watching.follow(lambda: next(runs), seen.append, interval_s=1, timeout_s=3,
                          sleep=lambda s: None, clock=lambda: next(clock))
    assert watching.exit_code(run) == watching.EXIT_NOT_ENDED and len(seen) == 1


def test_age_reads_like_kubectls():
    now = datetime.datetime(2026, 12, 6, 12, 0, tzinfo=datetime.timezone.utc)
    assert watching.age("2026-12-06T11:59:30Z", now) == "30s"
    assert watching.age("2026-12-06T11:19:00Z", now) == "41m"
    assert watching.age("2026-12-06T07:55:00Z", now) == "4h05m"
    assert watching.age("2026-12-01T12:00:00Z", now) == "5d"


# ---------------------------------------------------------------- fetch


def test_fetch_downloads_results_and_report_and_evidence_on_request(apiserver, namespace, s3_bucket, tmp_path,
                                                                    monkeypatch, capsys):
    kubeconfig = apiserver.kubeconfig(tmp_path / "kc.json")
    _store_run(s3_bucket, "done")
    apiserver.apply_run(namespace, h.run_manifest("done", s3_bucket))
    _patch_status(apiserver, namespace, "done", _finished(s3_bucket, "done"))
    out_dir = tmp_path / "out"
    code, out, err = _iwc(monkeypatch, capsys, kubeconfig, "fetch", "done", "-n", namespace, "--out", str(out_dir))
    assert code == 0, err
    files = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*") if p.is_file())
    assert files == ["report/apps/aurora-7b/t.html", "report/assets/report.css", "report/index.html", "results.json"]
    assert (out_dir / "results.json").read_bytes() == RESULTS
    assert "digest checked" in out

    code, _, err = _iwc(monkeypatch, capsys, kubeconfig, "fetch", "done", "-n", namespace, "--out", str(out_dir),
                        "--evidence")
    assert code == 0, err
    assert (out_dir / "apps/aurora-7b/t/trace.json").read_bytes() == b"{}"
    assert "downloaded 1 file " in err and "4 already there" in err  # the report and results.json were there


def test_fetch_refuses_results_that_are_not_the_published_ones(apiserver, namespace, s3_bucket, tmp_path,
                                                               monkeypatch, capsys):
    _store_run(s3_bucket, "moved")
    apiserver.apply_run(namespace, h.run_manifest("moved", s3_bucket))
    _patch_status(apiserver, namespace, "moved", _finished(s3_bucket, "moved", digest="sha256:" + "0" * 64))
    code, _, err = _iwc(monkeypatch, capsys, apiserver.kubeconfig(tmp_path / "kc.json"),
                        "fetch", "moved", "-n", namespace, "--out", str(tmp_path / "out"))
    assert code == watching.EXIT_DIGEST and "status.results.digest" in err and "nothing was written" in err
    assert not (tmp_path / "out").exists()


def test_fetch_of_an_unfinished_run_says_so_or_waits(apiserver, namespace, s3_bucket, tmp_path, monkeypatch, capsys):
    kubeconfig = apiserver.kubeconfig(tmp_path / "kc.json")
    _store_run(s3_bucket, "slow")
    apiserver.apply_run(namespace, h.run_manifest("slow", s3_bucket))
    _patch_status(apiserver, namespace, "slow", _running())
    code, _, err = _iwc(monkeypatch, capsys, kubeconfig, "fetch", "slow", "-n", namespace, "--out", str(tmp_path / "o"))
    assert code == watching.EXIT_NOT_ENDED
    assert "has not finished: Running, 5/14 ended" in err and f"iwc fetch slow -n {namespace} --wait" in err
    assert not (tmp_path / "o").exists()

    later = threading.Timer(1.0, _patch_status, (apiserver, namespace, "slow", _finished(s3_bucket, "slow")))
    later.start()
    started = time.monotonic()
    try:
        code, _, err = _iwc(monkeypatch, capsys, kubeconfig, "fetch", "slow", "-n", namespace, "--out",
                            str(tmp_path / "o"), "--wait", "--interval", "0.2")
    finally:
        later.join()
    assert code == 0, err
    assert time.monotonic() - started >= 0.9 and (tmp_path / "o" / "results.json").read_bytes() == RESULTS


@pytest.mark.parametrize("status, code, said", [
    ({"phase": "Failed", "conditions": [{"type": "Failed", "status": "True", "reason": "ScoringIncomplete",
                                         "message": "the scoring Job published nothing", "lastTransitionTime": NOW}]},
     watching.EXIT_FAILED, "ended Failed (ScoringIncomplete: the scoring Job published nothing)"),
    ({"phase": "Succeeded"}, watching.EXIT_FAILED, "names no results"),
])
def test_fetch_of_a_run_without_results_says_why(status, code, said, apiserver, namespace, s3_bucket, tmp_path,
                                                 monkeypatch, capsys):
    apiserver.apply_run(namespace, h.run_manifest("bad", s3_bucket))
    _patch_status(apiserver, namespace, "bad", status)
    got, _, err = _iwc(monkeypatch, capsys, apiserver.kubeconfig(tmp_path / "kc.json"),
                       "fetch", "bad", "-n", namespace, "--out", str(tmp_path / "o"))
    assert got == code and said in err
