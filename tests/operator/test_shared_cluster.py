"""On a shared cluster, against the emulated API server: Kueue's admission is the normal
path (Jobs wait suspended, the run says so and is not stuck), a quota is never exceeded
and every app is scored; a second run naming a store prefix another run owns is refused
with a condition that says whose; Jobs the TTL controller deletes are never re-created."""

from __future__ import annotations

import asyncio

from fakes import kube_apiserver, operator_harness as h
from iwcbench.operator import planning

APPS = {f"m{m}/t{t}": {"index.html": b"<p>hi</p>"} for m in (1, 2) for t in (1, 2, 3)}


def _status(apiserver, ns, name):
    return (apiserver.get_run(ns, name) or {}).get("status") or {}


def _conditions(status):
    return {c["type"]: c for c in status.get("conditions", [])}


async def _publish(ns, job, c):
    return 0


def _ended(job):
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions", []) or [])


class Kueue:
    """What Kueue does with the Jobs of a LocalQueue, in small: admits (unsuspends) Jobs
    that carry the queue label while fewer than ``quota`` admitted ones run, oldest first,
    and only after ``hold`` is released (so a test sees Jobs wait)."""

    def __init__(self, server: kube_apiserver.ApiServer, namespace: str, queue: str, quota: int) -> None:
        self.server, self.namespace, self.queue, self.quota = server, namespace, queue, quota
        self.hold = True
        self.admitted: list[str] = []
        self.peak = 0
        self._task = server.submit(self._loop())

    async def _loop(self) -> None:
        while True:
            jobs = [body for ns, _, body in kube_apiserver.objects(self.server, "jobs") if ns == self.namespace]
            mine = [j for j in jobs if j["metadata"].get("labels", {}).get(planning.KUEUE_QUEUE_LABEL) == self.queue]
            running = [j for j in mine if not j["spec"].get("suspend") and not _ended(j)]
            self.peak = max(self.peak, len(running))
            waiting = sorted((j for j in mine if j["spec"].get("suspend")),
                             key=lambda j: int(j["metadata"]["resourceVersion"]))
            for job in waiting[: max(self.quota - len(running), 0) if not self.hold else 0]:
                name = job["metadata"]["name"]
                await self.server.request("PATCH", f"/apis/batch/v1/namespaces/{self.namespace}/jobs/{name}",
                                          {"spec": {"suspend": False}})
                self.admitted.append(name)
            await asyncio.sleep(0.1)

    def stop(self) -> None:
        self._task.cancel()


def test_kueue_admission_is_the_normal_path_and_two_runs_share_the_quota(apiserver, namespace, operator,
                                                                          make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    kueue = Kueue(apiserver, namespace, "team-a", quota=2)
    runs = ("queued-a", "queued-b")
    try:
        explore, peak = h.counting_stub(0.3)
        make_kubelet(capacity=10, stub_everything=True, stubs={"explore": explore, "publish": _publish})
        for run in runs:
            apiserver.apply_run(namespace, h.run_manifest(run, s3_bucket, parallelism=4, queueName="team-a"))
        # Before Kueue admits anything: Jobs created suspended, each run Running and saying why it waits.
        for run in runs:
            waiting = h.wait_for(lambda: (s := _status(apiserver, namespace, run)).get("counts", {}).get("queued") == 4
                                 and s, 30, f"{run}: four Jobs waiting for admission", operator.log)
            assert waiting["phase"] == "Running"
            admitted = _conditions(waiting)["Admitted"]
            assert (admitted["status"], admitted["reason"]) == ("False", "WaitingForAdmission")
            assert "queue team-a" in admitted["message"]
        jobs = apiserver.jobs(namespace)
        assert len(jobs) == 8 and all(j["spec"]["suspend"] for j in jobs)
        assert all(j["metadata"]["labels"][planning.KUEUE_QUEUE_LABEL] == "team-a" for j in jobs)
        kueue.hold = False
        ended = [h.wait_for(lambda: (s := _status(apiserver, namespace, run)).get("phase") in ("Succeeded", "Failed")
                            and s, 120, f"{run} to end", operator.log) for run in runs]
    finally:
        kueue.stop()
    for status in ended:
        assert status["phase"] == "Failed"  # the stubbed scoring publishes nothing: every app ran, none failed
        assert status["counts"] == {"total": 6, "pending": 0, "queued": 0, "active": 0, "succeeded": 6, "failed": 0}
        assert _conditions(status)["Admitted"]["status"] == "True"
    # the queue's quota held across both runs (never each run's parallelism of 4, nor 8)
    assert max(peak) <= 2 and kueue.peak <= 2
    assert len(kueue.admitted) == 14  # twelve app Jobs and two scoring Jobs, each admitted once


def test_a_store_prefix_belongs_to_one_run(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    async def explore(ns, job, container):
        await asyncio.sleep(0.2)
        return 0

    make_kubelet(capacity=10, stub_everything=True, stubs={"explore": explore, "publish": _publish})
    first = h.run_manifest("first", s3_bucket, parallelism=1)
    apiserver.apply_run(namespace, first)
    h.wait_for(lambda: _status(apiserver, namespace, "first").get("storeOwner"), 30, "the first run's claim",
               operator.log)
    second = h.run_manifest("second", s3_bucket, parallelism=6)
    second["spec"]["store"] = first["spec"]["store"]
    apiserver.apply_run(namespace, second)
    refused = h.wait_for(lambda: (s := _status(apiserver, namespace, "second")).get("phase") and s, 30,
                         "the second run's verdict", operator.log)
    assert refused["phase"] == "Failed"
    owned = _conditions(refused)["StoreOwned"]
    assert (owned["status"], owned["reason"]) == ("False", "StoreInUse")
    assert f"belongs to the run {namespace}/first" in owned["message"] and first["spec"]["store"] in owned["message"]
    uid = apiserver.get_run(namespace, "second")["metadata"]["uid"]
    assert not [j for j in apiserver.jobs(namespace) if j["metadata"]["labels"][planning.LABEL_RUN_UID] == uid]
    # Once the owner is gone, the prefix is free: the refused run is looked at again and starts.
    h.wait_for(lambda: _status(apiserver, namespace, "first").get("phase") in ("Succeeded", "Failed"), 60,
               "the first run to end", operator.log)
    apiserver.delete_run(namespace, "first")
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "second")).get("counts", {}).get("succeeded") == 6
                        and s, 90, "the second run to take the prefix over and run", operator.log)
    assert status["storeOwner"] == uid
    assert "StoreOwned" not in _conditions(status)  # the refusal is over
    assert _conditions(status).get("Failed", {}).get("reason") != "StoreInUse"


def test_jobs_deleted_by_their_ttl_are_never_created_again(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    kubelet = make_kubelet(capacity=10, stub_everything=True, expire_finished=True,
                           stubs={"explore": _slow(0.3), "publish": _publish})
    apiserver.apply_run(namespace, h.run_manifest("ttl", s3_bucket, parallelism=2))
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "ttl")).get("phase") in ("Succeeded", "Failed")
                        and s, 90, "the run to end", operator.log)
    assert status["counts"]["succeeded"] == 6
    assert len(kubelet.expired) >= 6  # the app Jobs went while the run was going on
    assert sorted(kubelet.attempts.values()) == [1] * 7  # and none ran twice


def _slow(seconds):
    async def container(ns, job, c):
        await asyncio.sleep(seconds)
        return 0
    return container
