"""Style metrics over the rendered states: 7 component style consistency, 8 icon
style consistency (definitions in contracts/metrics.py).

Pure: the probe's facts per state (probe.mjs) in, scores out. An element seen in
several states with the same style counts once.
"""

from __future__ import annotations

import collections
import statistics
from typing import Callable, Mapping

from iwcbench.pipeline.contracts import metrics

ICON_KIND_WEIGHT = 0.6
ICON_SIZE_WEIGHT = 0.4
SIZE_BANDS = (16, 20, 24, 32, 48)  # px; larger is one more band
ROLE_NAMES = {"button": "buttons", "input": "text inputs", "card": "cards"}


def _style(component: dict) -> dict:
    return component.get("style") or {}


def _distinct(states: Mapping[str, dict], kind: str, key: Callable[[dict], tuple],
              keep: Callable[[dict], dict] = lambda item: item) -> list[dict]:
    """The probe's items of one kind over every state, each (by ``key``) once, in the
    order first seen."""
    seen: dict[tuple, dict] = {}
    for facts in states.values():
        for item in facts.get(kind, []):
            seen.setdefault(key(item), keep(item))
    return list(seen.values())


def _modal_share(values: list) -> tuple[float, object]:
    value, count = collections.Counter(values).most_common(1)[0]
    return count / len(values), value


def component_consistency(states: Mapping[str, dict]) -> metrics.Score:
    name = "wcb_component_consistency"
    if not states:
        return metrics.score(name, None, "not measured: no state was rendered")
    seen = _distinct(states, "components", lambda c: (c["role"], c["path"], tuple(sorted(_style(c).items()))),
                     lambda c: {"role": c["role"], "style": _style(c)})
    by_role: dict[str, list[dict]] = collections.defaultdict(list)
    for c in seen:
        by_role[c["role"]].append(c["style"])
    roles = {role: styles for role, styles in by_role.items() if len(styles) >= 2}
    if not roles:
        return metrics.not_applicable(name, "fewer than two buttons, text inputs, cards or headings of one level "
                             "to compare")
    per_role, worst = {}, {}
    for role, styles in sorted(roles.items()):
        props = sorted({p for s in styles for p in s})
        shares = {p: _modal_share([s.get(p) for s in styles])[0] for p in props}
        per_role[role] = statistics.fmean(shares.values())
        worst[role] = min(shares, key=lambda p: (shares[p], p))
    value = 100.0 * statistics.fmean(per_role.values())
    parts = [f"{len(roles[r])} {_plural(r)} {100 * v:.0f} %"
             + (f" (most varied: {worst[r]})" if v < 1 else "") for r, v in per_role.items()]
    return metrics.score(name, round(value, 2), "modal-style share per role: " + "; ".join(parts),
                         raw={"roles": {r: {"elements": len(roles[r]), "share": round(v, 4), "most_varied": worst[r]}
                                        for r, v in per_role.items()}})


def _plural(role: str) -> str:
    if role.startswith("heading "):
        return f"{role.split()[1]} headings"
    return ROLE_NAMES.get(role, role + "s")


def _band(size: float) -> int:
    return next((i for i, top in enumerate(SIZE_BANDS) if size <= top), len(SIZE_BANDS))


def icon_consistency(states: Mapping[str, dict]) -> metrics.Score:
    name = "wcb_icon_consistency"
    if not states:
        return metrics.score(name, None, "not measured: no state was rendered")
    icons = _distinct(states, "icons", lambda icon: (icon["path"], icon["kind"], icon.get("set"), icon.get("size")))
    if len(icons) < 2:
        return metrics.not_applicable(name, f"{len(icons)} icon found: nothing to compare")
    kinds = [i["kind"] if i["kind"] != "font" else f"font:{i.get('set') or 'font'}" for i in icons]
    kind_share, top_kind = _modal_share(kinds)
    size_share, _ = _modal_share([_band(i.get("size") or 0) for i in icons])
    value = 100.0 * (ICON_KIND_WEIGHT * kind_share + ICON_SIZE_WEIGHT * size_share)
    mix = collections.Counter(kinds)
    return metrics.score(name, round(value, 2),
                         f"{len(icons)} icons: " + ", ".join(f"{n} {k}" for k, n in mix.most_common())
                         + f"; {100 * kind_share:.0f} % of the most used kind ({top_kind}), "
                         f"{100 * size_share:.0f} % in the most common size band",
                         raw={"icons": len(icons), "kinds": dict(mix), "kind_share": round(kind_share, 4),
                              "size_share": round(size_share, 4)})
