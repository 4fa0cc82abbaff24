"""Whether app pods get the sandbox's seccomp profile (docs/kubernetes.md, "The sandbox by
default").

A Localhost profile must be on the node before the kubelet creates the container: a pod
naming a profile its node lacks waits in ``CreateContainerError``. The chart's DaemonSet
``iwc-sandbox-profile`` writes it onto every node and is ready where it has; so app pods
name the profile while that DaemonSet is ready, and get RuntimeDefault otherwise. Either
way the run's ``Sandboxed`` condition says which and why, and each built app's evidence
says ``network_isolated``. ``decide`` is pure; ``Watch`` reads the DaemonSet, at most
once per ``every`` seconds.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, Callable, Mapping

from iwcbench.pipeline.kits import cluster as cluster_kit

# the condition's reasons
INSTALLED, PARTLY, NOT_INSTALLED, DISABLED, YOURS = (
    "ProfileInstalled", "ProfilePartlyInstalled", "ProfileNotInstalled", "Disabled", "ProfileOnNodes")


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """The seccomp profile app pods name now (None: RuntimeDefault) and why."""

    profile: str | None
    reason: str
    message: str

    @property
    def isolated(self) -> bool:
        return self.profile is not None


def decide(profile: str | None, installer: str | None, daemonset: Mapping[str, Any] | None) -> Sandbox:
    """``profile``: the chart's sandbox.seccompProfile; ``installer``: NAMESPACE/NAME of the
    DaemonSet that installs it (None: the nodes have it by other means); ``daemonset``:
    that DaemonSet as the API server has it (None: not there)."""
    shared = "builds and app servers share the pod's network (network_isolated: false in their evidence)"
    if not profile:
        return Sandbox(None, DISABLED, f"sandbox.seccompProfile is empty: {shared}")
    if not installer:
        return Sandbox(profile, YOURS, f"app pods name the Localhost profile {profile}, installed on the nodes "
                                       "by other means (sandbox.installer.enabled: false)")
    if daemonset is None:
        return Sandbox(None, NOT_INSTALLED, f"the DaemonSet {installer} that installs {profile} is missing: {shared}")
    status = daemonset.get("status") or {}
    ready, desired = int(status.get("numberReady") or 0), int(status.get("desiredNumberScheduled") or 0)
    if not ready:
        return Sandbox(None, NOT_INSTALLED,
                       f"the DaemonSet {installer} is ready on 0 of {desired} nodes (is it admitted? the "
                       f"namespace must allow hostPath): {shared}")
    if ready < desired:
        return Sandbox(profile, PARTLY, f"{profile} is on {ready} of {desired} nodes; an app pod on another "
                                        "node waits (CreateContainerError) until the DaemonSet writes it there")
    return Sandbox(profile, INSTALLED, f"app pods run under the Localhost profile {profile}, installed on "
                                       f"{ready} of {desired} nodes: builds and app servers have loopback only")


class Watch:
    """The current ``Sandbox``, from the DaemonSet read at most once per ``every`` seconds
    (a run's look happens every few seconds; the DaemonSet changes rarely)."""

    def __init__(self, profile: str | None, installer: str | None, cluster: Callable[[], cluster_kit.Cluster],
                 every: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._profile, self._installer, self._cluster = profile, installer, cluster
        self._every, self._clock = every, clock
        self._last: tuple[float, Sandbox] | None = None
        self._lock = threading.Lock()

    def current(self) -> Sandbox:
        if not self._profile or not self._installer:
            return decide(self._profile, self._installer, None)
        with self._lock:
            now = self._clock()
            if self._last is None or now - self._last[0] >= self._every:
                self._last = (now, self._read())
            return self._last[1]

    def _read(self) -> Sandbox:
        namespace, _, name = (self._installer or "").partition("/")
        try:
            body = self._cluster().get("apps", "v1", "daemonsets", namespace, name)
        except cluster_kit.ApiError as exc:
            return Sandbox(None, NOT_INSTALLED, f"cannot read the DaemonSet {self._installer} ({exc}): builds and "
                                                "app servers share the pod's network")
        return decide(self._profile, self._installer, body)
