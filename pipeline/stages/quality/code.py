"""Code metrics from the static tools' answer: 3 error handling, 5 linting, 20 code
redundancy, 21 comment rate (definitions in contracts/metrics.py). Linting counts only the
lines some linter read: what static.mjs lists as ``unlinted`` (a component's template,
SCSS/Less) is named in the reason, never a finding and never in the denominator.

Pure: the tools' JSON (static.mjs) and the code units in, scores out.
"""

from __future__ import annotations

import re
from typing import Sequence

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.stages.quality import sources as sources_mod

LINT_HALF = 20.0  # findings per 1000 lines that score 50
SEVERITY = {"error": 1.0, "warning": 0.5}
FATAL_WEIGHT = 10.0  # a file that does not parse
REDUNDANCY_ZERO = 0.25  # duplicated share that scores 0
COMMENT_BAND = (0.10, 0.30)
COMMENT_ZERO = 0.60
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# SCSS and Less add line comments; "//" after a colon is a URL's (url(http://…))
_SASS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\w])//[^\n]*", re.DOTALL)


def _lines(units: Sequence[sources_mod.Unit], unlinted: set[str]) -> int:
    """Non-blank lines of the linted code, each line counted once: a linted file counts
    all of its lines (a page's inline blocks are part of them); a file whose markup no
    tool reads (``unlinted``: a component's template) counts only its linted blocks."""
    total = 0
    for u in units:
        if "#" not in u.name:
            total += 0 if u.name in unlinted else sources_mod.non_blank_lines(u.text)
        elif u.name.split("#", 1)[0] in unlinted and u.name not in unlinted:
            total += sources_mod.non_blank_lines(u.text)
    return total


def _unlinted_text(skipped: Sequence[dict]) -> str:
    """"2 scss (no Stylelint syntax …), 1 vue (a component template …)": what no linter read."""
    by_reason: dict[tuple[str, str], int] = {}
    for s in skipped:
        key = (s.get("language", "?"), s.get("reason", ""))
        by_reason[key] = by_reason.get(key, 0) + 1
    return "; ".join(f"{n} {lang} ({why})" for (lang, why), n in sorted(by_reason.items()))


def linting(answer: dict, units: Sequence[sources_mod.Unit]) -> metrics.Score:
    name = "wcb_linting"
    skipped = answer.get("unlinted") or []
    unlinted = {s["unit"] for s in skipped}
    lines = _lines(units, unlinted)
    if not lines:
        what = f" (not linted: {_unlinted_text(skipped)})" if skipped else ""
        return metrics.not_applicable(name, f"no HTML, CSS, JavaScript or TypeScript a linter reads{what}")
    findings = answer.get("lint", [])
    fatal = answer.get("fatal", [])
    weight = sum(SEVERITY.get(f.get("severity"), 1.0) for f in findings) + FATAL_WEIGHT * len(fatal)
    density = 1000.0 * weight / lines
    value = 100.0 * LINT_HALF / (LINT_HALF + density)
    by_rule: dict[str, int] = {}
    for f in findings:
        key = f"{f['tool']}:{f['rule']}"
        by_rule[key] = by_rule.get(key, 0) + 1
    top = ", ".join(f"{r} ×{n}" for r, n in sorted(by_rule.items(), key=lambda x: (-x[1], x[0]))[:4])
    reason = (f"{len(findings)} finding{'s' * (len(findings) != 1)}"
              + (f" and {len(fatal)} file{'s' * (len(fatal) != 1)} that do not parse" if fatal else "")
              + f" in {lines} lines ({density:.1f} weighted per 1000)" + (f": {top}" if top else "")
              + (f"; not linted, and not counted: {_unlinted_text(skipped)}" if skipped else ""))
    cites = [f"{f['unit']}:{f['line']}" for f in [*fatal, *findings][:8]]
    return metrics.score(name, round(value, 2), reason, cites,
                         {"findings": len(findings), "fatal": fatal[:10], "lines": lines, "by_rule": by_rule,
                          "per_1000": round(density, 3), "unlinted": skipped[:20]})


def _share(items: Sequence[dict], key: str) -> float | None:
    return sum(1 for i in items if i.get(key)) / len(items) if items else None


