"""A cost forecast before spending (``iwc run --estimate``): requests, tokens and dollars
per stage for the apps a run would evaluate with its settings.

Per purpose ("explore.step", "aesthetics.judge", "uitest.step", ...) a ``Profile`` says
how many calls are made, how many prompt tokens a call holds (uncached input + cache
writes + cache reads) and what share of them the prompt cache reads and writes, and how
many output tokens come back — per app, except for the UI tests: the GUI agent's calls
per UI test case, the appearance judge's per app with UI test cases (``UNITS``), so that
a run's forecast follows how many test cases its tasks hold. Profiles come from stored
ledgers (the ``llm_usage`` of an earlier run's apps: ``--calibrate-from``) or else from
the calibration sample measured on the example corpus (runs/calibration), interpolated
in the step budget; exploration calls scale with the step budget, final-judge calls with
``judging.runs``, the agent's with a ``uitests.max_steps`` below the sample's. Dollars
come from the kits/llm price table, pricing cache reads, cache writes and batches as the
API bills them (the GUI agent is interactive; the appearance judge is batched with the
judges). Pure arithmetic over its inputs: it sends nothing.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Iterable, Mapping, TextIO

from iwcbench.pipeline.contracts import artifacts, purposes, results, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, providers as llm_providers
from iwcbench.pipeline.runs import calibration, finishing, local
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.exploring import assisted

TESTER = ("explore.",)  # the tester's purposes: on with --explorer llm (scaled to the step budget) or assisted
UITEST = "uitest."  # the UI tests' purposes: on when UI tests run (their models: contracts/purposes)
AGENT = ("uitest.step", "uitest.verdict")  # the GUI agent's: interactive, per UI test case
APPEARANCE = "uitest.appearance"  # the appearance judge's: per app with UI test cases


@dataclasses.dataclass(frozen=True)
class Profile:
    """One purpose's calls for one app."""

    calls: float
    prompt_tokens: float  # per call
    output_tokens: float  # per call
    read_share: float = 0.0  # of the prompt tokens, read from the prompt cache (caching on)
    write_share: float = 0.0  # of the prompt tokens, written to it

    def scaled(self, calls: float) -> Profile:
        return dataclasses.replace(self, calls=calls)


@dataclasses.dataclass(frozen=True)
class Line:
    stage: str
    requests: float
    prompt_tokens: float
    read_tokens: float
    output_tokens: float
    usd: float | None
    usd_plain: float | None  # the same requests without prompt caching or batches


def _mix(a: Profile, b: Profile, t: float) -> Profile:
    def lerp(x: float, y: float) -> float:
        return max(0.0, x + (y - x) * t)
    return Profile(lerp(a.calls, b.calls), lerp(a.prompt_tokens, b.prompt_tokens),
                   lerp(a.output_tokens, b.output_tokens), min(1.0, lerp(a.read_share, b.read_share)),
                   min(1.0, lerp(a.write_share, b.write_share)))


def sample_profiles(steps: int) -> dict[str, Profile]:
    """The calibration sample's profiles at ``steps`` (linear in the step budget); the UI
    tests' do not depend on the exploration's steps."""
    (s0, low), (s1, high) = sorted(calibration.PER_APP.items())
    t = (steps - s0) / (s1 - s0)
    out = {}
    for purpose in sorted(set(low) | set(high)):
        # a purpose measured at one budget only is taken as it is at the other
        a = Profile(*(low[purpose] if purpose in low else high[purpose]))
        b = Profile(*(high[purpose] if purpose in high else low[purpose]))
        out[purpose] = _mix(a, b, t)
    out.update({purpose: Profile(*values) for purpose, values in calibration.UITESTS.items()})
    return out


def stored_profiles(apps: Iterable[results.AppResult]) -> dict[str, Profile]:
    """Profiles measured by an earlier run: per purpose, the mean per app (per UI test
    case, per app with UI test cases: ``UNITS``)."""
    groups: dict[str, list[results.PurposeUsage]] = {}
    with_usage = [a for a in apps if a.llm_usage is not None]
    for app in with_usage:
        for purpose, usage in app.llm_usage.purposes.items():  # type: ignore[union-attr]  # with_usage keeps only apps whose llm_usage is set
            groups.setdefault(purpose, []).append(usage)
    units = Units(apps=len(with_usage), tested=sum(1 for a in with_usage if a.ui_tests),
                  cases=sum(len(a.ui_tests) for a in with_usage))
    out = {}
    for purpose, usages in groups.items():
        total = results.PurposeUsage.summed(usages)
        fresh = max(1, total.calls - total.cache_hits)
        prompt = total.input_tokens + total.cache_read_input_tokens + total.cache_creation_input_tokens
        out[purpose] = Profile(
            calls=(total.calls - total.cache_hits) / max(1, units.of(purpose)),
            prompt_tokens=prompt / fresh, output_tokens=total.output_tokens / fresh,
            read_share=total.cache_read_input_tokens / prompt if prompt else 0.0,
            write_share=total.cache_creation_input_tokens / prompt if prompt else 0.0)
    return out


