"""Replays: the action sequence of a passing test case, stored so it can be re-run
without an LLM (a regression check across app versions, a cheap re-evaluation).

* ``build`` makes the ``Replay`` from what the agent performed and the trees it saw.
* ``end_texts``: the end state's text lines that were not on the page after the load
  (accessibility-tree lines without refs, at most ``MAX_TEXTS``, each at most
  ``MAX_TEXT`` characters) — what the test made appear.
* ``check`` decides a replay run: every step performed and every end text present →
  passed; ``exact`` says whether the DOM normal form matched too. A replay whose test
  made no text appear must match the normal form.
* ``folder_hash``: the app hash of a served folder (paths and bytes of every file).

Keys: ``replay_key`` (contracts/uitests) of (app hash, test text, agent model);
stored at ``replays/<task_id>/<key>.json`` in the run's store. It never drives a
browser: the DOM digest comes from the caller (abstracting's normal form).
"""

from __future__ import annotations

import datetime
import hashlib
import pathlib
import re
from typing import Sequence

from iwcbench.pipeline.contracts import uitests

MAX_TEXTS = 12
MAX_TEXT = 200
PREFIX = "replays"


def store_key(task_id: str, key: str) -> str:
    return f"{PREFIX}/{task_id}/{key}.json"


def plain_lines(tree: str) -> list[str]:
    """Accessibility-tree lines without refs and indentation."""
    out = []
    for line in tree.splitlines():
        text = re.sub(r"\s*\[ref=[^\]]*\]", "", line).strip()
        text = re.sub(r"^-\s*", "", text).strip()
        if text:
            out.append(text[:MAX_TEXT])
    return out


def end_texts(first_tree: str, last_tree: str) -> tuple[str, ...]:
    """Lines at the end that were not there after the load, in page order, unique."""
    before = set(plain_lines(first_tree))
    new = [line for line in plain_lines(last_tree) if line not in before]
    return tuple(dict.fromkeys(new))[:MAX_TEXTS]


def build(*, task_id: str, case_index: int, test: str, expected_result: str, app: str, app_hash: str,
          agent_model: str, steps: Sequence[uitests.ReplayStep], end_digest: str, first_tree: str,
          last_tree: str, now: datetime.datetime | None = None) -> uitests.Replay:
    when = (now or datetime.datetime.now(datetime.timezone.utc)).isoformat(timespec="seconds")
    return uitests.Replay(
        key=uitests.replay_key(app_hash, test, expected_result, agent_model), task_id=task_id,
        case_index=case_index, test=test, expected_result=expected_result, app=app, app_hash=app_hash,
        agent_model=agent_model, steps=tuple(steps),
        end=uitests.ReplayEnd(digest=end_digest, texts=end_texts(first_tree, last_tree)), recorded_at=when)


def check(replay: uitests.Replay, *, failure: str | None, steps: int, end_digest: str | None,
          last_tree: str | None, duration_s: float = 0.0) -> uitests.ReplayCheck:
    """Did a run of ``replay`` reach its end state? ``failure``: why the replay policy
    stopped early (None: every step was performed)."""
    common = dict(key=replay.key, case_index=replay.case_index, test=replay.test,
                  recorded_on=f"{replay.app} ({replay.app_hash[:12]})", steps=steps,
                  duration_s=round(duration_s, 3))
    if failure is not None:
        return uitests.ReplayCheck(passed=False, reason=failure, **common)
    if end_digest is None or last_tree is None:
        return uitests.ReplayCheck(passed=False, reason="the end state could not be observed", **common)
    exact = end_digest == replay.end.digest
    present = set(plain_lines(last_tree))
    missing = tuple(t for t in replay.end.texts if t not in present)
    if missing:
        shown = "; ".join(f"«{t}»" for t in missing[:3]) + (" …" if len(missing) > 3 else "")
        return uitests.ReplayCheck(passed=False, exact=exact, missing=missing, **common,
                                   reason=f"end state differs: {len(missing)} of {len(replay.end.texts)} "
                                          f"expected text line(s) missing: {shown}")
    if not replay.end.texts and not exact:
        return uitests.ReplayCheck(passed=False, exact=False, **common,
                                   reason="end state differs: the DOM normal form changed (the test "
                                          "made no text appear to compare instead)")
    how = ("identical DOM normal form" if exact else "expected text present; the DOM normal form differs")
    if exact and replay.end.texts:
        how += f" and all {len(replay.end.texts)} expected text line(s)"
    return uitests.ReplayCheck(passed=True, exact=exact, reason=f"same end state: {how}", **common)


def folder_hash(root: pathlib.Path) -> str:
    """sha256 over the relative path and bytes of every file under ``root``, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
