"""Fixtures shared by every test folder: services on loopback that tests use."""

from __future__ import annotations

import os
import shutil
import subprocess

import boto3
import pytest

from fakes import s3_server


@pytest.fixture(scope="session")
def s3_endpoint():
    """A real S3-compatible HTTP endpoint (moto) for the whole session."""
    with s3_server.running() as endpoint, s3_server.patched_environment(endpoint):
        yield endpoint


@pytest.fixture()
def s3_bucket(s3_endpoint):
    """A fresh, empty bucket; its name."""
    s3_server.reset(s3_endpoint)
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket="iwc-test")
    return "iwc-test"


# ---------------------------------------------------------------- the quick tier
# `hack/test --quick` (IWC_QUICK=1) runs what needs no browser, no Node and no emulated
# cluster. A test that starts one of these programs without its marker fails there,
# naming the marker it needs, so the tiers cannot drift silently.
_NEEDS = {
    "chromium": "browser", "chromium-browser": "browser", "firefox-esr": "browser", "firefox": "browser",
    "node": "node", "nodejs": "node", "npm": "node", "npx": "node",
    "podman": "cluster", "helm": "cluster", "kubectl": "cluster",
}


@pytest.fixture(autouse=True)
def _quick_tier_guard(monkeypatch):
    if not os.environ.get("IWC_QUICK"):
        return
    real = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kwargs):
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        first = os.fsdecode(argv[0]).split()[0] if argv else ""
        program = os.path.basename(first)
        asks_version = argv[1:] == ["--version"]  # provenance reads versions: nothing starts
        if program in _NEEDS and not asks_version and (os.path.exists(first) or shutil.which(first)):
            pytest.fail(f"this test starts {program}: mark it @pytest.mark.{_NEEDS[program]} "
                        f"(the quick tier runs without it)", pytrace=False)
        return real(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)