@dataclasses.dataclass(frozen=True)
class Units:
    """What a run's calls are counted per: apps, apps with UI test cases, UI test cases."""

    apps: float
    tested: float = 0.0
    cases: float = 0.0

    def of(self, purpose: str) -> float:
        """How many times ``purpose``'s profile counts in this run."""
        if purpose in AGENT:
            return self.cases
        return self.tested if purpose == APPEARANCE else self.apps


def load_run(folder: str) -> tuple[list[results.AppResult], int | None]:
    """An earlier run's apps and its step budget (None when not recorded)."""
    data = json.loads((pathlib.Path(folder) / artifacts.RESULTS.key).read_text())
    run = results.RunResults.model_validate(data)
    return list(run.apps), run.run.configuration.exploration.max_steps


def _wanted(evaluation: settings_mod.Evaluation, purposes: Iterable[str]) -> set[str]:
    """The purposes of ``purposes`` this evaluation would call a model for."""
    wanted: set[str] = set()
    for p in purposes:
        head = p.split(".")[0]
        if p.startswith(TESTER):
            exploring = evaluation.exploration
            tester = exploring.policy == "llm" or (exploring.policy == "assisted" and assisted.calls_at_most(
                p, exploring.assist_steps, exploring.max_steps, exploring.guidance) > 0)
            wanted |= {p} if tester else set()
        elif p.startswith(UITEST):
            on = evaluation.uitest_model() and (p != APPEARANCE or evaluation.uitests.appearance)
            wanted |= {p} if on else set()
        elif evaluation.judging.model and (head in evaluation.judging.dimensions or head not in judging.JUDGES):
            wanted.add(p)
    return wanted


def profiles_for(evaluation: settings_mod.Evaluation, stored: tuple[list[results.AppResult], int | None] | None
                 ) -> dict[str, Profile]:
    """The profiles this evaluation would have: only the stages it runs, scaled to its
    step budget, its number of final-judge runs and its UI-test step cap."""
    steps = evaluation.exploration.max_steps
    from_sample = stored is None or not stored[0]
    if from_sample:
        base, their_steps = sample_profiles(steps), steps
    else:
        # the calls recorded already carry that run's number of final-judge runs
        base, their_steps = stored_profiles(stored[0]), stored[1] or steps  # type: ignore[index]  # not from_sample: stored is set (mypy does not follow the flag)
    out = {}
    for purpose in sorted(_wanted(evaluation, base)):
        profile = base[purpose]
        if purpose.startswith(TESTER) and evaluation.exploration.policy == "assisted":
            # (at most: the tester is asked only where the heuristic's coverage stalls)
            profile = profile.scaled(assisted.calls_at_most(purpose, evaluation.exploration.assist_steps, steps,
                                                            evaluation.exploration.guidance))
        elif purpose.startswith(TESTER):
            profile = profile.scaled(profile.calls * steps / their_steps)
        elif purpose.endswith(".judge") and from_sample:
            profile = profile.scaled(profile.calls * evaluation.judging.runs / calibration.JUDGE_RUNS)
        elif purpose == "uitest.step" and from_sample:
            # the sample's cases ended before its cap: a higher cap leaves them as they were
            profile = profile.scaled(profile.calls * min(1.0, evaluation.uitests.max_steps / calibration.UITEST_STEPS))
        out[purpose] = profile
    return out


def _price(profile: Profile, price: llm_accounting.Price | None, caching: bool,
           batched: bool) -> tuple[float | None, float | None]:
    if price is None:
        return None, None
    prompt = profile.calls * profile.prompt_tokens
    output = profile.calls * profile.output_tokens
    plain = (prompt * price.input + output * price.output) / 1e6
    if not caching:
        return plain * (llm_accounting.batched_share(price) if batched else 1.0), plain
    # a batch may wait longer than 5 minutes between rounds: its cache entries are 1-hour ones
    # (Anthropic's; an OpenAI-compatible provider bills no writes: cache_write = input)
    write = price.write_1h if batched and price.cache_write != price.input else price.cache_write
    read, written = prompt * profile.read_share, prompt * profile.write_share
    usd = ((prompt - read - written) * price.input + written * write + read * price.cache_read
           + output * price.output) / 1e6
    return usd * (llm_accounting.batched_share(price) if batched else 1.0), plain


def _model_of(evaluation: settings_mod.Evaluation, spending: settings_mod.Spending, purpose: str
              ) -> tuple[str | None, bool]:
    """(the model a purpose's calls go to, whether they go through a batch API: any model's
    may, Anthropic's Message Batches or OpenAI's batch API; a price without a batch
    discount prices them at the list price)."""
    model = purposes.model_for(evaluation, purpose)
    return model, spending.batch_judges and purposes.of(purpose).batchable and _batches(model)


