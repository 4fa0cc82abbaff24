"""A test-side "kubelet + Job controller + garbage collector" for the emulated API
server: what a cluster would do with the operator's Jobs, on this machine.

For each Job it runs the pod's containers as local processes, in order (init
containers → native sidecars, started and probed → main containers), with emptyDir
volumes as folders, env from the emulator's ConfigMaps and Secrets, and each pod's
ports remapped to free loopback ports (pods share the host network here). It applies
``podFailurePolicy``, ``backoffLimit`` and ``activeDeadlineSeconds`` the way the Job
controller does and writes Job status back through the API, so the operator sees
what a cluster would show. Deleting a Job kills its processes. The collector deletes
Jobs whose owner (ownerReferences uid) is gone.

Any container can be stubbed by name: an argv list, or an async callable
``stub(namespace, job, container) -> exit code`` (no process at all).
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import dataclasses
import datetime
import os
import pathlib
import shutil
import signal
import socket
from typing import Any, Awaitable, Callable, Mapping, Union

from fakes import kube_apiserver

Stub = Union[list, Callable[[str, dict, dict], Awaitable[int]]]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def host_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The node's environment every container starts from: PATH (with the venv's
    ``iwc``), locale, and nothing else (no AWS keys leak from the test process)."""
    venv_bin = str(pathlib.Path(__file__).resolve().parents[2] / ".venv" / "bin")
    env = {k: v for k, v in os.environ.items()
           if k in ("LANG", "LC_ALL", "TZ") or k.startswith(("PLAYWRIGHT", "NODE_"))}
    env["PATH"] = f"{venv_bin}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    env.update(extra or {})
    return env


@dataclasses.dataclass
class PodOutcome:
    ok: bool
    container: str = ""
    exit_code: int = 0
    disrupted: bool = False


async def _none(*_: Any) -> int:
    return 0


