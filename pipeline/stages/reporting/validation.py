"""The run page's "Can you trust this ranking?" section: the reference pool the z-scores
used, instrumentation reliability, the distribution of judged scores, and every
validation analysis stored with the run (human agreement by Δz band, two runs
compared, judge robustness). Numbers the pipeline computed; labels escaped.
This module must not read the store or write files.
"""

from __future__ import annotations

import dataclasses

from iwcbench.pipeline.contracts import analyses, artifacts, results
from iwcbench.pipeline.stages.reporting import charting, layout


@dataclasses.dataclass(frozen=True)
class Found:
    agreement: analyses.Agreement | None = None
    comparison: analyses.Comparison | None = None
    robustness: analyses.Robustness | None = None

    @classmethod
    def read(cls, files: artifacts.Reader) -> "Found":
        """The analyses stored beside the run; an unreadable one is left out."""
        return cls(agreement=files.load_or_none(artifacts.AGREEMENT),
                   comparison=files.load_or_none(artifacts.COMPARISON),
                   robustness=files.load_or_none(artifacts.ROBUSTNESS))


def _pct(value: float | None) -> str:
    return layout.DASH if value is None else f"{100 * value:.1f}%"


def _reference(run: results.RunResults) -> str:
    ref = run.reference
    if ref is None:
        return ("<p>z-scores are against <b>this run's own pool</b>: a model's z moves when other models "
                "join. Pass <code>--reference RESULTS</code> to fix μ and σ.</p>")
    return (f"<p>z-scores use the <b>fixed reference</b> <code>{layout.esc(ref.uri)}</code> "
            f"(<span class='mono'>{layout.esc(ref.digest[:19])}</span>; {len(ref.models)} models, "
            f"{len(ref.model_stats)} metrics): adding models does not move them.</p>")


def _reliability(rel: results.Reliability) -> str:
    if not rel.apps:
        return ""
    parts = [("instrumented", rel.instrumented, "#1a7f37"), ("black box", rel.black_box, "#bf8700"),
             ("failed", rel.failed, "#cf222e")]
    stack = "".join(f'<i style="width:{100 * n / rel.apps:.2f}%;background:{colour}" title="{label} {n}"></i>'
                    for label, n, colour in parts if n)
    legend = " · ".join(f"{label} <b>{n}</b>" for label, n, _ in parts)
    causes = "".join(f"<tr><td>{layout.esc(c)}</td><td class=num>{n}</td></tr>" for c, n in rel.causes.items())
    table = (f'<table class="compact"><thead><tr><th>cause</th><th class=num>apps</th></tr></thead>'
             f'<tbody>{causes}</tbody></table>') if causes else ""
    rate = layout.number(rel.success_rate) + "%" if rel.success_rate is not None else layout.DASH
    return (f"<h3>Instrumentation</h3><p>{rate} of {rel.apps} submitted apps instrumented · {legend}</p>"
            f'<div class="stack">{stack}</div>{table}')


def _judged(dist: dict[str, analyses.Distribution], protocol: str) -> str:
    if not dist:
        return ""
    rows = "".join(
        f"<tr><td>{layout.esc(name)}</td><td class=num>{d.n}</td><td class=num>{layout.number(d.mean)}"
        f"{charting.bar(d.mean, 100)}</td><td class=num>{layout.number(d.std)}</td>"
        f"<td class=num>{layout.number(d.min)}–{layout.number(d.max)}</td><td class=num>{_pct(d.endpoint_share)}</td></tr>"
        for name, d in dist.items())
    return (f"<h3>Judged scores ({layout.esc(protocol)} protocol)</h3>"
            '<table class="compact"><thead><tr><th>dimension</th><th class=num>apps</th><th class=num>mean</th>'
            "<th class=num>σ</th><th class=num>range</th>"
            f'<th class=num title="within {analyses.ENDPOINT_MARGIN:g} points of 0 or 100">at an endpoint</th></tr>'
            f"</thead><tbody>{rows}</tbody></table>")


