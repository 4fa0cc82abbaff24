"""Text from apps (titles, console messages, dialogs, URLs) renders as inert text."""

from __future__ import annotations

import base64
import hashlib
import html
import re

from fakes import sample_run


def test_hostile_text_is_escaped_everywhere(written, parse):
    for page in [written.index, *(written.root / "apps").rglob("*.html")]:
        text = page.read_text(encoding="utf-8")
        assert "<script>alert" not in text, page.name
        assert "<b>!</b>" not in text, page.name
    snake = written.page("aurora-7b", "canvas-snake")
    assert html.escape(sample_run.HOSTILE_CONSOLE) in snake  # shown, as text
    assert html.escape(sample_run.HOSTILE_TITLE) in snake
    assert "&lt;b&gt;!&lt;/b&gt;" in snake


def test_each_page_has_only_its_own_script_allowed_by_hash(written, parse):
    for page in [written.index, *(written.root / "apps").rglob("*.html")]:
        markup = parse(page.read_text(encoding="utf-8"))
        assert len(markup.scripts) == 1, page.name
        csp = next(a["content"] for t, a in markup.tags if t == "meta" and a.get("http-equiv"))
        digest = base64.b64encode(hashlib.sha256(markup.scripts[0].encode()).digest()).decode()
        assert f"script-src 'sha256-{digest}'" in csp
        assert "unsafe-inline'" not in re.search(r"script-src[^;]*", csp).group(0)
