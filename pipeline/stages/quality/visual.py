"""Visual metrics: 9 layout consistency (probe boxes across states), 10 layout
sparsity and 11 visual harmony (screenshots, plus text colours from the probe).
Definitions in contracts/metrics.py.

Pure: PNG bytes and probe facts in, scores out (Pillow decodes; nothing is written).
"""

from __future__ import annotations

import colorsys
import functools
import io
import re
import statistics
from typing import Any, Mapping, Sequence, cast

from PIL import Image, ImageMath

from iwcbench.pipeline.contracts import metrics

CELL = 16  # px
DETAIL = 8.0  # luminance standard deviation that makes a cell "occupied"
SPARSE_BAND = (0.08, 0.50)
ALIGN_PX = 2
LANDMARK_PX = 4
PALETTE_GOOD, PALETTE_BAD = 6, 20
PALETTE_COVER = 0.95
MERGE_DISTANCE = 24.0  # RGB distance under which two palette colours are one
SATURATED = (0.25, 0.20)  # minimum saturation and value of a "coloured" pixel
# Matsuda's harmonic hue templates (Cohen-Or et al. 2006): sectors (centre, width) in degrees.
TEMPLATES = {"i": ((0, 18),), "V": ((0, 93.6),), "L": ((0, 18), (90, 79.2)), "I": ((0, 18), (180, 18)),
             "T": ((0, 180),), "Y": ((0, 93.6), (180, 18)), "X": ((0, 93.6), (180, 93.6))}
_RGB = re.compile(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)")


def _pixels(img: Image.Image) -> Sequence[Any]:
    """The pixel values (Pillow ≥ 12 names it get_flattened_data; getdata before)."""
    # (Pillow documents getdata's result as a sequence of pixel values, and types it as its C core object)
    return cast(Sequence[Any], getattr(img, "get_flattened_data", img.getdata)())


