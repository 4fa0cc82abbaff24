"""A CDN mirror cache shared by the whole session (and kept between sessions), so the
real npm registry is asked at most once per package version."""

from __future__ import annotations

import os
import pathlib

import pytest

CACHE_ENV = "IWC_TEST_CDN_CACHE"


@pytest.fixture(scope="session")
def cdn_cache() -> pathlib.Path:
    folder = pathlib.Path(os.environ.get(CACHE_ENV) or pathlib.Path.home() / ".cache/iwc-bench/test-cdn")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
