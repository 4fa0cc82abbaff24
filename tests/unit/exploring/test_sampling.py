"""The explorer writes strings an app's own regexes accept, and near misses they refuse,
for the checks LLM-written apps put in their handlers (real-world patterns, checked
with Python's re the way JavaScript's .test reads them)."""

from __future__ import annotations

import re

import pytest

from iwcbench.pipeline.stages.exploring import sampling

REAL_WORLD = [
    (r"^[A-Z2-7]+=*$", ""),  # base32 TOTP secret
    (r"^\d{6}$", ""),  # six-digit code
    (r"^[^\s@]+@[^\s@]+\.[^\s@]+$", ""),  # email, the short way
    (r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$", ""),  # email, the long way
    (r"^\+?[0-9\s\-()]{7,15}$", ""),  # phone
    (r"^\(?\d{3}\)?[-.\s]?\d{3}[-.\s]?\d{4}$", ""),  # US phone
    (r"^\d{5}(-\d{4})?$", ""),  # US postal code
    (r"^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$", "i"),  # UK postcode
    (r"\d{4}-\d{2}-\d{2}", ""),  # a date somewhere in the text
    (r"^#([0-9a-f]{3}|[0-9a-f]{6})$", "i"),  # hex color
    (r"^(?=.*[A-Z])(?=.*\d).{8,}$", ""),  # password rules
    (r"^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[!@#$%^&*]).{8,}$", ""),
    (r"^(cat|dog|bird)$", ""),  # alternation
    (r"^(?:https?:\/\/)?[\w.-]+\.[a-z]{2,}(\/\S*)?$", "i"),  # URL
    (r"^(?<year>\d{4})-(?<month>0[1-9]|1[0-2])$", ""),  # JS named groups
    (r"^\d+(\.\d{1,2})?$", ""),  # an amount
    (r"^[^0-9]+$", ""),  # negated class
]


@pytest.mark.parametrize(("source", "flags"), REAL_WORLD)
def test_a_sample_passes_the_check_and_a_near_miss_fails_it(source: str, flags: str) -> None:
    python = re.compile(sampling.translate(source) or "", re.IGNORECASE if "i" in flags else 0)
    valid = sampling.matching(source, flags)
    miss = sampling.not_matching(source, flags)
    assert valid is not None and python.search(valid), valid
    assert miss and python.search(miss) is None, miss
    assert sampling.matches(source, flags, valid) and not sampling.matches(source, flags, miss)


def test_samples_are_short_and_ordinary() -> None:
    assert sampling.matching(r"^\d{6}$") == "111111"
    assert sampling.matching(r"^[A-Z2-7]+=*$") == "A"  # '+' once, '*' not at all
    assert sampling.matching(r"^[^\s@]+@[^\s@]+\.[^\s@]+$") == "a@a.a"
    assert sampling.matching(r"^(cat|dog|bird)$") == "cat"
    assert sampling.matching(r"^\d{5}(-\d{4})?$") == "11111"


def test_the_long_form_runs_open_ended_repeats_sixteen_times() -> None:
    assert sampling.matching(r"^[A-Z2-7]+=*$", long=True) == "A" * 16  # a usable secret
    assert sampling.matching(r"^\d{6}$", long=True) == "111111"  # nothing open-ended


def test_password_rules_with_lookaheads_are_written_into_the_text() -> None:
    valid = sampling.matching(r"^(?=.*[A-Z])(?=.*\d).{8,}$")
    assert valid is not None and len(valid) == 8
    assert any(ch.isupper() for ch in valid) and any(ch.isdigit() for ch in valid)
    miss = sampling.not_matching(r"^(?=.*[A-Z])(?=.*\d).{8,}$")
    assert miss is not None and len(miss) == 8, "one rule broken, the length kept"


def test_near_misses_change_one_character_or_drop_one() -> None:
    assert sampling.not_matching(r"^\d{6}$") == "11111a"
    assert sampling.not_matching(r"^[A-Z2-7]+=*$") == "a"
    assert sampling.not_matching(r"^.+$") is None, "it accepts every change: no near miss"


def test_an_unanchored_regex_is_a_search() -> None:
    assert sampling.matching(r"\d{4}-\d{2}-\d{2}") == "1111-11-11"
    assert sampling.matches(r"\d{4}-\d{2}-\d{2}", "", "due 2024-02-29!")
    miss = sampling.not_matching(r"@", "")
    assert miss and "@" not in miss


def test_what_cannot_be_sampled_gives_none_not_an_exception() -> None:
    assert sampling.matching(r"\p{Lu}+", "u") is None  # unicode properties: Python's re has none
    assert sampling.matching(r"[]") is None  # JS's empty class matches nothing
    assert sampling.matching(r"^(?!admin)admin$") is None  # a lookahead it cannot satisfy
    assert sampling.matching(r"(a") is None  # not a regex
    assert sampling.not_matching(r"(a") is None
    assert sampling.matches(r"(a", "", "a") is False


def test_backreferences_repeat_their_group() -> None:
    assert sampling.matching(r"^(\w)\1$") == "aa"
    assert sampling.matching(r"^(?<y>\d{2})-\k<y>$") == "11-11"


def test_js_only_syntax_is_translated() -> None:
    assert sampling.matching(r"^[^]$") == "a"  # JS's "anything", newlines too
    assert sampling.matching(r"^\/api\/\d+$") == "/api/1"
    assert sampling.matching(r"^\u{41}\cJ$", "u") == "A\n"
    assert sampling.matching(r"^[[]$") == "["
    assert sampling.matches(r"^[A-F]$", "i", "a") and not sampling.matches(r"^[A-F]$", "", "a")  # flags