@functools.lru_cache(maxsize=8)  # sparsity and harmony read the same screenshots: decoded once
def _image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def occupancy(png: bytes) -> float:
    """Share of CELL×CELL cells whose luminance varies (text, edges, pictures)."""
    grey = _image(png).convert("F")
    cols, rows = max(1, grey.width // CELL), max(1, grey.height // CELL)
    grey = grey.crop((0, 0, cols * CELL, rows * CELL))
    mean = grey.resize((cols, rows), Image.Resampling.BOX)
    square = ImageMath.lambda_eval(lambda a: a["g"] * a["g"], g=grey).resize((cols, rows), Image.Resampling.BOX)
    variance = ImageMath.lambda_eval(lambda a: a["s"] - a["m"] * a["m"], s=square, m=mean)
    busy = sum(1 for v in _pixels(variance) if v > DETAIL * DETAIL)
    return busy / (cols * rows)


# Pixels are content: a canvas or video whose pixels in the screenshot are not one flat
# colour shows something (a drawn game, a chart, a frame of video), whatever the DOM says.
DRAWN_TAGS = ("canvas", "video")
DRAWN_INSET = 2  # px left off each edge of an element's box (its border, anti-aliasing)
DRAWN_SHARE = 0.001  # share of a box's pixels away from its commonest shade that makes it drawn
SHOWS_SHARE = 0.005  # share of a screenshot's cells holding detail that makes a screen show something


def _drawn_box(img: Image.Image, box: Sequence[float], scroll: Sequence[float], scale: float) -> bool | None:
    """Whether the pixels inside ``box`` (page coordinates) are drawn: more than
    DRAWN_SHARE of them differ from the box's commonest luminance by more than DETAIL;
    None when the box is not on the screenshot."""
    left = (box[0] - scroll[0]) * scale + DRAWN_INSET
    top = (box[1] - scroll[1]) * scale + DRAWN_INSET
    right = min(img.width, left + box[2] * scale - 2 * DRAWN_INSET)
    bottom = min(img.height, top + box[3] * scale - 2 * DRAWN_INSET)
    left, top = max(0.0, left), max(0.0, top)
    if right - left < 1 or bottom - top < 1:
        return None
    histogram = img.crop((int(left), int(top), int(right), int(bottom))).convert("L").histogram()
    total = sum(histogram)
    common = max(range(256), key=histogram.__getitem__)
    away = sum(n for shade, n in enumerate(histogram) if abs(shade - common) > DETAIL)
    return away / total > DRAWN_SHARE


def _seen(shots: Sequence[tuple[str, bytes]], states: Mapping[str, dict]) -> dict[tuple[str, str], bool]:
    """(state id, element path) → whether the pixels of that canvas or video show
    something, for those on their state's screenshot."""
    found: dict[tuple[str, str], bool] = {}
    for state, png in shots:
        facts = states.get(state) or {}
        boxes = [b for b in facts.get("boxes", []) if b.get("tag") in DRAWN_TAGS and len(b.get("box") or ()) == 4]
        if not boxes:
            continue
        img = _image(png)
        viewport = facts.get("viewport") or [img.width]
        scale = img.width / viewport[0] if viewport[0] else 1.0
        scroll = facts.get("scroll") or [0, 0]
        for b in boxes:
            shows = _drawn_box(img, b["box"], scroll, scale)
            if shows is not None:
                found[(state, b["path"])] = shows
    return found


def drawn(shots: Sequence[tuple[str, bytes]], states: Mapping[str, dict]) -> list[str]:
    """The canvases and videos whose pixels show something in the screenshots of the
    states (``state id: element path``): what the DOM alone cannot tell."""
    return [f"{state}: {path}" for (state, path), shows in _seen(shots, states).items() if shows]


def canvases(shots: Sequence[tuple[str, bytes]], states: Mapping[str, dict]) -> dict[str, bool]:
    """Each canvas on a screenshot (element path) → whether its pixels show something
    in one of them (a canvas drawn in any state is drawn)."""
    out: dict[str, bool] = {}
    for (state, path), shows in _seen(shots, states).items():
        tag = next((b.get("tag") for b in (states.get(state) or {}).get("boxes", []) if b.get("path") == path), None)
        if tag == "canvas":
            out[path] = out.get(path, False) or shows
    return out


def shows_something(png: bytes) -> bool:
    """Whether a screenshot shows anything: more than SHOWS_SHARE of its cells hold detail."""
    return occupancy(png) > SHOWS_SHARE


def _sparsity_value(share: float) -> float:
    low, high = SPARSE_BAND
    if share < low:
        return 100.0 * share / low
    if share <= high:
        return 100.0
    return 100.0 * max(0.0, 1.0 - (share - high) / (1.0 - high))


def layout_sparsity(shots: Sequence[tuple[str, bytes]]) -> metrics.Score:
    name = "wcb_layout_sparsity"
    if not shots:
        return metrics.score(name, None, "not measured: no screenshot was taken")
    shares = {state: occupancy(png) for state, png in shots}
    values = {state: _sparsity_value(s) for state, s in shares.items()}
    value = statistics.fmean(values.values())
    mean_share = statistics.fmean(shares.values())
    low, high = SPARSE_BAND
    return metrics.score(name, round(value, 2),
                         f"{100 * mean_share:.0f} % of the screen holds content on average over {len(shots)} "
                         f"state{'s' * (len(shots) != 1)} (best {100 * low:.0f}-{100 * high:.0f} %)",
                         [s for s, v in sorted(values.items(), key=lambda x: x[1])[:4]],
                         {"occupied": {s: round(v, 4) for s, v in shares.items()}})


def palette_size(img: Image.Image) -> int:
    """Colours (near ones merged) needed to cover PALETTE_COVER of the pixels."""
    small = img.resize((min(320, img.width), min(200, img.height)), Image.Resampling.NEAREST)
    quant = small.quantize(colors=48, method=Image.Quantize.MEDIANCUT)
    flat = quant.getpalette() or []
    # (a palette image's colours are (count, palette index); Pillow's stub is the union over every mode)
    colors = cast("list[tuple[int, int]]", quant.getcolors() or [])
    counted = sorted(((n, tuple(flat[3 * i: 3 * i + 3])) for n, i in colors), reverse=True)
    merged: list[list] = []  # [count, rgb]
    for n, rgb in counted:
        for m in merged:
            if sum((a - b) ** 2 for a, b in zip(m[1], rgb)) ** 0.5 < MERGE_DISTANCE:
                m[0] += n
                break
        else:
            merged.append([n, rgb])
    merged.sort(key=lambda m: -m[0])
    total, running = sum(m[0] for m in merged), 0
    for k, m in enumerate(merged, 1):
        running += m[0]
        if running >= PALETTE_COVER * total:
            return k
    return len(merged)


def hue_fit(img: Image.Image) -> float | None:
    """Share of saturated pixels inside the best-fitting harmonic template; None when
    the picture has no colour (grey is in harmony with anything)."""
    small = img.resize((min(160, img.width), min(100, img.height)), Image.Resampling.NEAREST)
    hist = [0.0] * 360
    for r, g, b in _pixels(small):
        h, s, v = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)
        if s >= SATURATED[0] and v >= SATURATED[1]:
            hist[int(h * 360) % 360] += 1
    total = sum(hist)
    if total < 0.01 * small.width * small.height:
        return None
    prefix = [0.0]
    for count in hist + hist:  # twice round the wheel, so a sector may wrap
        prefix.append(prefix[-1] + count)

    def within(start: float, width: float) -> float:
        first = int(round(start)) % 360
        return prefix[first + int(round(width)) + 1] - prefix[first]

    best = 0.0
    for sectors in TEMPLATES.values():
        for rotation in range(0, 360, 5):
            inside = sum(within(rotation + centre - width / 2, width) for centre, width in sectors)
            best = max(best, min(1.0, inside / total))
    return best


