"""The cluster kit reads what the API server answers even when it is not the API's JSON:
a restarting API server answers 429 in plain text ("The apiserver is shutting down"),
which must become a retryable ApiError, not a JSON decoding crash in the operator's log."""

from __future__ import annotations

from typing import Any

import pytest

from iwcbench.pipeline.kits import cluster


class _Reply:
    def __init__(self, status: int, data: bytes) -> None:
        self.status, self.data = status, data

    def read(self) -> None:
        pass


class _Api:
    def __init__(self, *replies: _Reply) -> None:
        self.replies = list(replies)

    def param_serialize(self, **kwargs: Any) -> tuple:
        return (kwargs["method"], kwargs["resource_path"])

    def call_api(self, *args: Any, **kwargs: Any) -> _Reply:
        return self.replies.pop(0)


def test_a_plain_text_429_is_an_api_error_that_is_tried_again(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    api = _Api(_Reply(429, b"The apiserver is shutting down, please try again later.\n"), _Reply(201, b"{}"))
    assert cluster.Cluster(api).create_job({"metadata": {"namespace": "runs", "name": "j"}}) is True
    assert api.replies == []  # the 429 was tried again, and the second answer taken


def test_a_plain_text_refusal_names_the_status_and_the_text():
    api = _Api(_Reply(403, b"forbidden by a proxy"))
    with pytest.raises(cluster.ApiError, match="HTTP 403: forbidden by a proxy"):
        cluster.Cluster(api).create_job({"metadata": {"namespace": "runs", "name": "j"}})