def _batches(model: str | None) -> bool:
    try:
        return bool(model) and llm_providers.split(model or "")[0] in llm_providers.PROVIDERS
    except llm_providers.ModelProblem:
        return False


def forecast(evaluation: settings_mod.Evaluation, spending: settings_mod.Spending, apps: int | Units,
             profiles: Mapping[str, Profile],
             prices: Mapping[str, llm_accounting.Price] = llm_accounting.DEFAULT_PRICES) -> list[Line]:
    """One line per stage (the purpose's first word: explore, aesthetics, uitest, ...) for
    ``apps`` apps (a number: no UI test cases among them)."""
    units = apps if isinstance(apps, Units) else Units(apps=apps)
    caching = evaluation.llm.prompt_caching
    lines: dict[str, list[float | None]] = {}
    for purpose, profile in profiles.items():
        model, batched = _model_of(evaluation, spending, purpose)
        usd, plain = _price(profile, llm_accounting.price_of(model or "", prices), caching, batched)
        n = units.of(purpose)
        row = lines.setdefault(purpose.split(".")[0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        prompt = profile.calls * profile.prompt_tokens
        row[0] += profile.calls * n  # type: ignore[operator]  # cells 0-3 are counts, never None; only the costs (4, 5) are
        row[1] += prompt * n  # type: ignore[operator]  # a count cell, never None
        row[2] += (prompt * profile.read_share if caching else 0.0) * n  # type: ignore[operator]  # a count cell, never None
        row[3] += profile.calls * profile.output_tokens * n  # type: ignore[operator]  # a count cell, never None
        row[4] = None if usd is None or row[4] is None else row[4] + usd * n
        row[5] = None if plain is None or row[5] is None else row[5] + plain * n
    return [Line(stage, *values) for stage, values in lines.items()]  # type: ignore[arg-type]  # the counts are floats, only the costs may be None


def for_run(config: settings_mod.RunSettings, resume: bool, calibrate_from: str | None
            ) -> tuple[list[Line], int, str]:
    """The forecast of ``iwc run`` with ``config``: (lines, apps to evaluate, where the
    tokens per call came from). Reads the inputs only; writes nothing."""
    tasks, apps, _, _ = local.plan(config)
    if resume:
        recorded = finishing.collect_results(store_mod.LocalStore(config.out)) if pathlib.Path(config.out).is_dir() else []
        done = {r.evidence for r in recorded if r.outcome != "error"}
        apps = [a for a in apps if a.key not in done]
    stored = load_run(calibrate_from) if calibrate_from else None
    source = (f"the stored ledgers of {calibrate_from}" if stored and stored[0]
              else "the calibration sample (example corpus, hack/bench-llm)")
    cases = {t.id: len(t.ui_tests) for t in tasks} if config.uitests.enabled else {}
    units = Units(apps=len(apps), tested=sum(1 for a in apps if cases.get(a.task_id)),
                  cases=sum(cases.get(a.task_id, 0) for a in apps))
    lines = forecast(config, config.spending, units, profiles_for(config, stored))
    return lines, len(apps), source


def _money(value: float | None) -> str:
    return "no price" if value is None else f"${value:,.2f}"


def write(lines: list[Line], apps: int, source: str, out: TextIO) -> None:
    """The forecast as a table."""
    print(f"forecast for {apps} app(s), from {source}:", file=out)
    print(f"{'stage':12} {'requests':>10} {'prompt tokens':>15} {'from cache':>10} {'output tokens':>14} "
          f"{'cost':>12} {'uncached, interactive':>22}", file=out)
    for line in [*lines, _total(lines)]:
        share = f"{100 * line.read_tokens / line.prompt_tokens:.0f} %" if line.prompt_tokens else "–"
        print(f"{line.stage:12} {line.requests:10,.0f} {line.prompt_tokens:15,.0f} {share:>10} "
              f"{line.output_tokens:14,.0f} {_money(line.usd):>12} {_money(line.usd_plain):>22}", file=out)
    total = _total(lines)
    if apps and total.usd is not None:
        print(f"per app: {_money(total.usd / apps)} ({_money(total.usd_plain / apps if total.usd_plain else None)} "
              "uncached, interactive)", file=out)


def _total(lines: list[Line]) -> Line:
    def add(values: list[float | None]) -> float | None:
        return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]  # no value is None here (checked just before)
    return Line("total", sum(x.requests for x in lines), sum(x.prompt_tokens for x in lines),
                sum(x.read_tokens for x in lines), sum(x.output_tokens for x in lines),
                add([x.usd for x in lines]), add([x.usd_plain for x in lines]))
