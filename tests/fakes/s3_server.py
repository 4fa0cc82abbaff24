"""moto's standalone S3 server on loopback, for tests that need a real S3 endpoint."""

from __future__ import annotations

import contextlib
import os
import urllib.request
from typing import Iterator

from moto.server import ThreadedMotoServer


@contextlib.contextmanager
def running() -> Iterator[str]:
    """Start moto on 127.0.0.1 (a free port); yield its endpoint URL; stop it."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def reset(endpoint: str) -> None:
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST")).read()


def environment(endpoint: str) -> dict[str, str]:
    """The variables boto3 (and our subprocesses) need to talk to the fake."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


@contextlib.contextmanager
def patched_environment(endpoint: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in environment(endpoint)}
    os.environ.update(environment(endpoint))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
