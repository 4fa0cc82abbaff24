"""The report in a real browser: hostile app text stays inert, the report's own script
runs (sorting, lightbox), and every picture loads from the report folder."""

from __future__ import annotations

import pathlib

import playwright.sync_api as pw
import pytest

from fakes import sample_run
from iwcbench.pipeline.contracts import artifacts
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages import reporting


@pytest.fixture()
def page(tmp_path: pathlib.Path):
    with pw.sync_playwright() as driver:
        chromium = browser.launch(driver)
        try:
            yield chromium.new_page(viewport={"width": 1280, "height": 900})
        finally:
            chromium.close()


@pytest.mark.browser
def test_report_pages_are_inert_and_interactive(page, tmp_path):
    run, read = sample_run.build_sample_run(tmp_path)
    index = reporting.write_report(run, artifacts.Reader(read), tmp_path / "report")
    dialogs: list[str] = []
    problems: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: problems.append(str(e)))

    page.goto((index.parent / "apps/aurora-7b/canvas-snake.html").as_uri())
    assert page.locator("text=" + sample_run.HOSTILE_CONSOLE).count() == 2  # as text: trace and error list
    assert page.locator("script").count() == 1  # only the report's own
    broken = page.evaluate("""async () => {
        const imgs = [...document.images].filter(i => i.getAttribute('src'));
        imgs.forEach(i => { i.loading = 'eager'; });
        await Promise.all(imgs.map(i => i.decode().catch(() => null)));
        return imgs.length ? imgs.filter(i => i.naturalWidth === 0).map(i => i.src) : ['no images'];
    }""")
    assert broken == []
    page.locator("figure#state-S1 a.shot").click()  # the lightbox is the report's own script
    assert page.locator("#lightbox").is_visible()
    assert page.locator("#lightbox img").evaluate("i => i.naturalWidth") == 960

    page.goto(index.as_uri())
    heading = page.locator("#apps-table thead th", has_text="overall")
    heading.click()  # sorts descending
    first = page.locator("#apps-table tbody tr").first.locator("td").nth(1).inner_text()
    assert first == "todomvc"  # aurora-7b/todomvc has the highest overall (+0.97)
    assert dialogs == [] and problems == []