def _rgba(text: str | None) -> tuple[float, float, float, float] | None:
    match = _RGB.match(text or "")
    if not match:
        return None
    r, g, b, a = match.groups()
    return float(r), float(g), float(b), float(a) if a is not None else 1.0


def _number(text: object, default: float) -> float:
    try:
        return float(str(text))
    except ValueError:
        return default


def _luminance(rgb: Sequence[float]) -> float:  # (r, g, b)
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(color: str | None, background: str | None) -> float | None:
    """WCAG contrast ratio of a text colour over its background (alpha blended)."""
    fg, bg = _rgba(color), _rgba(background)
    if fg is None or bg is None:
        return None
    a = fg[3]
    blended = tuple(a * f + (1 - a) * b for f, b in zip(fg[:3], bg[:3]))
    l1, l2 = sorted((_luminance(blended), _luminance(bg[:3])), reverse=True)
    return (l1 + 0.05) / (l2 + 0.05)


def _contrast_share(states: Mapping[str, dict]) -> tuple[float, int] | None:
    seen: dict[tuple[str, str], bool] = {}
    for facts in states.values():
        for t in facts.get("texts", []):
            ratio = contrast(t.get("color"), t.get("background"))
            if ratio is None:
                continue
            size = t.get("size") or 0
            large = size >= 24 or (size >= 18.66 and _number(t.get("weight"), 400) >= 700)
            seen.setdefault((t["path"], t["text"]), ratio >= (3.0 if large else 4.5))
    if not seen:
        return None
    return sum(seen.values()) / len(seen), len(seen)


def visual_harmony(shots: Sequence[tuple[str, bytes]], states: Mapping[str, dict],
                   thin: str | None = None) -> metrics.Score:
    """Palette, hue harmony and text contrast; ``thin``: why the page shows almost
    nothing (content.thin), which scores 0."""
    name = "wcb_visual_harmony"
    if not shots:
        return metrics.score(name, None, "not measured: no screenshot was taken")
    if thin:
        return metrics.score(name, 0.0, thin)
    images = [_image(png) for _, png in shots]
    sizes = [palette_size(img) for img in images]
    palette = statistics.fmean(100.0 * min(1.0, max(0.0, (PALETTE_BAD - k) / (PALETTE_BAD - PALETTE_GOOD)))
                               for k in sizes)
    fits = [f for img in images if (f := hue_fit(img)) is not None]
    parts = {"palette": palette}
    if fits:  # a page without saturated colour has no hues to judge: the part is left out
        parts["hue harmony"] = 100.0 * statistics.fmean(fits)
    notes = [f"{statistics.fmean(sizes):.1f} colours cover 95 % of a screen",
             f"{100 * statistics.fmean(fits):.0f} % of coloured pixels fit a harmonic template" if fits
             else "no saturated colour: hue harmony left out"]
    share = _contrast_share(states)
    if share is not None:
        parts["contrast"] = 100.0 * share[0]
        notes.append(f"{round(share[0] * share[1])} of {share[1]} texts meet WCAG AA contrast")
    value = statistics.fmean(parts.values())
    return metrics.score(name, round(value, 2), "; ".join(notes),
                         raw={"parts": {k: round(v, 2) for k, v in parts.items()}, "palette_sizes": sizes})