class Kubelet:
    def __init__(self, server: kube_apiserver.ApiServer, workdir: pathlib.Path, *, capacity: int = 2,
                 stubs: Mapping[str, Stub] | None = None, stub_everything: bool = False,
                 env: Mapping[str, str] | None = None, poll: float = 0.1,
                 namespace: str | None = None, expire_finished: bool = False) -> None:
        self.server = server
        self.namespace = namespace  # this node runs only this namespace's Jobs (None: all)
        self.workdir = workdir
        self.capacity = capacity
        self.stubs = dict(stubs or {})
        self.stub_everything = stub_everything  # every container exits 0 at once
        # the TTL-after-finished controller, with the TTL taken as passed: a finished Job
        # that carries ttlSecondsAfterFinished is deleted at once
        self.expire_finished = expire_finished
        self.expired: list[str] = []
        self.env = host_env(env)
        self.poll = poll
        self.attempts: collections.Counter[str] = collections.Counter()  # job name → pods run
        self.seen: list[str] = []  # job names in the order they were first seen
        self.logs: dict[str, str] = {}  # "job/attempt/container" → combined output
        self.disrupt_next: set[str] = set()  # job names whose next pod is "evicted"
        self._tasks: dict[tuple[str, str], asyncio.Task] = {}
        self._slots: asyncio.Semaphore | None = None
        self._task: asyncio.Task | None = None

    # --- lifecycle ---

    def start(self) -> None:
        self._task = self.server.call(self._start())

    async def _start(self) -> asyncio.Task:
        self._slots = asyncio.Semaphore(self.capacity)
        return asyncio.get_running_loop().create_task(self._loop())

    def stop(self) -> None:
        self.server.call(self._stop())

    async def _stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            live_runs = {meta.get("uid") for _, _, body in kube_apiserver.objects(self.server, "evaluationruns")
                         for meta in [body.get("metadata", {})]}
            live_jobs: set[tuple[str, str]] = set()
            for ns, name, job in list(kube_apiserver.objects(self.server, "jobs")):
                owners = [o.get("uid") for o in job.get("metadata", {}).get("ownerReferences", []) or []]
                if owners and not any(uid in live_runs for uid in owners):
                    # The garbage collector: the owner is gone, so are its Jobs.
                    await self.server.request("DELETE", f"/apis/batch/v1/namespaces/{ns}/jobs/{name}")
                    continue
                live_jobs.add((ns, name))
                if self.namespace is not None and ns != self.namespace:
                    continue
                finished = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                               for c in (job.get("status") or {}).get("conditions", []) or [])
                if finished and self.expire_finished and (job.get("spec") or {}).get("ttlSecondsAfterFinished") is not None:
                    await self.server.request("DELETE", f"/apis/batch/v1/namespaces/{ns}/jobs/{name}")
                    self.expired.append(name)
                    continue
                suspended = bool((job.get("spec") or {}).get("suspend"))  # not admitted (Kueue) yet
                if (ns, name) not in self._tasks and not finished and not suspended:
                    self.seen.append(name)
                    self._tasks[(ns, name)] = asyncio.get_running_loop().create_task(self._run_job(ns, name, job))
            for key in [k for k in self._tasks if k not in live_jobs]:
                self._tasks.pop(key).cancel()  # the Job was deleted: kill its pod
            await asyncio.sleep(self.poll)

    # --- the Job controller ---

    async def _status(self, ns: str, name: str, status: dict[str, Any]) -> None:
        await self.server.request("PATCH", f"/apis/batch/v1/namespaces/{ns}/jobs/{name}/status",
                                  {"status": status})

    async def _run_job(self, ns: str, name: str, job: dict[str, Any]) -> None:
        spec = job.get("spec", {})
        backoff = spec.get("backoffLimit", 6)
        deadline = spec.get("activeDeadlineSeconds")
        await self._status(ns, name, {"startTime": _now(), "active": 1})
        assert self._slots is not None
        failed = 0
        async with self._slots:
            loop = asyncio.get_running_loop()
            started = loop.time()
            while True:
                remaining = None if deadline is None else max(deadline - (loop.time() - started), 0.01)
                try:
                    outcome = await asyncio.wait_for(self._run_pod(ns, name, job), remaining)
                except asyncio.TimeoutError:
                    await self._end(ns, name, False, "DeadlineExceeded",
                                    "Job was active longer than specified deadline", failed + 1)
                    return
                if outcome.ok:
                    await self._end(ns, name, True, "", "", failed)
                    return
                action, index = _policy(spec.get("podFailurePolicy"), outcome)
                if action == "FailJob":
                    await self._end(ns, name, False, "PodFailurePolicy",
                                    f"Container {outcome.container} for pod {ns}/{name} failed with exit code "
                                    f"{outcome.exit_code} matching FailJob rule at index {index}", failed + 1)
                    return
                if action == "Ignore":
                    continue
                failed += 1
                await self._status(ns, name, {"failed": failed})
                if failed > backoff:
                    await self._end(ns, name, False, "BackoffLimitExceeded",
                                    "Job has reached the specified backoff limit", failed)
                    return

    async def _end(self, ns: str, name: str, ok: bool, reason: str, message: str, failed: int) -> None:
        now = _now()
        if ok:
            conditions = [{"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
                          {"type": "Complete", "status": "True", "lastTransitionTime": now}]
            await self._status(ns, name, {"active": 0, "succeeded": 1, "failed": failed or None,
                                          "completionTime": now, "conditions": conditions})
        else:
            conditions = [{"type": "FailureTarget", "status": "True", "reason": reason, "message": message,
                           "lastTransitionTime": now},
                          {"type": "Failed", "status": "True", "reason": reason, "message": message,
                           "lastTransitionTime": now}]
            await self._status(ns, name, {"active": 0, "failed": failed, "conditions": conditions})

    # --- the pod ---

    async def _run_pod(self, ns: str, name: str, job: dict[str, Any]) -> PodOutcome:
        self.attempts[name] += 1
        attempt = self.attempts[name]
        if name in self.disrupt_next:
            self.disrupt_next.discard(name)
            return PodOutcome(ok=False, disrupted=True)
        pod = job["spec"]["template"]["spec"]
        pod_dir = self.workdir / f"{name}-{attempt}"
        volumes = {}
        for volume in pod.get("volumes", []):
            volumes[volume["name"]] = pod_dir / volume["name"]
            volumes[volume["name"]].mkdir(parents=True, exist_ok=True)
        ports = {p["containerPort"]: _free_port()
                 for c in pod.get("initContainers", []) + pod.get("containers", []) for p in c.get("ports", [])}
        sidecars: list[asyncio.subprocess.Process] = []
        try:
            for container in pod.get("initContainers", []):
                if container.get("restartPolicy") == "Always":
                    started = await self._start_sidecar(ns, name, attempt, job, container, volumes, ports)
                    if isinstance(started, PodOutcome):
                        return started
                    if started is not None:
                        sidecars.append(started)
                    continue
                code = await self._run_container(ns, name, attempt, job, container, volumes, ports)
                if code != 0:
                    return PodOutcome(ok=False, container=container["name"], exit_code=code)
            codes = await asyncio.gather(*(self._run_container(ns, name, attempt, job, c, volumes, ports)
                                           for c in pod.get("containers", [])))
            for container, code in zip(pod.get("containers", []), codes):
                if code != 0:
                    return PodOutcome(ok=False, container=container["name"], exit_code=code)
            return PodOutcome(ok=True)
        finally:
            for process in sidecars:
                await _kill(process)
            shutil.rmtree(pod_dir, ignore_errors=True)

    def _stub(self, container: dict[str, Any]) -> Stub | None:
        if container["name"] in self.stubs:
            return self.stubs[container["name"]]
        return _none if self.stub_everything else None

    def _argv(self, container: dict[str, Any], volumes: dict[str, pathlib.Path], ports: dict[int, int],
              stub: Stub | None) -> list[str]:
        argv = list(stub) if isinstance(stub, list) else list(container.get("command", [])) + list(container.get("args", []))
        return [_rewrite(a, container, volumes, ports) for a in argv]

    def _container_env(self, ns: str, container: dict[str, Any], volumes: dict[str, pathlib.Path],
                       ports: dict[int, int]) -> dict[str, str]:
        env = dict(self.env)
        for source in container.get("envFrom", []) or []:
            ref = source.get("configMapRef") or source.get("secretRef")
            kind = "configmaps" if "configMapRef" in source else "secrets"
            env.update(self._lookup(kind, ns, ref["name"]) or {})
        for item in container.get("env", []) or []:
            if "value" in item:
                env[item["name"]] = _rewrite(item["value"], container, volumes, ports)
                continue
            ref = (item.get("valueFrom") or {}).get("secretKeyRef") or (item.get("valueFrom") or {}).get("configMapKeyRef")
            kind = "secrets" if "secretKeyRef" in (item.get("valueFrom") or {}) else "configmaps"
            data = self._lookup(kind, ns, ref["name"]) or {}
            if ref["key"] in data:
                env[item["name"]] = data[ref["key"]]
        return env

    def _lookup(self, kind: str, ns: str, name: str) -> dict[str, str] | None:
        for obj_ns, obj_name, body in kube_apiserver.objects(self.server, kind):
            if obj_ns == ns and obj_name == name:
                data = dict(body.get("stringData") or {})
                for key, value in (body.get("data") or {}).items():
                    data[key] = base64.b64decode(value).decode() if kind == "secrets" else value
                return data
        return None

    async def _spawn(self, ns: str, name: str, attempt: int, container: dict[str, Any],
                     volumes: dict[str, pathlib.Path], ports: dict[int, int],
                     argv: list[str]) -> asyncio.subprocess.Process:
        log = self.workdir / f"{name}-{attempt}-{container['name']}.log"
        with open(log, "wb") as out:
            return await asyncio.create_subprocess_exec(
                *argv, env=self._container_env(ns, container, volumes, ports), stdout=out,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True, cwd=str(self.workdir))

    async def _run_container(self, ns: str, name: str, attempt: int, job: dict[str, Any],
                             container: dict[str, Any], volumes: dict[str, pathlib.Path],
                             ports: dict[int, int]) -> int:
        stub = self._stub(container)
        if stub is not None and not isinstance(stub, list):
            return await stub(ns, job, container)
        process = await self._spawn(ns, name, attempt, container, volumes, ports,
                                    self._argv(container, volumes, ports, stub))
        try:
            code = await process.wait()
        finally:
            await _kill(process)
            self._keep_log(name, attempt, container)
        return code

    def _keep_log(self, name: str, attempt: int, container: dict[str, Any]) -> None:
        log = self.workdir / f"{name}-{attempt}-{container['name']}.log"
        if log.exists():
            self.logs[f"{name}/{attempt}/{container['name']}"] = log.read_text(errors="replace")[-4000:]

    async def _start_sidecar(self, ns: str, name: str, attempt: int, job: dict[str, Any],
                             container: dict[str, Any], volumes: dict[str, pathlib.Path],
                             ports: dict[int, int]) -> asyncio.subprocess.Process | PodOutcome | None:
        stub = self._stub(container)
        if stub is not None and not isinstance(stub, list):
            await stub(ns, job, container)
            return None
        process = await self._spawn(ns, name, attempt, container, volumes, ports,
                                    self._argv(container, volumes, ports, stub))
        probe = container.get("startupProbe") or {}
        port = (probe.get("tcpSocket") or {}).get("port")
        if port is None:
            return process
        period = probe.get("periodSeconds", 10)
        for _ in range(probe.get("failureThreshold", 3) * max(int(period / 0.1), 1)):
            if process.returncode is not None:
                self._keep_log(name, attempt, container)
                return PodOutcome(ok=False, container=container["name"], exit_code=process.returncode)
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", ports.get(port, port))
                writer.close()
                return process
            await asyncio.sleep(0.1)
        await _kill(process)
        return PodOutcome(ok=False, container=container["name"], exit_code=137)


def _rewrite(value: str, container: dict[str, Any], volumes: dict[str, pathlib.Path], ports: dict[int, int]) -> str:
    """Container paths → the pod's folders; container ports → the pod's host ports."""
    for mount in sorted(container.get("volumeMounts", []) or [], key=lambda m: -len(m["mountPath"])):
        path = mount["mountPath"]
        if value == path or value.startswith(path + "/"):
            value = str(volumes[mount["name"]]) + value[len(path):]
            break
    for port, host in ports.items():
        if value == str(port):
            value = str(host)
        value = value.replace(f":{port}/", f":{host}/")
        if value.endswith(f":{port}"):
            value = value[: -len(str(port))] + str(host)
    return value


def _policy(policy: dict[str, Any] | None, outcome: PodOutcome) -> tuple[str, int]:
    """The Job controller's podFailurePolicy: first matching rule wins; none → Count."""
    for index, rule in enumerate((policy or {}).get("rules", [])):
        if outcome.disrupted and any(c.get("type") == "DisruptionTarget" for c in rule.get("onPodConditions", [])):
            return rule["action"], index
        codes = rule.get("onExitCodes")
        if codes and not outcome.disrupted:
            if codes.get("containerName") not in (None, outcome.container):
                continue
            inside = outcome.exit_code in codes.get("values", [])
            if inside == (codes.get("operator") == "In"):
                return rule["action"], index
    return "Count", -1


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Stop a container and everything it started (its own process group)."""
    if process.returncode is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # leftovers, e.g. a browser
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), 5)
    except asyncio.TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
