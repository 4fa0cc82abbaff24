"""Reading and writing stored artifacts by their declarations (contracts/artifacts.py):
``AppEvidence`` for one app's evidence (its prefix in the store), ``RunFiles`` for a
run's own files. The only place that turns a declaration into a store key; stages are
handed these as ``artifacts.Reader`` and never see the store.
"""

from __future__ import annotations

from typing import Any, Iterator

import pydantic

from iwcbench.pipeline.contracts import artifacts, evidence, layout, results
from iwcbench.pipeline.kits import store as store_mod


def _check(artifact: artifacts.Artifact, level: artifacts.Level, value: Any) -> None:
    if artifact.level != level:
        raise ValueError(f"{artifact.key} is a {artifact.level}-level artifact, not the {level}'s")
    if artifact.model is not None and not isinstance(value, artifact.model):
        raise TypeError(f"{artifact.key} holds a {artifact.model.__name__}, not a {type(value).__name__}")


class _Files(artifacts.Reader):
    level: artifacts.Level

    def __init__(self, store: store_mod.Store, where: str) -> None:
        self.store = store
        super().__init__(store.get_or_none, where)

    def save(self, artifact: artifacts.Artifact, value: pydantic.BaseModel) -> None:
        """Write ``value`` (the artifact's model) at the artifact's key."""
        self.save_at(artifact.key, artifact, value)

    def save_at(self, key: str, artifact: artifacts.Artifact, value: pydantic.BaseModel) -> None:
        """An artifact at another key (a UI test case's trace, a replay)."""
        _check(artifact, self.level, value)
        store_mod.put_model(self.store, key, value)

    def save_json(self, artifact: artifacts.Artifact, data: Any) -> None:
        """An artifact in a format that is not ours (Istanbul's JSON, a list)."""
        _check(artifact, self.level, data)
        store_mod.put_json(self.store, artifact.key, data)

    def put(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Any file (a DOM snapshot, a screenshot, a traceback)."""
        self.store.put_bytes(key, data, content_type)

    def exists(self, artifact: artifacts.Artifact) -> bool:
        return self.store.exists(artifact.key)


class AppEvidence(_Files):
    """One app's evidence: keys relative to ``apps/<model>/<task_id>``."""

    level: artifacts.Level = "app"

    def __init__(self, store: store_mod.Store, prefix: str) -> None:
        self.prefix = prefix.strip("/")
        super().__init__(store_mod.Prefixed(store, self.prefix), self.prefix)

    @classmethod
    def of(cls, store: store_mod.Store, app: evidence.AppRef) -> AppEvidence:
        return cls(store, app.key)

    def result(self) -> results.AppResult | None:
        return self.load(artifacts.RESULT)


class RunFiles(_Files):
    """A run's own files, at the root of its store, and its apps' evidence."""

    level: artifacts.Level = "run"

    def __init__(self, store: store_mod.Store) -> None:
        super().__init__(store, "")

    def app(self, prefix: str) -> AppEvidence:
        return AppEvidence(self.store, prefix)

    def result_keys(self) -> Iterator[str]:
        """The key of every stored per-app result (``apps/<model>/<task_id>/result.json``)."""
        return iter(sorted(key for key in self.store.list("apps/") if layout.is_result_key(key)))

    def app_results(self) -> list[results.AppResult]:
        """Every per-app result stored under ``apps/``."""
        return [results.AppResult.model_validate_json(self.store.get_bytes(key)) for key in self.result_keys()]
