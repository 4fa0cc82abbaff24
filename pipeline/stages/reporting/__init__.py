"""Reporting: a static HTML report of one run that a maintainer opens in a browser.

``write_report`` writes ``index.html`` (run header, leaderboard, every app, a task ×
model grid of first screens) and ``apps/<model>/<task_id>.html`` per app (scores,
screenshots, the state graph drawn as SVG, coverage, trace, errors, network,
instrumentation), and copies the screenshots and DOM snapshots the pages use into
``assets/`` so the folder stands alone. No external resources: CSS and a little
vanilla JS are inline.

Everything that came from an app is untrusted and escaped. A missing or unreadable
piece of evidence is shown as such on the page; it never stops the report. This stage
reads evidence only through the run's ``artifacts.Reader`` and never imports another stage.
"""

from __future__ import annotations

import concurrent.futures
import logging
import pathlib

from iwcbench.pipeline.contracts import artifacts, results
from iwcbench.pipeline.stages.reporting import app_page, assets, reading, run_page, validation

log = logging.getLogger(__name__)

PAGE_THREADS = 4  # apps' pages built at once
Assets = assets.Assets


def copier_for(files: artifacts.Reader, out_dir: pathlib.Path) -> assets.Assets:
    """The asset copier of a report to be written into ``out_dir``: ``early`` fills it
    while the run goes on, ``write_report`` takes it."""
    return assets.Assets(pathlib.Path(out_dir), reading.guarded(files.raw))


def early(app: results.AppResult, files: artifacts.Reader, copier: assets.Assets) -> None:
    """Copy the screenshots of one app's trace as soon as its result is in (the most
    of a report's time is in them), so that the report at the run's end finds them
    done. Only what the app's page would copy itself; nothing else is written."""
    prefix, trace = reading.read_trace(app, files)
    for step in trace.steps if trace is not None else ():
        copier.shot(app.model, app.task_id, prefix, step.screenshot)


def write_report(run: results.RunResults, files: artifacts.Reader, out_dir: pathlib.Path,
                 copier: assets.Assets | None = None) -> pathlib.Path:
    """Write the report of ``run`` into ``out_dir``; returns the path of index.html.
    ``files`` reads the run's store (keys such as ``apps/m/t/trace.json``); ``copier``,
    one ``copier_for`` the same folder, may hold screenshots already copied (``early``)."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    copier = copier or copier_for(files, out_dir)

    def page(app: results.AppResult) -> app_page.Summary:
        html, summary = app_page.build(app, reading.read_evidence(app, files), copier, run_page.overall_name(run))
        target = out_dir / summary.href
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        return summary

    # (the screenshots' decoding, resampling and encoding let go of the GIL: apps'
    # pages are built side by side, in the apps' order all the same)
    with concurrent.futures.ThreadPoolExecutor(max_workers=PAGE_THREADS) as pool:
        summaries = list(pool.map(page, sorted(run.apps, key=lambda a: (a.model, a.task_id))))
    index = out_dir / "index.html"
    index.write_text(run_page.build(run, summaries, validation.Found.read(files)), encoding="utf-8")
    log.info("report: %d app pages, %.1f MB of assets", len(summaries), copier.bytes_written / 1e6)
    return index
