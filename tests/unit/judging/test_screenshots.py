"""Screenshot choice: blank and half-loaded frames dropped, variety preferred."""

from __future__ import annotations

from fakes.judge_evidence import png

from iwcbench.pipeline.stages.judging import screenshots


def _rich(accent: str, rows: int = 6):
    def draw(d):
        d.rectangle((0, 0, 640, 60), fill=accent)
        for i in range(rows):
            d.rectangle((20, 80 + i * 50, 620, 120 + i * 50), outline="black", width=2)
            d.text((40, 92 + i * 50), f"row {i} with some words", fill="black")
    return png(draw)


def test_blank_and_spinner_frames_are_dropped():
    blank = png(lambda d: None)
    dark = png(lambda d: None, background="black")
    spinner = png(lambda d: d.ellipse((315, 195, 325, 205), outline="grey"))
    picked = screenshots.select([("a", blank), ("b", _rich("#224488")), ("c", dark), ("d", spinner)])
    assert picked.chosen == ("b",)
    assert picked.dropped["a"].startswith("blank") and picked.dropped["c"].startswith("blank")
    assert picked.dropped["d"].startswith(("blank", "half-loaded"))


def test_half_loaded_frame_is_judged_against_the_apps_richest_frame():
    def header_only_draw(d):
        d.rectangle((0, 0, 640, 14), fill="#224488")
        d.text((20, 30), "Loading", fill="black")
    header_only = png(header_only_draw)
    picked = screenshots.select([("full", _rich("#224488")), ("partial", header_only)])
    assert picked.chosen == ("full",)
    assert picked.dropped["partial"].startswith("half-loaded")
    # alone, the same minimal frame is not punished for being minimal
    assert screenshots.select([("partial", header_only)]).chosen == ("partial",)


def test_farthest_point_sampling_prefers_variety_and_is_deterministic():
    same = _rich("#224488")
    shots = [("s0", same), ("s1", same), ("s2", same), ("red", _rich("#cc2222", 2)),
             ("green", _rich("#22aa22", 4))]
    first = screenshots.select(shots, limit=3)
    assert first.chosen == ("s0", "red", "green")  # duplicates of the first frame lose
    assert screenshots.select(shots, limit=3) == first
    assert len(screenshots.select(shots, limit=5).chosen) == 3  # exact duplicates add nothing


def test_at_most_the_limit_is_returned():
    shots = [(f"k{i}", _rich(f"#{i * 40:02x}2222", i % 6 + 1)) for i in range(6)]
    assert len(screenshots.select(shots, limit=5).chosen) == 5
