"""An emulated Kubernetes API server on loopback for the operator's tests: kmock's
KubernetesEmulator with the gaps filled that kopf trips over (see
shared/notes/kopf-on-kmock.md), run in a background thread with its own event loop.

Fills: resourceVersion/uid/creationTimestamp/generation on writes, failed JSON-patch
``test`` ops as 422, core discovery's groupVersion, our CRD registered for discovery.
Not emulated (and not relied on by the operator): label selectors, status/spec
separation, strategic merge, watch bookmarks; ownerReference GC and the Job
controller live in tests/fakes/kubelet.py.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import json
import pathlib
import threading
import uuid
from typing import Any, Awaitable, Iterator, TypeVar

import aiohttp
import jsonpatch
import kmock

from iwcbench.operator import api

T = TypeVar("T")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Emulator(kmock.KubernetesEmulator):
    """kmock's emulator plus the metadata a real API server maintains."""

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self._versions = itertools.count(1)
        # (verb, plural, subresource, user agent) of every write, for the benchmark
        self.writes: list[tuple[str, str, str | None, str]] = []

    def _fill(self, request: Any) -> None:
        action, data = request.action, request.data
        if action == kmock.action.CREATE and isinstance(data, dict):
            meta = data.setdefault("metadata", {})
            if request.namespace:
                meta.setdefault("namespace", request.namespace)
            meta.setdefault("uid", str(uuid.uuid4()))
            meta["resourceVersion"] = str(next(self._versions))
            meta.setdefault("creationTimestamp", _now())
            meta.setdefault("generation", 1)
            self.writes.append(("create", request.resource.plural, None, request.headers.get("User-Agent", "")))
        elif action == kmock.action.UPDATE and request.name is not None:
            rv = str(next(self._versions))
            key = (request.resource, request.namespace, request.name)
            current = self._objects[key] if key in self._objects else None
            generation = None
            if current is not None and not current.deleted:
                generation = (current.raw.get("metadata", {}) or {}).get("generation", 1)
            touches_spec = request.subresource is None and (
                (isinstance(data, dict) and "spec" in data)
                or (isinstance(data, list) and any(str(op.get("path", "")).startswith("/spec") for op in data)))
            if isinstance(data, dict):
                if data.get("metadata") is None:
                    data["metadata"] = {}
                meta = data["metadata"]
                meta["resourceVersion"] = rv
                if touches_spec and generation is not None:
                    meta["generation"] = generation + 1
            elif isinstance(data, list):
                data.append({"op": "add", "path": "/metadata/resourceVersion", "value": rv})
                if touches_spec and generation is not None:
                    data.append({"op": "add", "path": "/metadata/generation", "value": generation + 1})
            self.writes.append(("patch", request.resource.plural, request.subresource,
                                request.headers.get("User-Agent", "")))
        elif action == kmock.action.DELETE and request.name is not None:
            self.writes.append(("delete", request.resource.plural, None, request.headers.get("User-Agent", "")))

    async def _handle(self, request: Any) -> Any:
        # kmock matches each request against its whole request history (an identity
        # scan), which makes request N cost O(N); keep only a recent window, since no
        # test here asserts on old requests.
        # (32 recent ones stay: requests still in flight must find themselves.)
        if len(self._requests) > 64:
            del self._requests[:-32]
        if request.resource is not None:
            self._fill(request)
        try:
            return await super()._handle(request)
        except (jsonpatch.JsonPatchTestFailed, jsonpatch.JsonPatchConflict) as exc:
            raise kmock.KubernetesError(status=422, reason="Invalid", message=str(exc)) from None

    async def _serve_version(self, request: Any) -> Any:
        result = await super()._serve_version(request)
        if isinstance(result, dict) and result.get("groupVersion") == "/v1":
            result["groupVersion"] = "v1"
        return result


