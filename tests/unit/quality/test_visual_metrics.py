"""Layout Consistency (9), Layout Sparsity (10) and Visual Harmony (11): screenshots
drawn with Pillow, boxes as the probe reports them."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from iwcbench.pipeline.stages.quality import visual


def _png(draw=None, size=(1280, 800), background="white") -> bytes:
    img = Image.new("RGB", size, background)
    if draw:
        draw(ImageDraw.Draw(img))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def _text_rows(rows: int):
    def draw(d: ImageDraw.ImageDraw) -> None:
        for i in range(rows):
            d.text((40, 40 + 24 * i), "A line of text that fills the width of the page " * 3, fill="black")
    return draw


def test_a_blank_page_scores_zero_and_a_filled_one_full():
    assert visual.layout_sparsity([("S0", _png())]).value == 0.0
    page = _png(_text_rows(20))
    share = visual.occupancy(page)
    assert 0.08 <= share <= 0.5
    assert visual.layout_sparsity([("S0", page)]).value == 100.0
    crowded = _png(lambda d: [d.line((0, y, 1280, y), fill="black") for y in range(0, 800, 3)])
    assert visual.occupancy(crowded) > 0.9
    assert visual.layout_sparsity([("S0", crowded)]).value < 20


def test_occupancy_counts_cells_with_detail():
    # one 16×16 cell of 80×50 holds a checkerboard: 1/4000 of the screen
    def checker(d: ImageDraw.ImageDraw) -> None:
        for x in range(0, 16, 2):
            d.rectangle((x, 0, x, 15), fill="black")
    assert visual.occupancy(_png(checker)) == pytest.approx(1 / 4000)


def test_harmony_palette_hue_and_contrast():
    calm = _png(lambda d: (d.rectangle((0, 0, 1280, 80), fill="#2f6fb0"), d.rectangle((0, 700, 1280, 800), fill="#24598f")))
    loud = _png(lambda d: [d.rectangle((i * 80, 0, i * 80 + 79, 800), fill=f"hsl({i * 23 % 360}, 90%, 50%)")
                            for i in range(16)])
    readable = {"S0": {"texts": [{"path": "p:1", "text": "x", "color": "rgb(0, 0, 0)", "background": "rgb(255, 255, 255)", "size": 16}]}}
    faint = {"S0": {"texts": [{"path": "p:1", "text": "x", "color": "rgb(170, 170, 170)", "background": "rgb(255, 255, 255)", "size": 16}]}}
    good = visual.visual_harmony([("S0", calm)], readable)
    bad = visual.visual_harmony([("S0", loud)], faint)
    assert good.raw["parts"] == {"palette": 100.0, "hue harmony": 100.0, "contrast": 100.0}
    assert bad.raw["parts"]["contrast"] == 0.0
    # sixteen hues round the wheel: the widest template (T, half the wheel) holds 10 of them
    assert bad.raw["parts"]["palette"] < 50 and bad.raw["parts"]["hue harmony"] == pytest.approx(62.5)
    assert visual.contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21.0)
    assert visual.contrast("rgba(0, 0, 0, 0.5)", "rgb(255, 255, 255)") == pytest.approx(3.98, abs=0.01)


def _box(path, x, y, w=200, h=30, parent="main:1", tag="p"):
    return {"path": path, "tag": tag, "box": [x, y, w, h], "leaf": True, "parent": parent}


def test_aligned_evenly_spaced_stable_layouts_are_consistent():
    column = [_box(f"p:{i}", 40, 100 + 50 * i) for i in range(4)]
    tidy = {"S0": {"boxes": column, "landmarks": {"header": [0, 0, 1280, 60]}},
            "S1": {"boxes": column, "landmarks": {"header": [0, 0, 1280, 60]}}}
    assert visual.layout_consistency(tidy).value == 100.0
    ragged = [_box("p:1", 40, 100), _box("p:2", 97, 140), _box("p:3", 13, 230), _box("p:4", 301, 245, parent="aside:1")]
    messy = {"S0": {"boxes": ragged, "landmarks": {"header": [0, 0, 1280, 60]}},
             "S1": {"boxes": ragged, "landmarks": {"header": [0, 90, 1280, 60]}}}
    score = visual.layout_consistency(messy)
    # no left edge, centre or right edge shared; p → p gaps of 10 and 60 px (CV 5/7); the
    # header moved in S1
    assert score.raw["parts"] == {"alignment": 0.0, "spacing": pytest.approx(100 * (1 - 25 / 35), abs=0.01),
                                  "stability": 0.0}


def test_a_label_closer_to_its_input_than_to_the_next_field_is_regular():
    form = [_box("label:1", 40, 100, h=20, tag="label"), _box("input:1", 40, 124, tag="input"),
            _box("label:2", 40, 168, h=20, tag="label"), _box("input:2", 40, 192, tag="input"),
            _box("label:3", 40, 236, h=20, tag="label"), _box("input:3", 40, 260, tag="input")]
    score = visual.layout_consistency({"S0": {"boxes": form}})
    assert score.raw["parts"]["spacing"] == 100.0  # label → input 4 px each time, input → label 14 px


def test_harmony_leaves_hue_out_of_a_page_without_colour_and_scores_a_thin_page_0():
    grey = _png(lambda d: d.rectangle((0, 0, 1280, 80), fill="#444444"))
    score = visual.visual_harmony([("S0", grey)], {})
    assert "hue harmony" not in score.raw["parts"] and "hue harmony left out" in score.reason
    assert visual.visual_harmony([("S0", _png())], {}, "shows almost nothing").value == 0.0


# a canvas at (100, 120) of 600 × 400 px, as the probe reports it (page coordinates)
CANVAS = {"viewport": [1280, 800], "scroll": [0, 0],
          "boxes": [{"path": "body:1>canvas:1", "tag": "canvas", "box": [100, 120, 600, 400], "leaf": True}]}


def _game(d: ImageDraw.ImageDraw) -> None:
    d.rectangle((100, 120, 700, 520), fill="#101820")  # the board
    for i in range(4):  # a snake and its food
        d.rectangle((300 + 22 * i, 300, 320 + 22 * i, 320), fill="#3fb950")
    d.ellipse((500, 200, 518, 218), fill="#f85149")


def test_a_canvas_whose_pixels_show_something_is_drawn_and_a_blank_one_is_not():
    assert visual.drawn([("S0", _png(_game))], {"S0": CANVAS}) == ["S0: body:1>canvas:1"]
    flat = _png(lambda d: d.rectangle((100, 120, 700, 520), fill="#101820"))  # the board, nothing drawn
    assert visual.drawn([("S0", flat)], {"S0": CANVAS}) == []
    assert visual.drawn([("S0", _png())], {"S0": CANVAS}) == []
    # the same canvas scrolled half out of the screenshot: what is on screen is read
    scrolled = {**CANVAS, "scroll": [0, 300]}
    assert visual.drawn([("S0", _png(lambda d: d.rectangle((300, 0, 320, 20), fill="red")))], {"S0": scrolled})


def test_a_page_that_only_draws_on_a_canvas_is_not_thin_and_its_pixels_are_read():
    from iwcbench.pipeline.stages.quality import content

    states = {"S0": {**CANVAS, "texts": [], "media": []}}
    shots = [("S0", _png(_game))]
    assert content.thin(states, len(visual.drawn(shots, states))) is None
    blank = [("S0", _png(lambda d: d.rectangle((100, 120, 700, 520), fill="#101820")))]
    why = content.thin(states, len(visual.drawn(blank, states)))
    assert why is not None and "no canvas or video with drawn pixels" in why
    # the visual metrics read the drawn pixels from the screenshot: not the 0 of a thin page
    harmony = visual.visual_harmony(shots, states, content.thin(states, 1))
    assert harmony.value is not None and harmony.value > 0
    assert visual.shows_something(shots[0][1]) and not visual.shows_something(_png())


def test_a_canvas_left_blank_is_a_media_defect_and_one_that_draws_is_not():
    from iwcbench.pipeline.stages.quality import content

    states = {"S0": {**CANVAS, "texts": [], "media": []}}
    board = lambda d: d.rectangle((100, 120, 700, 520), fill="#101820")  # noqa: E731
    drawing = content.media_quality(states, None, visual.canvases([("S0", _png(_game))], states))
    blank = content.media_quality(states, None, visual.canvases([("S0", _png(board))], states))
    assert drawing.value == 100.0 and blank.value == 0.0
    assert "1 blank" in blank.reason
