"""The report is a self-contained folder: every page is written and every link works."""

from __future__ import annotations

import re
import urllib.parse

from iwcbench.pipeline.contracts import artifacts, results
from iwcbench.pipeline.stages import reporting


def test_index_and_one_page_per_app_are_written(written):
    assert written.index == written.root / "index.html"
    pages = sorted(p.relative_to(written.root).as_posix() for p in (written.root / "apps").rglob("*.html"))
    assert pages == ["apps/aurora-7b/canvas-snake.html", "apps/aurora-7b/todomvc.html",
                     "apps/brisk-3b/canvas-snake.html", "apps/brisk-3b/todomvc.html"]


def test_every_local_link_and_image_resolves(written, parse):
    for page in [written.index, *(written.root / "apps").rglob("*.html")]:
        text = page.read_text(encoding="utf-8")
        markup = parse(text)
        ids = {a["id"] for _, a in markup.tags if a.get("id")}
        targets = markup.attrs("a", "href") + markup.attrs("img", "src")
        assert targets, page
        for target in targets:
            assert not re.match(r"^[a-z]+:", target), f"{page.name}: external or absolute link {target}"
            path, _, fragment = target.partition("#")
            if path:
                resolved = (page.parent / urllib.parse.unquote(path)).resolve()
                assert resolved.is_file(), f"{page.name}: {target} does not exist"
                assert written.root.resolve() in resolved.parents, f"{page.name}: {target} leaves the report"
            elif fragment:
                assert fragment in ids, f"{page.name}: no element with id {fragment}"


def test_screenshots_are_copied_with_small_thumbnails(written, parse):
    from PIL import Image

    markup = parse(written.page("aurora-7b", "todomvc"))
    thumbs = [src for src in markup.attrs("img", "src") if "/thumbs/" in src]
    assert len(thumbs) == 7  # one per state
    for src in thumbs:
        with Image.open(written.root / "apps" / "aurora-7b" / src) as img:
            assert img.width <= 480
    fulls = [href for href in markup.attrs("a", "href") if "/shots/" in href]
    with Image.open(written.root / "apps" / "aurora-7b" / fulls[0]) as img:
        assert img.size == (960, 600)  # the full image keeps its size


def test_index_shows_every_app_with_its_outcome(written):
    text = written.index.read_text(encoding="utf-8")
    for app in written.run.apps:
        assert f'href="apps/{app.model}/{app.task_id}.html"' in text
    assert text.count('class="chip start_failed"') >= 1
    assert text.count('class="chip black_box"') >= 1
    # the two models' intervals overlap: one band, and the page says they tie
    assert text.count(">band 1</span>") == 2 and "band 1: <b>aurora-7b, brisk-3b</b> tie" in text
    assert "−0.07 … +1.93" in text  # aurora-7b's 95 % interval of its overall


def test_dom_snapshots_are_copied_as_text_never_as_pages(written, parse):
    markup = parse(written.page("aurora-7b", "todomvc"))
    doms = [h for h in markup.attrs("a", "href") if "/dom/" in h]
    assert len(doms) == 12
    assert all(h.endswith(".html.txt") for h in doms)


def test_broken_or_missing_evidence_is_shown_not_raised(written, tmp_path):
    def read(key: str) -> bytes | None:
        if key.endswith("todomvc/trace.json"):
            return b"{not json"
        if key.endswith("graph.json") or "/shots/" in key:
            return None
        return written.read(key)

    index = reporting.write_report(written.run, artifacts.Reader(read), tmp_path / "again")
    page = (index.parent / "apps/aurora-7b/todomvc.html").read_text(encoding="utf-8")
    assert 'class="problem"' in page and "apps/aurora-7b/todomvc/trace.json is not a valid Trace" in page
    snake = (index.parent / "apps/aurora-7b/canvas-snake.html").read_text(encoding="utf-8")
    assert "No state graph was recorded" in snake


def test_an_empty_run_still_has_a_report(tmp_path):
    run = results.RunResults(run=results.RunInfo(configuration={}, config_hash="0", started_at="now"))
    index = reporting.write_report(run, artifacts.Reader(lambda key: None), tmp_path / "r")
    assert "No model could be ranked" in index.read_text(encoding="utf-8")


def test_an_app_page_shows_coverage_per_source_file_and_where_each_function_was_written(written):
    text = written.page("aurora-7b", "todomvc")
    per_file = text[text.index("Per source file"):]
    assert "js/app.js" in per_file and "82 %" in per_file and "76 %" in per_file and "60 %" in per_file
    assert "js/store.js" in per_file and "94 %" in per_file
    assert "index.html#inline-1" not in per_file.split("Functions, where they were written")[0]  # not measured
    functions = per_file[per_file.index("Functions, where they were written"):]
    assert "1 of 2 functions ran" in functions
    assert "addTodo" in functions and ">4<" in functions
    # a handler on the template line it was written on, escaped, and shown as never run
    assert "&lt;button class=&quot;destroy&quot; @click=&quot;remove(todo)&quot;&gt;" in functions
    assert '<tr class="never"><td class="num mono">88</td>' in functions


def test_a_page_without_per_file_coverage_has_no_such_table(written):
    assert "Per source file" not in written.page("aurora-7b", "canvas-snake")


def test_the_index_says_which_builds_had_the_network(tmp_path):
    """A built app whose build shared the network (a pod without the sandbox's profile) is
    marked on its row and counted in the header; a run of static apps says nothing."""
    from fakes import sample_run

    run, read = sample_run.build_sample_run(tmp_path)
    quiet = reporting.write_report(run, artifacts.Reader(read), tmp_path / "static").read_text(encoding="utf-8")
    assert "build sandbox" not in quiet and "network not isolated" not in quiet
    built = [a.model_copy(update={"instrumentation": a.instrumentation.model_copy(
        update={"framework": "vite", "build": "instrumented", "build_s": 30.0, "network_isolated": i != 0})})
        for i, a in enumerate(run.apps)]
    text = reporting.write_report(run.model_copy(update={"apps": built}), artifacts.Reader(read),
                                  tmp_path / "built").read_text(encoding="utf-8")
    assert f"3 of {len(built)} built apps had loopback only" in text
    assert text.count("network not isolated") == 1
