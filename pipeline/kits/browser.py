"""The browser kit: Debian's Chromium driven by Playwright. Nothing else imports
playwright. It launches, routes and observes; it decides nothing about exploring."""

from __future__ import annotations

import shutil

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
)


def chromium_path() -> str:
    """The system Chromium (apt). Playwright's own browser downloads are not used."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no chromium on PATH: run hack/setup (apt-get install chromium)")


def launch(playwright, headless: bool = True):
    """Launch Chromium with the flags that keep it from dialling out."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=headless, args=list(CHROMIUM_ARGS)
    )
