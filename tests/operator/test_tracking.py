"""Tracking (pure): what the operator does next, and the status a user reads."""

from __future__ import annotations

import json

from iwcbench.operator import api, planning, publishing, storing, tracking
from iwcbench.pipeline.contracts import results

OWNER = planning.Owner("ns", "run", "uid-1")
SPEC = api.EvaluationRunSpec.model_validate({
    "tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/out",
    "parallelism": 2})
APPS = [planning.AppPair("m", f"t{i}") for i in range(5)]
NOW = "2026-01-01T00:00:00Z"


def view(pair, state, **kw):
    return tracking.JobView(name=planning.app_job_name(OWNER, pair), role="app", app=pair.key, state=state, **kw)


def decide(jobs=(), created=(), status=None, spec=SPEC, apps=APPS, results_present=False, now=NOW):
    return tracking.decide(tracking.Observed(spec=spec, owner=OWNER, generation=1, apps=apps, jobs=tuple(jobs),
                                             recently_created=frozenset(created), status=status or {},
                                             results_present=results_present, now=now))


def test_first_look_creates_up_to_parallelism():
    d = decide()
    assert [p.key for p in d.create_apps] == ["m/t0", "m/t1"]
    assert d.status["phase"] == "Running" and d.status["counts"]["pending"] == 5


def test_jobs_created_but_not_yet_indexed_are_neither_recreated_nor_exceeded():
    names = [planning.app_job_name(OWNER, p) for p in APPS[:2]]
    d = decide(created=names)
    assert d.create_apps == () and d.status["counts"]["active"] == 2


def test_after_a_restart_existing_jobs_are_picked_up_not_duplicated():
    jobs = [view(APPS[0], "succeeded"), view(APPS[1], "active")]
    d = decide(jobs=jobs)
    assert [p.key for p in d.create_apps] == ["m/t2"]  # one slot free, t0/t1 untouched
    assert d.status["progress"] == "1/5"


def test_suspend_creates_nothing_and_says_so():
    spec = SPEC.model_copy(update={"suspend": True})
    d = decide(spec=spec, jobs=[view(APPS[0], "active")])
    assert d.create_apps == () and d.status["phase"] == "Suspended"
    assert {c["type"]: c["status"] for c in d.status["conditions"]}["Suspended"] == "True"


def test_scoring_starts_once_every_app_job_ended_and_its_outcome_sets_the_phase():
    jobs = [view(p, "succeeded") for p in APPS[:4]] + [view(APPS[4], "failed", reason="BackoffLimitExceeded")]
    d = decide(jobs=jobs)
    assert d.create_scoring and d.status["phase"] == "Scoring"
    scoring = tracking.JobView(name=planning.scoring_job_name(OWNER), role="scoring", app="", state="succeeded")
    done = decide(jobs=jobs + [scoring], results_present=True)
    assert done.status["phase"] == "Succeeded" and done.status["completionTime"] == NOW
    assert decide(jobs=jobs + [scoring]).status["phase"] == "Failed"
    failed = tracking.JobView(name=scoring.name, role="scoring", app="", state="failed", reason="BackoffLimitExceeded")
    f = decide(jobs=jobs + [failed])
    assert f.status["phase"] == "Failed"
    assert {c["type"]: c["reason"] for c in f.status["conditions"]}["Failed"] == "ScoringFailed"


def test_no_apps_and_unreachable_store_are_conditions():
    assert decide(apps=[]).status["phase"] == "Failed"
    d = tracking.decide(tracking.Observed(spec=SPEC, owner=OWNER, generation=1, apps=None, jobs=(), status={},
                                          now=NOW, listing_error="cannot list s3://bench/apps: timeout"))
    cond = {c["type"]: c for c in d.status["conditions"]}["AppsListed"]
    assert d.status["phase"] == "Pending" and cond["reason"] == "StoreUnavailable" and "timeout" in cond["message"]


def test_an_unchanged_run_costs_no_status_write_and_conditions_keep_their_time():
    first = decide(jobs=[view(APPS[0], "active"), view(APPS[1], "active")])
    later = decide(jobs=[view(APPS[0], "active"), view(APPS[1], "active")], status=first.status,
                   now="2026-01-01T00:05:00Z")
    assert tracking.changes(first.status, later.status) == {}
    assert tracking.changes({}, later.status)  # a fresh run does get its status


def test_status_stays_small_with_a_thousand_failed_apps():
    apps = [planning.AppPair(f"model-{i % 7}", f"task-{i:05d}") for i in range(1000)]
    jobs = [view(p, "failed", reason="BackoffLimitExceeded", message="x" * 1000, finished=f"2026-01-01T00:{i % 60:02d}:00Z")
            for i, p in enumerate(apps)]
    d = decide(apps=apps, jobs=jobs)
    assert len(d.status["failures"]) == api.MAX_FAILURES
    assert all(len(f["message"]) <= 300 for f in d.status["failures"])
    assert len(json.dumps(d.status)) < 8000
    times = [f["time"] for f in d.status["failures"]]
    assert times == sorted(times, reverse=True)  # the most recent first


