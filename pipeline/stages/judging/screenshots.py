"""Choose the screenshots the aesthetics judge sees: useful, and different.

Two filters, then farthest-point sampling:

* blank: a frame whose foreground (pixels that differ from the dominant background
  grey by more than ``FOREGROUND_DELTA``) covers less than ``MIN_FOREGROUND`` of
  the picture, or whose edge density (share of pixels on an edge, ``EDGE_LEVEL``) is
  below ``MIN_EDGES``: an empty page, a solid colour, a lone spinner.
* half-loaded: a frame much poorer than the app's richest frame, i.e. both its
  foreground and its edge density are below ``RELATIVE_FLOOR`` × the best frame's
  (a page caught before its content arrived); judged relative to the same app so a
  deliberately minimal design is not punished.

Then deterministic farthest-point sampling over 16×16 grey thumbnails: start with the
first usable frame (the first impression), add the frame farthest from everything
chosen, ties to the earlier frame. It must not judge anything; it only picks.
"""

from __future__ import annotations

import dataclasses
import io
import math
from typing import Sequence

from PIL import Image, ImageFilter

ANALYSIS_WIDTH = 256  # pixels; frames are downscaled before measuring (speed, not accuracy)
FOREGROUND_DELTA = 16  # grey levels away from the background colour
EDGE_LEVEL = 48  # FIND_EDGES response that counts as an edge pixel
MIN_FOREGROUND = 0.01  # share of pixels
MIN_EDGES = 0.002  # share of pixels
RELATIVE_FLOOR = 0.25  # of the richest frame's foreground and edge density
THUMB = 16  # thumbnail side for the variety feature


@dataclasses.dataclass(frozen=True)
class Frame:
    key: str
    foreground: float
    edges: float
    feature: tuple[float, ...]


@dataclasses.dataclass(frozen=True)
class Selection:
    chosen: tuple[str, ...]
    dropped: dict[str, str]  # key → why it was not usable


def measure(key: str, png: bytes) -> Frame:
    with Image.open(io.BytesIO(png)) as img:
        grey = img.convert("L")
    if grey.width > ANALYSIS_WIDTH:
        grey = grey.resize((ANALYSIS_WIDTH, max(1, round(grey.height * ANALYSIS_WIDTH / grey.width))))
    hist = grey.histogram()
    background = max(range(256), key=lambda level: hist[level])
    total = grey.width * grey.height
    foreground = sum(n for level, n in enumerate(hist) if abs(level - background) > FOREGROUND_DELTA) / total
    edge_img = grey.filter(ImageFilter.FIND_EDGES)
    # the filter copies the 1-pixel border unfiltered: leave it out of the count
    if edge_img.width > 2 and edge_img.height > 2:
        edge_img = edge_img.crop((1, 1, edge_img.width - 1, edge_img.height - 1))
    edges = sum(edge_img.histogram()[EDGE_LEVEL:]) / (edge_img.width * edge_img.height)
    thumb = grey.resize((THUMB, THUMB), Image.Resampling.BILINEAR)
    feature = tuple(v / 255 for v in thumb.tobytes())  # mode L: one byte per pixel
    return Frame(key, foreground, edges, feature)


def select(shots: Sequence[tuple[str, bytes]], limit: int = 5) -> Selection:
    """Up to ``limit`` usable, varied screenshots (keys in their original order)."""
    frames: list[Frame] = []
    dropped: dict[str, str] = {}
    for key, png in shots:
        try:
            frames.append(measure(key, png))
        except (OSError, ValueError) as exc:
            dropped[key] = f"unreadable image: {exc}"
    usable = []
    for f in frames:
        if f.foreground < MIN_FOREGROUND or f.edges < MIN_EDGES:
            dropped[f.key] = f"blank (foreground {f.foreground:.3f}, edges {f.edges:.4f})"
        else:
            usable.append(f)
    if usable:
        best_fg = max(f.foreground for f in usable)
        best_edges = max(f.edges for f in usable)
        kept = []
        for f in usable:
            if f.foreground < RELATIVE_FLOOR * best_fg and f.edges < RELATIVE_FLOOR * best_edges:
                dropped[f.key] = (f"half-loaded (foreground {f.foreground:.3f} vs best {best_fg:.3f}, "
                                  f"edges {f.edges:.4f} vs best {best_edges:.4f})")
            else:
                kept.append(f)
        usable = kept
    chosen = farthest_points([f.feature for f in usable], limit)
    keys = tuple(usable[i].key for i in sorted(chosen))
    return Selection(keys, dropped)


def farthest_points(features: Sequence[Sequence[float]], limit: int) -> list[int]:
    """Indices picked by farthest-point sampling, starting at index 0."""
    if not features or limit <= 0:
        return []
    chosen = [0]
    nearest = [_distance(features[0], f) for f in features]
    while len(chosen) < min(limit, len(features)):
        best = max(range(len(features)), key=lambda i: (nearest[i], -i))
        if nearest[best] <= 0.0:
            break  # everything left is an exact duplicate of a chosen frame
        chosen.append(best)
        nearest = [min(nearest[i], _distance(features[best], f)) for i, f in enumerate(features)]
    return chosen


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
