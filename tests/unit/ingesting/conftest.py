"""Fixtures for the input-stage tests (builders live in fakes/archives.py)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import settings


@pytest.fixture
def limits() -> settings.Input:
    return settings.Input()
