"""Content metrics over the rendered states: 12 copywriting, 13 media quality, 14
placeholder quality (definitions in contracts/metrics.py).

Pure: the probe's facts per state, the dictionary's verdicts and the requirement in,
scores out. ``spelling_candidates`` says which words to look up (static.mjs does).
"""

from __future__ import annotations

import collections
import re
import statistics
import urllib.parse
from typing import Iterable, Mapping

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.kits.mirror import rule

WORD = re.compile(r"[^\W\d_](?:[^\W\d_']*[^\W\d_])?")
MIN_WORDS = 20  # fewer checkable words: spelling says nothing
# A page with fewer words, no media and fewer content boxes shows almost nothing: the
# metrics that measure what it shows score it 0 rather than unscored or a constant 100
THIN_WORDS = 5
THIN_BOXES = 3
MISSPELLED_ZERO = 0.05
TRUNCATION_WEIGHT = 10
LOREM = re.compile(r"lorem ipsum|dolor sit amet|consectetur adipiscing", re.IGNORECASE)
PLACEHOLDER_BASE = 0.8
PLACEHOLDER_TEXT = (
    ("marker", re.compile(r"\b(TODO|FIXME|TBD|XXX)\b")),
    ("template text", re.compile(r"\b(your (text|title|name|content|description|heading) here|insert [\w ]{1,24} here|"
                                 r"placeholder text|coming soon|sample text)\b", re.IGNORECASE)),
    ("unrendered template", re.compile(r"\{\{\s*[\w.]+\s*\}\}|\$\{[\w.]+\}")),
    ("unfilled value", re.compile(r"\bundefined\b|\bNaN\b|\[object Object\]")),
)
PLACEHOLDER_IMAGE_HOSTS = ("via.placeholder.com", "placehold.co", "placehold.it", "placeholder.com",
                           "dummyimage.com", "placekitten.com", "picsum.photos", "fakeimg.pl", "loremflickr.com",
                           "lorempixel.com", "placebear.com", "placeimg.com")
EXAMPLE_HOSTS = re.compile(r"(^|\.)example\.(com|org|net)$", re.IGNORECASE)
UPSCALE = 2.0
STRETCH = 0.05


def _texts(states: Mapping[str, dict]) -> list[dict]:
    seen: dict[tuple[str, str], dict] = {}
    for facts in states.values():
        for t in facts.get("texts", []):
            seen.setdefault((t["path"], t["text"]), t)
    return list(seen.values())


def thin(states: Mapping[str, dict], drawn: int = 0) -> str | None:
    """Why the rendered states show almost nothing — fewer than THIN_WORDS words, no
    image or media, no canvas or video whose pixels show something in the screenshots
    (``drawn``: visual.drawn) and fewer than THIN_BOXES content boxes, all states
    together —, or None (also when no state was rendered: that is ours, not the app's)."""
    if not states:
        return None
    words = sum(len(WORD.findall(t["text"])) for t in _texts(states))
    media = sum(len(facts.get("media", [])) for facts in states.values())
    boxes = max(sum(1 for b in facts.get("boxes", []) if b.get("leaf")) for facts in states.values())
    if words >= THIN_WORDS or media or drawn or boxes >= THIN_BOXES:
        return None
    return (f"the page as loaded shows almost nothing ({words} word{'s' * (words != 1)}, {boxes} content "
            f"box{'es' * (boxes != 1)}, no image or media, no canvas or video with drawn pixels): nothing here "
            f"to measure, scored 0")


def _tokens(text: str) -> list[str]:
    """Words of a text; words with letters outside ASCII (another language, a name
    with accents) are not for an English dictionary and are left out."""
    return [w for w in WORD.findall(text.replace("\u2019", "'")) if w.isascii()]


def spelling_candidates(states: Mapping[str, dict], prompt: str = "") -> list[str]:
    """The lowercase words to look up: from lowercase and Capitalised tokens of three
    letters or more, not named in the requirement (domain words the user used)."""
    asked = {w.lower() for w in _tokens(prompt)}
    words = set()
    for t in _texts(states):
        for token in _tokens(t["text"]):
            if len(token) >= 3 and (token.islower() or (token[0].isupper() and token[1:].islower())):
                if token.lower() not in asked:
                    words.add(token.lower())
    return sorted(words)