def register_resources(emulator: Emulator) -> None:
    emulator.resources.load_bundled()
    emulator.resources[f"{api.GROUP}/{api.VERSION}/{api.PLURAL}"] = {
        "kind": api.KIND, "singular": api.SINGULAR, "namespaced": True,
        "shortnames": set(api.SHORT_NAMES), "subresources": {"status"},
        "verbs": {"get", "list", "watch", "create", "patch", "update", "delete"},
    }


class ApiServer:
    """The emulator served on 127.0.0.1 from a background thread. Coroutines that
    touch its objects (the kubelet, the collector) run on its loop via ``submit``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.emulator: Emulator | None = None
        self.url = ""
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="kube-apiserver", daemon=True)
        self.session: aiohttp.ClientSession | None = None

    def __enter__(self) -> "ApiServer":
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the emulated API server did not start")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())
        self.loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with Emulator() as emulator, kmock.Server(emulator) as server:
            register_resources(emulator)
            self.emulator = emulator
            self.url = str(server.url).rstrip("/")
            async with aiohttp.ClientSession(self.url) as session:
                self.session = session
                self._ready.set()
                await self._stop.wait()
                tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    def submit(self, coro: Awaitable[T]) -> "asyncio.Future[T]":
        return asyncio.run_coroutine_threadsafe(coro, self.loop)  # type: ignore[arg-type]

    def call(self, coro: Awaitable[T], timeout: float = 30) -> T:
        return self.submit(coro).result(timeout)

    # --- plain HTTP helpers (what kubectl would do) ---

    async def request(self, method: str, path: str, body: Any = None,
                      content_type: str = "application/merge-patch+json") -> tuple[int, Any]:
        assert self.session is not None
        headers = {"Content-Type": content_type} if body is not None else {}
        async with self.session.request(method, path, data=None if body is None else json.dumps(body),
                                        headers=headers) as response:
            text = await response.text()
            return response.status, (json.loads(text) if text else None)

    def apply_run(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        status, data = self.call(self.request(
            "POST", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{namespace}/{api.PLURAL}", body,
            "application/json"))
        assert status in (200, 201), data
        return data

    def patch_run(self, namespace: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        status, data = self.call(self.request(
            "PATCH", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{namespace}/{api.PLURAL}/{name}", patch))
        assert status == 200, data
        return data

    def delete_run(self, namespace: str, name: str) -> None:
        status, data = self.call(self.request(
            "DELETE", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{namespace}/{api.PLURAL}/{name}"))
        assert status == 200, data

    def create(self, path: str, body: dict[str, Any]) -> None:
        status, data = self.call(self.request("POST", path, body, "application/json"))
        assert status in (200, 201), data

    def get_run(self, namespace: str, name: str) -> dict[str, Any] | None:
        status, data = self.call(self.request(
            "GET", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{namespace}/{api.PLURAL}/{name}"))
        return data if status == 200 else None

    def count(self, plural: str, namespace: str) -> int:
        async def count() -> int:
            return sum(1 for ns, _, _ in objects(self, plural) if ns == namespace)
        return self.call(count())

    def jobs(self, namespace: str) -> list[dict[str, Any]]:
        return self.call(self._snapshot("jobs", namespace))

    async def _snapshot(self, plural: str, namespace: str) -> list[dict[str, Any]]:
        assert self.emulator is not None
        return [json.loads(json.dumps(obj.raw)) for (res, ns, _), obj in list(self.emulator.objects.items())
                if res.plural == plural and ns == namespace and not obj.deleted]

    def kubeconfig(self, path: pathlib.Path) -> pathlib.Path:
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "emulator",
            "clusters": [{"name": "emulator", "cluster": {"server": self.url}}],
            "users": [{"name": "tester", "user": {"token": "emulated"}}],
            "contexts": [{"name": "emulator", "context": {"cluster": "emulator", "user": "tester"}}],
        }))
        return path


def objects(server: ApiServer, plural: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(namespace, name, body) of live objects; call on the server's loop."""
    assert server.emulator is not None
    for (res, ns, name), obj in list(server.emulator.objects.items()):
        if res.plural == plural and not obj.deleted:
            yield ns, name, obj.raw

