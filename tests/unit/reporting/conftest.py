"""The sample run's report, written once per test that asks for it."""

from __future__ import annotations

import dataclasses
import html.parser
import pathlib
from typing import Callable

import pytest

from fakes import sample_run
from iwcbench.pipeline.contracts import artifacts, results
from iwcbench.pipeline.stages import reporting


@dataclasses.dataclass
class Written:
    index: pathlib.Path
    run: results.RunResults
    read: Callable[[str], bytes | None]

    @property
    def root(self) -> pathlib.Path:
        return self.index.parent

    def page(self, model: str, task_id: str) -> str:
        return (self.root / "apps" / model / f"{task_id}.html").read_text(encoding="utf-8")


@pytest.fixture()
def written(tmp_path: pathlib.Path) -> Written:
    run, read = sample_run.build_sample_run(tmp_path)
    index = reporting.write_report(run, artifacts.Reader(read), tmp_path / "report")
    return Written(index=index, run=run, read=read)


class Markup(html.parser.HTMLParser):
    """Collects tags (with attributes) and the text of <script> elements."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data

    def attrs(self, tag: str, name: str) -> list[str]:
        return [a[name] for t, a in self.tags if t == tag and a.get(name) is not None]


@pytest.fixture()
def parse() -> Callable[[str], Markup]:
    return Markup