def _casing(label: str) -> str | None:
    words = [w for w in _tokens(label) if len(w) > 1]
    if not words:
        return None
    letters = "".join(words)
    if letters.isupper():
        return "UPPER"
    if letters.islower():
        return "lower"
    if len(words) < 2:
        return None  # one capitalised word reads the same in title and sentence case
    long = [w for w in words[1:] if len(w) >= 4]
    if long and all(w[0].isupper() for w in long):
        return "Title Case"
    if words[0][0].isupper() and all(w[0].islower() for w in long):
        return "Sentence case"
    return "mixed"


def copywriting(states: Mapping[str, dict], unknown: Iterable[str] | None, prompt: str = "") -> metrics.Score:
    name = "wcb_copywriting"
    texts = _texts(states)
    if not states or not texts:
        if states:
            return metrics.not_applicable(name, "no visible text in the rendered states")
        return metrics.score(name, None, "not measured: no state was rendered")
    parts: dict[str, float] = {}
    notes: list[str] = []
    raw: dict = {}
    asked = {w.lower() for w in _tokens(prompt)}
    checked = [tok for t in texts for tok in _tokens(t["text"]) if len(tok) >= 3 and tok.islower()
               and tok not in asked]
    if unknown is not None and len(checked) >= MIN_WORDS:
        wrong = set(unknown)
        bad = [tok for tok in checked if tok in wrong]
        share = len(bad) / len(checked)
        parts["spelling"] = 100.0 * max(0.0, 1.0 - share / MISSPELLED_ZERO)
        notes.append(f"{len(bad)} of {len(checked)} words not in the dictionaries"
                     + (f" ({', '.join(sorted(set(bad))[:5])})" if bad else ""))
        raw["misspelled"] = sorted(set(bad))[:30]
    lorem = [t["text"][:60] for t in texts if LOREM.search(t["text"])]
    parts["no lorem ipsum"] = 0.0 if lorem else 100.0
    if lorem:
        notes.append(f"lorem ipsum in {len(lorem)} text{'s' * (len(lorem) != 1)}")
    casing = []
    for role in ("heading", "button"):
        styles = [s for t in texts if t.get("role") == role and (s := _casing(t["text"])) is not None]
        if len(styles) >= 2:
            top, count = collections.Counter(styles).most_common(1)[0]
            casing.append(count / len(styles))
            notes.append(f"{count} of {len(styles)} {role}s in {top}")
    if casing:
        parts["casing"] = 100.0 * statistics.fmean(casing)
    clipped = [t for t in texts if t.get("clipped")]
    parts["untruncated"] = 100.0 * max(0.0, 1.0 - TRUNCATION_WEIGHT * len(clipped) / len(texts))
    if clipped:
        notes.append(f"{len(clipped)} of {len(texts)} texts clipped")
    value = statistics.fmean(parts.values())
    raw["parts"] = {k: round(v, 2) for k, v in parts.items()}
    return metrics.score(name, round(value, 2), "; ".join(notes) or f"{len(texts)} texts, no problem found",
                         [t["path"] for t in clipped[:4]], raw)


def _defects(item: dict) -> list[str]:
    out = []
    if item.get("blank"):
        out.append("blank")
    if item.get("broken"):
        out.append("broken")
    natural = item.get("natural") or [0, 0]
    box = item.get("box") or [0, 0]
    if not item.get("broken") and not item.get("vector") and natural[0] > 0 and natural[1] > 0 and box[0] > 0 and box[1] > 0:
        if box[0] > UPSCALE * natural[0] or box[1] > UPSCALE * natural[1]:
            out.append("upscaled")
        if item.get("fit") in (None, "", "fill") and abs((box[0] / box[1]) / (natural[0] / natural[1]) - 1) > STRETCH:
            out.append("stretched")
    if item.get("tag") in ("img", "input") and item.get("alt") is None:
        out.append("unlabelled")
    return out


