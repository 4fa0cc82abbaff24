"""Copywriting (12), Media Quality (13) and Placeholder Quality (14) from what the probe
read in the rendered states."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.quality import content

PROSE = ("Notes keep what you write in this browser until you delete them; every note has a title "
         "and a short text, and the counter at the top shows how many notes you have kept")


def _text(text: str, role: str = "text", clipped: bool = False, path: str | None = None) -> dict:
    return {"path": path or f"p:{abs(hash(text)) % 10_000}", "text": text, "role": role, "clipped": clipped}


def test_spelling_lorem_casing_and_clipping_make_copywriting():
    clean = {"S0": {"texts": [_text(PROSE), _text("Add a note", "button"), _text("Delete the note", "button"),
                              _text("Your notes", "heading"), _text("New note here", "heading")]}}
    good = content.copywriting(clean, unknown=[], prompt="")
    assert good.value == 100.0
    words = content.spelling_candidates(clean)
    assert "browser" in words and "Notes" not in words  # looked up lower-case
    sloppy = {"S0": {"texts": [_text(PROSE.replace("browser", "browzer")),
                               _text("Lorem ipsum dolor sit amet"),
                               _text("ADD A NOTE", "button"), _text("Delete The Note", "button"),
                               _text("A text much too long", clipped=True)]}}
    bad = content.copywriting(sloppy, unknown=["browzer"], prompt="")
    parts = bad.raw["parts"]
    checked = 29 + 4 + 4  # lower-case words of three letters or more: the prose, the lorem, the clipped text
    assert parts["spelling"] == pytest.approx(100 * (1 - (1 / checked) / 0.05), abs=0.01)
    assert parts["no lorem ipsum"] == 0.0
    assert parts["casing"] == 50.0  # one button in UPPER, one in Title Case
    assert parts["untruncated"] == 0.0  # one of five texts clipped: 10 × 20 % takes it all
    assert bad.value < good.value


def test_words_the_requirement_uses_are_not_spelling_mistakes():
    states = {"S0": {"texts": [_text("kanban " * 25)]}}
    assert "kanban" not in content.spelling_candidates(states, prompt="Make me a Kanban board")
    score = content.copywriting(states, unknown=["kanban"], prompt="Make me a Kanban board")
    assert "spelling" not in score.raw["parts"]  # no checkable word left


def _img(**kw) -> dict:
    return {"tag": "img", "path": kw.pop("path", "img:1"), "src": kw.pop("src", "a.png"), "alt": "a cat",
            "natural": [200, 100], "box": [200, 100], "fit": "fill", "broken": False, **kw}


def test_media_defects_broken_upscaled_stretched_unlabelled():
    good = content.media_quality({"S0": {"media": [_img(), _img(path="img:2", src="b.svg", vector=True, box=[64, 64])]}})
    assert good.value == 100.0
    bad = content.media_quality({"S0": {"media": [
        _img(path="img:1", broken=True, natural=[0, 0]),
        _img(path="img:2", src="small.png", box=[800, 400]),       # upscaled 4×
        _img(path="img:3", src="wide.png", box=[200, 200]),        # 2:1 shown square
        _img(path="img:4", src="ok.png", alt=None),                # no alt attribute
        _img(path="img:5", src="fine.png"),
        _img(path="img:6", src="cover.png", box=[200, 200], fit="cover")]}})
    assert bad.value == pytest.approx(100 * 2 / 6, abs=0.01)
    assert bad.raw["defects"] == {"broken": 1, "upscaled": 1, "stretched": 1, "unlabelled": 1}
    assert content.media_quality({"S0": {"media": []}}).value is None


def test_images_our_sandbox_blocked_are_left_out_not_broken():
    app = "http://127.0.0.1:8000"
    local = content.media_quality({"S0": {"media": [_img(path="img:1", src=f"{app}/hero.jpg")]}}, app)
    outside = content.media_quality({"S0": {"media": [
        _img(path="img:1", src=f"{app}/hero.jpg"),
        _img(path="img:2", src="https://images.unsplash.com/photo-1.jpg", broken=True, natural=[0, 0])]}}, app)
    assert outside.value == local.value == 100.0
    assert outside.raw["blocked_by_sandbox"] == ["https://images.unsplash.com/photo-1.jpg"]
    own_broken = content.media_quality({"S0": {"media": [
        _img(path="img:1", src=f"{app}/missing.jpg", broken=True, natural=[0, 0])]}}, app)
    assert own_broken.value == 0.0  # the app's own missing file is a defect
    only_outside = content.media_quality({"S0": {"media": [
        _img(path="img:1", src="https://picsum.photos/200", broken=True, natural=[0, 0])]}}, app)
    assert only_outside.value is None and "sandbox" in only_outside.reason


def test_placeholders_left_in_text_links_and_images():
    clean = {"S0": {"texts": [_text("3 notes")], "links": [{"href": "#notes", "resolved": "http://x/#notes"}],
                    "media": [_img()]}}
    assert content.placeholders(clean).value == 100.0
    dirty = {"S0": {"texts": [_text("TODO: write the intro"), _text("Total: NaN notes"), _text("Hello {{name}}")],
                    "links": [{"href": "https://example.com/help", "resolved": "https://example.com/help", "text": "help"},
                              {"href": "", "resolved": "http://x/", "text": "about"}],
                    "media": [_img(src="https://via.placeholder.com/150")]},
             "S1": {"texts": [_text("TODO: write the intro")]}}  # the same placeholder in another state: once
    score = content.placeholders(dirty)
    assert score.value == pytest.approx(100 * 0.8 ** 6, abs=0.01)
    assert "6 placeholders left" in score.reason


def test_a_page_that_shows_almost_nothing_is_thin_and_one_that_shows_something_is_not():
    """Fewer than 5 words, no media and fewer than 3 content boxes: the metrics that
    measure what a page shows score it 0 with this reason, not a constant 100 or
    unscored (issue 19, item 5). No state rendered is ours: not thin."""
    leaf = {"leaf": True, "path": "p:1", "box": [0, 0, 100, 20]}
    bare = {"S0": {"texts": [{"path": "h1:1", "text": "Hello"}], "media": [], "boxes": [leaf]}}
    why = content.thin(bare)
    assert why and "1 word" in why and "1 content box" in why and "scored 0" in why
    worded = {"S0": {**bare["S0"], "texts": [{"path": "p:1", "text": "A list of the things to do today"}]}}
    pictured = {"S0": {**bare["S0"], "media": [{"tag": "img", "path": "img:1"}]}}
    boxed = {"S0": {**bare["S0"], "boxes": [leaf, leaf, leaf]}}
    assert content.thin(worded) is None and content.thin(pictured) is None and content.thin(boxed) is None
    assert content.thin({}) is None