def test_job_view_reads_the_job_controllers_conditions():
    base = {"metadata": {"name": "j", "labels": {planning.LABEL_ROLE: "app"},
                         "annotations": {planning.ANNOTATION_MODEL: "m", planning.ANNOTATION_TASK: "t"}}}
    assert tracking.job_view(base).state == "active"
    done = {**base, "status": {"conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": NOW}]}}
    assert tracking.job_view(done).state == "succeeded"
    failed = {**base, "status": {"conditions": [{"type": "FailureTarget", "status": "True"},
                                                {"type": "Failed", "status": "True", "reason": "DeadlineExceeded"}]}}
    v = tracking.job_view(failed)
    assert (v.state, v.reason, v.app) == ("failed", "DeadlineExceeded", "m/t")


def test_invalid_spec_names_the_field_and_is_looked_at_again():
    message = api.parse_spec({"tasks": "s3://bench/t.jsonl", "apps": {"uri": "s3://bench/a"},
                              "store": "s3://bench/o", "backoffLimit": 99})
    assert isinstance(message, str) and message.startswith("spec.backoffLimit:")
    status = tracking.invalid({}, 1, message, NOW)
    assert status["phase"] == "Failed" and not tracking.is_settled(status)
    assert tracking.is_settled({"phase": "Succeeded"})


def test_publish_summary_is_small_and_ranked():
    run = results.RunResults(
        run=results.RunInfo(configuration={}, config_hash="h", started_at=NOW),
        leaderboard=tuple(results.LeaderboardRow(rank=i + 1, model=f"m{i}", overall=1.0 - i / 10,
                                                 metrics={"coverage": 0.5}, apps=3) for i in range(8)))
    data = run.model_dump_json().encode()
    patch = publishing.summarize(data, "s3://b/out/results.json")
    assert patch["leader"] == "m0" and patch["resultsURI"] == "s3://b/out/results.json"
    assert [r["rank"] for r in patch["results"]["leaderboard"]] == [1, 2, 3, 4, 5]
    assert patch["results"]["digest"].startswith("sha256:")
    api.EvaluationRunStatus.model_validate({"phase": "Succeeded", **patch})  # it fits the status schema


def test_the_published_summary_says_what_its_overall_ranks():
    run = results.RunResults(
        run=results.RunInfo(configuration={}, config_hash="h", started_at=NOW),
        leaderboard=(results.LeaderboardRow(rank=1, model="m", overall=0.0, metrics={}, apps=1),),
        ranking=results.Ranking.of("offline", "common_tasks", 1, {}))
    patch = publishing.summarize(run.model_dump_json().encode(), "s3://b/out/results.json")
    assert patch["results"]["overallName"] == "offline overall"
    api.EvaluationRunStatus.model_validate({"phase": "Succeeded", **patch})


def test_a_run_refused_its_store_starts_afresh_once_the_store_is_its_own():
    refused = tracking.refused_store({}, 1, "spec.store s3://bench/out belongs to the run ns/first", NOW)
    assert refused["phase"] == "Failed" and not tracking.is_settled(refused)  # looked at again
    d = decide(status=tracking.unrefused(refused), now="2026-01-01T00:01:00Z")
    assert d.status["phase"] == "Running" and d.status["completionTime"] is None
    assert {c["type"] for c in d.status["conditions"]}.isdisjoint({"Failed", "StoreOwned"})
    assert tracking.unrefused(d.status) == d.status  # a run never refused is left as it is


def test_kueue_jobs_waiting_for_admission_are_queued_not_stuck():
    spec = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "queueName": "team-a"})
    suspended = {"metadata": {"name": "j", "labels": {planning.LABEL_ROLE: "app"}}, "spec": {"suspend": True}}
    assert tracking.job_view(suspended).state == "queued"
    jobs = [view(APPS[0], "queued"), view(APPS[1], "active")]
    d = tracking.decide(tracking.Observed(spec=spec, owner=OWNER, generation=1, apps=APPS, jobs=tuple(jobs),
                                          status={}, now=NOW))
    assert d.create_apps == ()  # a queued Job counts against parallelism
    assert d.status["phase"] == "Running" and d.status["counts"]["queued"] == 1
    admitted = {c["type"]: c for c in d.status["conditions"]}["Admitted"]
    assert (admitted["status"], admitted["reason"]) == ("False", "WaitingForAdmission")


def test_a_store_that_cannot_be_used_is_a_condition_naming_spec_store_and_no_job():
    """A bucket that does not exist: the claim says so instead of raising (the handler
    would fail every two seconds and the run would show nothing), and the run waits."""

    class Missing:
        def get_or_none(self, key):
            raise RuntimeError("NoSuchBucket: The specified bucket does not exist")

    claims = storing.Claims(lambda uri: Missing())
    owned = claims.claim("s3://no-such-bucket/runs/x", storing.Claim(uid="u", namespace="ns", name="x"),
                         lambda holder: True)
    assert isinstance(owned, storing.Unavailable)
    assert owned.message.startswith("spec.store s3://no-such-bucket/runs/x cannot be used: RuntimeError: NoSuchBucket")
    status = tracking.store_unavailable({}, 1, owned.message, NOW)
    assert status["phase"] == "Pending" and not tracking.is_settled(status)
    (valid, store) = status["conditions"]
    assert (store["type"], store["status"], store["reason"]) == ("StoreOwned", "False", "StoreUnavailable")
    api.EvaluationRunStatus.model_validate(status)
