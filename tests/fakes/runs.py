"""Settings for quick whole-pipeline runs in tests."""

from __future__ import annotations

import pathlib

from iwcbench.pipeline.contracts import settings as settings_mod

ROOT = pathlib.Path(__file__).resolve().parents[2]


def quick_settings(tasks: pathlib.Path, apps: pathlib.Path, out: pathlib.Path, mirror: pathlib.Path,
                   workers: int = 2, fetch: bool = False, quality: dict | None = None,
                   **exploration) -> settings_mod.RunSettings:
    """Small budgets so that a run of a dozen apps takes a minute or two on 2 cores.
    The WebCoderBench rule suite is off unless ``quality`` (its settings) asks for it:
    its own tests run it once, for real (tests/integration/quality)."""
    return settings_mod.RunSettings.model_validate({
        "tasks": str(tasks), "apps": str(apps), "out": str(out), "workers": workers,
        "exploration": {"max_steps": 8, "load_timeout_s": 8, "step_timeout_s": 4,
                        "app_timeout_s": 60, **exploration},
        "sandbox": {"mirror_fetch": fetch}, "mirror_dir": str(mirror),
        "quality": quality if quality is not None else {"enabled": False},
    })