def _agreement(found: analyses.Agreement) -> str:
    interval = f" (95% interval {_pct(found.interval[0])}–{_pct(found.interval[1])})" if found.interval else ""
    rows = []
    for b in found.bands:
        label = f"[{b.lower:g}, {'∞' if b.upper is None else f'{b.upper:g}'})"
        rows.append(f"<tr><td class=mono>{label}</td><td class=num>{b.n}</td><td class=num>{b.agree}</td>"
                    f"<td class=num>{_pct(b.rate)}{charting.bar(b.rate, 1.0)}</td>"
                    f"<td class=num>{b.cumulative_n}</td><td class=num>{b.cumulative_agree}</td>"
                    f"<td class=num>{_pct(b.cumulative_rate)}{charting.bar(b.cumulative_rate, 1.0)}</td></tr>")
    return (f"<h3>Agreement with human votes</h3><p><b>{_pct(found.rate)}</b> of {found.compared} decisive pairs"
            f"{interval}; human ties {found.human_ties} and benchmark ties {found.benchmark_ties}, counted apart; "
            f"{found.unmatched} votes name an app without a result. Votes: <code>{layout.esc(found.votes)}</code></p>"
            '<table class="compact"><thead><tr><th>Δz band</th><th class=num>n</th><th class=num>agree</th>'
            "<th class=num>rate</th><th class=num>n (Δz ≥)</th><th class=num>agree</th><th class=num>rate</th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _histogram(h: analyses.Histogram, a_label: str, b_label: str, width: int = 520, height: int = 160) -> str:
    top = max([*h.a, *h.b, 1])
    slot = width / len(h.bins)
    bars, labels = [], []
    for i, name in enumerate(h.bins):
        for j, (count, colour) in enumerate(((h.a[i], "#8c959f"), (h.b[i], "#0969da"))):
            bh = (height - 42) * count / top
            x = i * slot + 6 + j * (slot - 12) / 2
            bars.append(f'<rect x="{x:.1f}" y="{height - 20 - bh:.1f}" width="{(slot - 12) / 2:.1f}" '
                        f'height="{bh:.1f}" fill="{colour}"><title>{layout.esc(name)}: {count}</title></rect>'
                        f'<text x="{x + (slot - 12) / 4:.1f}" y="{height - 24 - bh:.1f}" font-size="10" '
                        f'text-anchor="middle">{count}</text>')
        labels.append(f'<text x="{i * slot + slot / 2:.1f}" y="{height - 6}" font-size="10" '
                      f'text-anchor="middle">{layout.esc(name)}</text>')
    legend = (f'<span style="color:#8c959f">■</span> {layout.esc(a_label)} '
              f'<span style="color:#0969da">■</span> {layout.esc(b_label)}')
    return (f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="histogram">{"".join(bars)}{"".join(labels)}</svg><div class="faint">{legend}</div>')


def _comparison(found: analyses.Comparison) -> str:
    parts = [f"<h3>{layout.esc(found.b_label)} against {layout.esc(found.a_label)}</h3>"
             f"<p class=faint><code>{layout.esc(found.a)}</code> → <code>{layout.esc(found.b)}</code>; "
             f"{found.unmatched} apps scored in one run only</p>"]
    for m in found.metrics:
        test = m.test
        p = layout.DASH if test is None or test.p_value is None else f"{test.p_value:.3g}"
        sign = layout.DASH if test is None or test.sign_test_p is None else f"{test.sign_test_p:.3g}"
        parts.append(f"<p><b>{layout.esc(m.metric)}</b>: {len(m.pairs)} paired apps, mean change "
                     f"{layout.signed(m.mean_delta)}; higher in {m.helped} ({_pct(m.helped_share)}), lower in "
                     f"{m.hurt}, equal in {m.same}; Wilcoxon signed-rank p = {p}, sign test p = {sign}</p>")
        if m.histogram is not None:
            parts.append(_histogram(m.histogram, found.a_label, found.b_label))
        if m.a is not None and m.b is not None:
            parts.append(
                '<table class="compact"><thead><tr><th></th><th class=num>mean</th><th class=num>σ</th>'
                '<th class=num>at an endpoint</th></tr></thead><tbody>'
                + "".join(f"<tr><td>{layout.esc(label)}</td><td class=num>{layout.number(d.mean)}</td>"
                          f"<td class=num>{layout.number(d.std)}</td><td class=num>{_pct(d.endpoint_share)}</td></tr>"
                          for label, d in ((found.a_label, m.a), (found.b_label, m.b)))
                + "</tbody></table>")
    return "".join(parts)


def _robustness(found: analyses.Robustness) -> str:
    rows = "".join(
        f"<tr><td>{layout.esc(r.model)}</td><td class=num>{r.rank_a or layout.DASH}</td>"
        f"<td class=num>{r.rank_b or layout.DASH}</td><td class=num>{'' if r.delta is None else f'{r.delta:+d}'}</td>"
        f"<td class=num>{layout.signed(r.overall_a)}</td><td class=num>{layout.signed(r.overall_b)}</td></tr>"
        for r in found.ranks)
    levels = "".join(
        f"<tr><td>{layout.esc(lv.metric)}</td><td class=num>{layout.number(lv.mean_a)}</td>"
        f"<td class=num>{layout.number(lv.mean_b)}</td><td class=num>{layout.number(lv.std_a)}</td>"
        f"<td class=num>{layout.number(lv.std_b)}</td></tr>" for lv in found.levels)
    kept = f"{found.pairs_kept} of {found.pairs} model pairs keep their order ({_pct(found.pairs_kept_share)})"
    return (f"<h3>Judge robustness</h3><p>Pearson {layout.number(found.pearson, 3)} · Spearman "
            f"{layout.number(found.spearman, 3)} · {kept}</p>"
            '<table class="compact"><thead><tr><th>model</th><th class=num>rank A</th><th class=num>rank B</th>'
            "<th class=num>Δ</th><th class=num>overall A</th><th class=num>overall B</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            '<table class="compact"><thead><tr><th>metric</th><th class=num>mean A</th><th class=num>mean B</th>'
            f"<th class=num>σ A</th><th class=num>σ B</th></tr></thead><tbody>{levels}</tbody></table>")


def section(run: results.RunResults, found: Found) -> str:
    protocol = run.run.configuration.judging.protocol
    body = [_reference(run), _reliability(run.instrumentation), _judged(run.judge_scores, protocol)]
    if found.agreement is not None:
        body.append(_agreement(found.agreement))
    if found.comparison is not None:
        body.append(_comparison(found.comparison))
    if found.robustness is not None:
        body.append(_robustness(found.robustness))
    hint = "reference pool, instrumentation, judged-score spread and the analyses stored with this run (docs/validation.md)"
    return layout.card("Can you trust this ranking?", "".join(b for b in body if b), hint, "validation")
