"""A fake npm registry: a real HTTP server on loopback serving packuments and tarballs
built in the test, so the CDN mirror's real download path runs without the internet.

    with npm_registry.running([npm_registry.Package("lib", "1.0.0", {"index.js": "x"})]) as reg:
        mirror = cdn.Mirror(tmp_path / "cdn", registry=reg.url)
        ...
        assert reg.hits("/lib") == 1

``Package.files`` maps paths inside the package to text or bytes; ``package.json`` is
made from ``manifest`` (name and version are added). ``reg.faults`` lets a test make
the next N requests for a path fail with a status (e.g. 503) to exercise retries.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import http.server
import io
import json
import tarfile
import threading
import urllib.parse
from typing import Any, Iterator


@dataclasses.dataclass
class Package:
    name: str
    version: str
    files: dict[str, str | bytes] = dataclasses.field(default_factory=dict)
    manifest: dict[str, Any] = dataclasses.field(default_factory=dict)
    tags: tuple[str, ...] = ()  # dist-tags pointing at this version ("latest" added to the newest)


def tarball(package: Package, extra: list[tarfile.TarInfo] | None = None) -> bytes:
    """An npm-style .tgz (everything under ``package/``). ``extra`` adds raw members
    (links, escaping paths) for tests of safe extraction."""
    manifest = {"name": package.name, "version": package.version, **package.manifest}
    files = {"package.json": json.dumps(manifest, indent=2), **package.files}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        for info in extra or []:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isfile() else None)
    return buffer.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class Registry:
    def __init__(self, packages: list[Package]) -> None:
        self.url = ""
        self.tarballs: dict[str, bytes] = {}  # URL path → bytes
        self.documents: dict[str, dict[str, Any]] = {}  # package name → packument
        self.requests: list[str] = []
        self.faults: dict[str, list[int]] = {}  # URL path → statuses to answer first
        self._lock = threading.Lock()
        self._packages = packages

    def publish(self, base_url: str) -> None:
        self.url = base_url
        for package in self._packages:
            self.add(package)

    def add(self, package: Package, data: bytes | None = None, dist: dict[str, Any] | None = None) -> None:
        """Publish a version (``data``/``dist`` override the tarball or its metadata)."""
        data = data if data is not None else tarball(package)
        short = package.name.split("/")[-1]
        path = f"/{package.name}/-/{short}-{package.version}.tgz"
        self.tarballs[path] = data
        doc = self.documents.setdefault(package.name, {"name": package.name, "dist-tags": {}, "versions": {}})
        doc["versions"][package.version] = {
            "name": package.name, "version": package.version,
            "dist": dist or {"tarball": self.url + path, "integrity": integrity(data),
                             "shasum": hashlib.sha1(data).hexdigest()},
        }
        for tag in package.tags:
            doc["dist-tags"][tag] = package.version
        doc["dist-tags"].setdefault("latest", package.version)

    def hits(self, prefix: str = "/") -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.startswith(prefix))


class _Handler(http.server.BaseHTTPRequestHandler):
    registry: Registry

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        reg = self.registry
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        with reg._lock:
            reg.requests.append(path)
            pending = reg.faults.get(path)
            status = pending.pop(0) if pending else None
        if status is not None:
            self._send(status, b"fault", "text/plain")
        elif path in reg.tarballs:
            self._send(200, reg.tarballs[path], "application/octet-stream")
        elif path.lstrip("/") in reg.documents:
            self._send(200, json.dumps(reg.documents[path.lstrip("/")]).encode(), "application/json")
        else:
            self._send(404, b'{"error":"Not found"}', "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def running(packages: list[Package]) -> Iterator[Registry]:
    """A registry with ``packages`` on a free loopback port for the block."""
    registry = Registry(packages)
    handler = type("Handler", (_Handler,), {"registry": registry})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    registry.publish(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# Small stand-ins for the libraries generated apps load most, for other tests.
CHART = Package("chart.js", "4.4.0", {
    "dist/chart.umd.js": "window.Chart = function Chart() {};",
    "dist/chart.js": "import {Color} from '@kurkle/color';\nexport class Chart {}\nexport default Chart;",
}, {"jsdelivr": "./dist/chart.umd.js", "unpkg": "./dist/chart.umd.js", "main": "./dist/chart.cjs",
    "type": "module", "exports": {".": {"import": "./dist/chart.js", "require": "./dist/chart.cjs"}},
    "dependencies": {"@kurkle/color": "^0.3.0"}})
KURKLE = Package("@kurkle/color", "0.3.2", {"dist/color.esm.js": "export class Color {}"},
                 {"module": "dist/color.esm.js", "main": "dist/color.cjs"})
THREE = Package("three", "0.134.0", {"build/three.min.js": "window.THREE = {REVISION: '134'};",
                                     "build/three.module.js": "export const REVISION = '134';"},
                {"main": "build/three.js", "module": "build/three.module.js"})


@contextlib.contextmanager
def prefilled_mirror(cache_dir, packages: list[Package] = (CHART, KURKLE, THREE)):  # noqa: ANN001
    """A kits/cdn.Mirror over ``cache_dir`` filled from a fake registry; inside the
    block the registry is still up (``mirror, registry``)."""
    from iwcbench.pipeline.kits.mirror import cdn

    with running(list(packages)) as registry:
        yield cdn.Mirror(cache_dir, registry=registry.url), registry