def media_quality(states: Mapping[str, dict], app_origin: str | None = None,
                  canvases: Mapping[str, bool] | None = None) -> metrics.Score:
    """Share of the images and media without a defect. One that did not load from a host
    our sandbox refuses (``app_origin`` given: the rule of kits/mirror/rule.py) is
    ``blocked_by_sandbox``: left out, not broken, as it may well load on the open web.
    ``canvases`` (element path → whether its pixels show something in a screenshot,
    visual.canvases) are media too: pixels are content, and a canvas left blank is a defect."""
    name = "wcb_media_quality"
    if not states:
        return metrics.score(name, None, "not measured: no state was rendered")
    seen: dict[tuple[str, str], dict] = {}
    for facts in states.values():
        for m in facts.get("media", []):
            seen.setdefault((m["path"], m.get("src", "")), m)
    for path, shows in (canvases or {}).items():
        seen[(path, "")] = {"tag": "canvas", "path": path, "src": "", "vector": True, "blank": not shows}
    blocked = sorted({m.get("src", "") for m in seen.values() if app_origin is not None and m.get("broken")
                      and m.get("src") and rule.decide(m["src"], app_origin).action != "pass"})
    items = [m for m in seen.values() if not (m.get("broken") and m.get("src", "") in blocked)]
    left_out = f"; {len(blocked)} from hosts our sandbox blocks left out" if blocked else ""
    if not items:
        if not blocked:
            return metrics.not_applicable(name, "no images or media in the rendered states")
        return metrics.score(name, None, "not measured: every image came from a host our sandbox blocks",
                             blocked[:8], {"blocked_by_sandbox": blocked[:30]})
    problems = {f"{m['tag']} {m.get('src') or m['path']}"[:120]: d for m in items if (d := _defects(m))}
    value = 100.0 * (len(items) - len(problems)) / len(items)
    kinds = collections.Counter(d for ds in problems.values() for d in ds)
    reason = (f"{len(items) - len(problems)} of {len(items)} images, media and canvases without a defect"
              + (": " + ", ".join(f"{n} {k}" for k, n in kinds.most_common()) if kinds else "") + left_out)
    return metrics.score(name, round(value, 2), reason, list(problems)[:8],
                         {"media": len(items), "defects": dict(kinds), "blocked_by_sandbox": blocked[:30]})


def placeholders(states: Mapping[str, dict]) -> metrics.Score:
    name = "wcb_placeholders"
    if not states:
        return metrics.score(name, None, "not measured: no state was rendered")
    # (kind, folded text) → (what was found, where): one finding however often it shows
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for t in _texts(states):
        for kind, pattern in PLACEHOLDER_TEXT:
            for match in pattern.finditer(t["text"]):
                found.setdefault((kind, match.group().lower()), (match.group(), t["text"][:80]))
    for facts in states.values():
        for link in facts.get("links", []):
            href = (link.get("href") or "").strip()
            host = urllib.parse.urlsplit(link.get("resolved") or "").hostname or ""
            if href == "" or EXAMPLE_HOSTS.search(host):
                shown = href or "(empty href)"
                found.setdefault(("placeholder link", shown), (shown, link.get("text") or shown))
        for m in facts.get("media", []):
            host = (urllib.parse.urlsplit(m.get("src") or "").hostname or "").lower()
            if any(host == h or host.endswith("." + h) for h in PLACEHOLDER_IMAGE_HOSTS):
                found.setdefault(("placeholder image", host), (host, m.get("src", "")[:80]))
    value = 100.0 * PLACEHOLDER_BASE ** len(found)
    listed = [f"{kind}: {found[(kind, key)][0]!r}" for kind, key in sorted(found)]
    reason = (f"{len(found)} placeholder{'s' * (len(found) != 1)} left: " + "; ".join(listed[:5])
              if found else "no placeholder text, link or image found")
    return metrics.score(name, round(value, 2), reason, [found[k][1] for k in sorted(found)][:8],
                         {"placeholders": listed[:30]})