def _aligned_share(boxes: Sequence[dict]) -> float | None:
    leaves = [b for b in boxes if b.get("leaf") and b["box"][2] > 0]
    if len(leaves) < 3:
        return None
    lines = [(b["box"][0], b["box"][0] + b["box"][2] / 2, b["box"][0] + b["box"][2]) for b in leaves]
    aligned = 0
    for i, (left, centre, right) in enumerate(lines):
        if any(j != i and (abs(left - o[0]) <= ALIGN_PX or abs(centre - o[1]) <= ALIGN_PX or abs(right - o[2]) <= ALIGN_PX)
               for j, o in enumerate(lines)):
            aligned += 1
    return aligned / len(leaves)


def _spacing(boxes: Sequence[dict]) -> tuple[float, int] | None:
    """Gap regularity between neighbours of the same kind: siblings stacked (or set in
    a row) are paired in order, the gaps of one kind of pair (h2 → p, label → input,
    li → li) compared by 1 − their coefficient of variation (at least 0), weighted by
    how many gaps each kind has. A label sits closer to its input than a section to
    the next one; that is design, not inconsistency."""
    by_parent: dict[str, list[dict]] = {}
    for b in boxes:
        by_parent.setdefault(b.get("parent", ""), []).append(b)
    gaps: dict[tuple[str, str], list[float]] = {}
    for children in by_parent.values():
        if len(children) < 2:
            continue
        for axis, size in ((1, 3), (0, 2)):  # a column, else a row
            ordered = sorted(children, key=lambda b: b["box"][axis])
            found = [b["box"][axis] - (a["box"][axis] + a["box"][size]) for a, b in zip(ordered, ordered[1:])]
            if all(g >= -1 for g in found):
                for (a, b), g in zip(zip(ordered, ordered[1:]), found):
                    gaps.setdefault((a.get("tag", ""), b.get("tag", "")), []).append(max(0.0, g))
                break
    total, weight = 0.0, 0
    for kind in gaps.values():
        if len(kind) < 2:
            continue
        mean = statistics.fmean(kind)
        regular = 1.0 if mean == 0 else max(0.0, 1.0 - statistics.pstdev(kind) / mean)
        total += regular * len(kind)
        weight += len(kind)
    return (total / weight, weight) if weight else None


def _stability(states: Mapping[str, dict]) -> float | None:
    if len(states) < 2:
        return None
    first: dict[str, list[int]] = {}
    kept, seen = 0, 0
    for facts in states.values():
        for name, box in (facts.get("landmarks") or {}).items():
            if name not in first:
                first[name] = box
                continue
            seen += 1
            kept += all(abs(a - b) <= LANDMARK_PX for a, b in zip(first[name][:3], box[:3]))
    return kept / seen if seen else None


def layout_consistency(states: Mapping[str, dict]) -> metrics.Score:
    name = "wcb_layout_consistency"
    if not states:
        return metrics.score(name, None, "not measured: no state was rendered")
    aligned = [a for facts in states.values() if (a := _aligned_share(facts.get("boxes", []))) is not None]
    spacing = [s for facts in states.values() if (s := _spacing(facts.get("boxes", []))) is not None]
    parts: dict[str, float] = {}
    if aligned:
        parts["alignment"] = 100.0 * statistics.fmean(aligned)
    if spacing:
        parts["spacing"] = 100.0 * sum(v * w for v, w in spacing) / sum(w for _, w in spacing)
    stable = _stability(states)
    if stable is not None:
        parts["stability"] = 100.0 * stable
    if not parts:
        return metrics.not_applicable(name, "too few boxes in the rendered states to judge alignment or spacing")
    value = statistics.fmean(parts.values())
    return metrics.score(name, round(value, 2),
                         "; ".join(f"{k} {v:.0f}" for k, v in parts.items()) + f" over {len(states)} "
                         f"state{'s' * (len(states) != 1)}", raw={"parts": {k: round(v, 2) for k, v in parts.items()}})
