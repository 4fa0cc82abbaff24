"""Write small app folders from a {relative path: text or bytes} dict."""

from __future__ import annotations

import pytest

from fakes import apps


@pytest.fixture()
def app(tmp_path):
    """``app({...})`` writes an app folder and returns its path."""
    return apps.app_writer(tmp_path)