def error_handling(answer: dict) -> metrics.Score:
    name = "wcb_error_handling"
    facts = [f for f in (answer.get("handling") or {}).values() if f]
    if not answer.get("handling"):
        return metrics.not_applicable(name, "no JavaScript or TypeScript in the app's sources")
    if not facts:
        return metrics.score(name, None, "none of the app's JavaScript parses")
    risky = [r for f in facts for r in f.get("risky", [])]
    asynchronous = [c for f in facts for c in [*f.get("chains", []), *f.get("awaits", [])]]
    readers = [r for f in facts for r in f.get("readers", [])]
    parts = {"risky calls guarded": (_share(risky, "guarded"), len(risky)),
             "promise chains and awaits handled": (_share(asynchronous, "handled"), len(asynchronous)),
             "input-reading functions that check the input": (_share(readers, "validates"), len(readers))}
    present = {k: (share, n) for k, (share, n) in parts.items() if share is not None}
    if not present:
        return metrics.not_applicable(name, "the code makes no risky call, uses no promise and reads no input: "
                             "nothing to handle")
    value = 100.0 * sum(share for share, _ in present.values()) / len(present)
    reason = "; ".join(f"{round(share * n)} of {n} {what}" for what, (share, n) in present.items())
    unguarded = [f"{r['call']} at line {r['line']}" for r in risky if not r.get("guarded")][:8]
    return metrics.score(name, round(value, 2), reason, unguarded,
                         {k: {"share": round(s, 4), "count": n} for k, (s, n) in present.items()})


def redundancy(answer: dict, units: Sequence[sources_mod.Unit]) -> metrics.Score:
    name = "wcb_redundancy"
    texts = {u.name: (u.skeleton if u.skeleton is not None else u.text) for u in units}
    total = sum(sources_mod.non_blank_lines(t) for t in texts.values())
    if not total:
        return metrics.not_applicable(name, "no source lines to compare")
    duplicated: dict[str, set[int]] = {}
    for clone in answer.get("clones", []):
        for side in (clone["a"], clone["b"]):
            lines = texts.get(side["unit"], "").splitlines()
            marked = duplicated.setdefault(side["unit"], set())
            marked.update(n for n in range(side["start"], side["end"] + 1)
                          if 0 < n <= len(lines) and lines[n - 1].strip())
    dup = sum(len(v) for v in duplicated.values())
    share = dup / total
    value = 100.0 * max(0.0, 1.0 - share / REDUNDANCY_ZERO)
    clones = answer.get("clones", [])
    cites = [f"{c['a']['unit']}:{c['a']['start']} = {c['b']['unit']}:{c['b']['start']}" for c in clones[:8]]
    return metrics.score(name, round(value, 2),
                         f"{dup} of {total} lines ({100 * share:.1f} %) inside {len(clones)} duplicated "
                         f"block{'s' * (len(clones) != 1)}", cites,
                         {"duplicated_lines": dup, "lines": total, "clones": len(clones)})


def _comment_lines(unit: sources_mod.Unit, js_lines: dict[str, list[int]]) -> set[int]:
    if unit.language in ("js", "ts"):
        first = unit.first_line
        return {n - first + 1 for n in js_lines.get(unit.name, [])}
    pattern = {"css": _CSS_COMMENT, "scss": _SASS_COMMENT, "less": _SASS_COMMENT}.get(unit.language, _HTML_COMMENT)
    text = unit.skeleton if unit.skeleton is not None else unit.text
    found: set[int] = set()
    for match in pattern.finditer(text):
        start = text.count("\n", 0, match.start()) + 1
        found.update(range(start, start + match.group().count("\n") + 1))
    return found


def comments(answer: dict, units: Sequence[sources_mod.Unit]) -> metrics.Score:
    name = "wcb_comments"
    js_lines = answer.get("comments") or {}
    commented, total = 0, 0
    for u in units:
        text = u.skeleton if u.skeleton is not None else u.text
        lines = text.splitlines()
        marked = _comment_lines(u, js_lines)
        total += sum(1 for line in lines if line.strip())
        commented += sum(1 for n in marked if 0 < n <= len(lines) and lines[n - 1].strip())
    if not total:
        return metrics.not_applicable(name, "no source lines")
    share = commented / total
    low, high = COMMENT_BAND
    if share < low:
        value = 100.0 * share / low
    elif share <= high:
        value = 100.0
    else:
        value = 100.0 * max(0.0, 1.0 - (share - high) / (COMMENT_ZERO - high))
    where = "inside" if low <= share <= high else ("below" if share < low else "above")
    return metrics.score(name, round(value, 2),
                         f"{commented} of {total} lines hold a comment ({100 * share:.1f} %, {where} the "
                         f"{100 * low:.0f}-{100 * high:.0f} % band)",
                         raw={"comment_lines": commented, "lines": total})
