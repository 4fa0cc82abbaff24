"""The sandbox by default: app pods name the chart's seccomp profile while the DaemonSet
that writes it onto the nodes is ready, and RuntimeDefault otherwise; the run's
Sandboxed condition says which and why. The installer keeps a node's copy equal to the
ConfigMap's, atomically. (On a real kubelet: tests/cluster/test_build_sandbox.py.)"""

from __future__ import annotations

import json
import pathlib

import kopf
import pytest

from iwcbench.operator import planning, profile_installer, reconciling, sandboxing
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod

PROFILE, INSTALLER = "iwc-bench/sandbox.json", "iwc-system/iwc-sandbox-profile"
OWNER = planning.Owner("bench", "run", "0b6e3d4e-1111-2222-3333-444455556666")
SPEC = {"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/runs/r"}


def _daemonset(ready: int, desired: int) -> dict:
    return {"status": {"numberReady": ready, "desiredNumberScheduled": desired}}


@pytest.mark.parametrize(("profile", "installer", "daemonset", "reason", "named"), [
    (None, INSTALLER, _daemonset(3, 3), sandboxing.DISABLED, None),
    (PROFILE, None, None, sandboxing.YOURS, PROFILE),
    (PROFILE, INSTALLER, None, sandboxing.NOT_INSTALLED, None),
    (PROFILE, INSTALLER, _daemonset(0, 2), sandboxing.NOT_INSTALLED, None),
    (PROFILE, INSTALLER, _daemonset(0, 0), sandboxing.NOT_INSTALLED, None),
    (PROFILE, INSTALLER, _daemonset(1, 2), sandboxing.PARTLY, PROFILE),
    (PROFILE, INSTALLER, _daemonset(2, 2), sandboxing.INSTALLED, PROFILE),
])
def test_pods_name_the_profile_only_where_it_is_installed(profile, installer, daemonset, reason, named):
    sandbox = sandboxing.decide(profile, installer, daemonset)
    assert (sandbox.reason, sandbox.profile, sandbox.isolated) == (reason, named, named is not None)
    assert sandbox.message
    if named is None:
        assert "network_isolated: false" in sandbox.message


class _Cluster:
    """The API server as the reconciler uses it: the DaemonSet, the Jobs it creates."""

    def __init__(self, daemonset: dict | None = None, refuse: bool = False) -> None:
        self.daemonset, self.refuse, self.jobs, self.reads = daemonset, refuse, [], 0

    def get(self, group: str, version: str, plural: str, namespace: str, name: str) -> dict | None:
        if plural == "daemonsets":
            self.reads += 1
            assert (group, version, namespace, name) == ("apps", "v1", "iwc-system", "iwc-sandbox-profile")
            if self.refuse:
                raise cluster_kit.ApiError(403, "forbidden")
            return self.daemonset
        return None

    def create_job(self, manifest: dict) -> bool:
        self.jobs.append(manifest)
        return True

    def get_status(self, *_: str) -> dict | None:
        return None


def test_the_daemonset_is_read_at_most_once_per_interval():
    cluster, now = _Cluster(_daemonset(0, 1)), [0.0]
    watch = sandboxing.Watch(PROFILE, INSTALLER, lambda: cluster, every=30, clock=lambda: now[0])
    assert watch.current().reason == sandboxing.NOT_INSTALLED
    cluster.daemonset = _daemonset(1, 1)
    now[0] = 29.0
    assert watch.current().reason == sandboxing.NOT_INSTALLED and cluster.reads == 1
    now[0] = 30.0
    assert watch.current().reason == sandboxing.INSTALLED and cluster.reads == 2
    refused = sandboxing.Watch(PROFILE, INSTALLER, lambda: _Cluster(refuse=True))
    assert refused.current().reason == sandboxing.NOT_INSTALLED and "forbidden" in refused.current().message


def _look(tmp_path: pathlib.Path, cluster: _Cluster) -> tuple[dict, dict]:
    """One look at a new run with one app: (its first app Job's pod spec, its status)."""
    store = store_mod.LocalStore(str(tmp_path / "store"))
    defaults = planning.Defaults(seccomp_profile=PROFILE, sandbox_installer=INSTALLER)
    work = reconciling.Reconciler(defaults, 1, lambda: cluster, lambda uri: ["m/t1/index.html"],
                                  lambda uri: store)
    patch = kopf.Patch()
    logger = kopf.LocalObjectLogger(body=kopf.Body({}), settings=kopf.OperatorSettings())
    work.look(SPEC, {}, {"generation": 1}, OWNER, patch, [], logger)
    (job,) = cluster.jobs
    return job["spec"]["template"]["spec"], dict(patch.status)


def test_a_run_gets_the_profile_once_the_daemonset_is_ready_and_says_so(tmp_path):
    pod, status = _look(tmp_path / "a", _Cluster(_daemonset(1, 1)))
    assert pod["securityContext"]["seccompProfile"] == {"type": "Localhost", "localhostProfile": PROFILE}
    (sandboxed,) = [c for c in status["conditions"] if c["type"] == "Sandboxed"]
    assert (sandboxed["status"], sandboxed["reason"]) == ("True", sandboxing.INSTALLED)
    pod, status = _look(tmp_path / "b", _Cluster(_daemonset(0, 1)))
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (sandboxed,) = [c for c in status["conditions"] if c["type"] == "Sandboxed"]
    assert (sandboxed["status"], sandboxed["reason"]) == ("False", sandboxing.NOT_INSTALLED)


def test_the_installer_writes_the_profile_atomically_and_only_when_it_changed(tmp_path):
    source, target = tmp_path / "profile.json", tmp_path / "seccomp" / "iwc-bench" / "sandbox.json"
    source.write_text(json.dumps({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": []}))
    assert profile_installer.main(["--check", "--source", str(source), "--target", str(target)]) == 1
    assert profile_installer.install(source, target) is True
    assert target.read_bytes() == source.read_bytes() and oct(target.stat().st_mode & 0o777) == "0o644"
    assert profile_installer.install(source, target) is False
    assert profile_installer.main(["--check", "--source", str(source), "--target", str(target)]) == 0
    source.write_text(json.dumps({"defaultAction": "SCMP_ACT_LOG"}))  # an upgrade's new profile
    assert profile_installer.main(["--check", "--source", str(source), "--target", str(target)]) == 1
    assert profile_installer.install(source, target) is True
    assert sorted(p.name for p in target.parent.iterdir()) == ["sandbox.json"]  # no partial file left
    source.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        profile_installer.install(source, target)
    assert json.loads(target.read_text()) == {"defaultAction": "SCMP_ACT_LOG"}  # the last good one stays
