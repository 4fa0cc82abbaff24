"""Fixtures shared by every test folder: services on loopback that tests use."""

from __future__ import annotations

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
