"""Fields get values that pass the app's own checks (the strings, regexes and numbers its
code compares input with, from instrumenting's code facts) before the usual ones, and
near misses after them, so both arms of a handler's validation run; without code
facts the values are what they always were."""

from __future__ import annotations

from iwcbench.pipeline.contracts import instrumented
from iwcbench.pipeline.stages.exploring import observing, values


def _field(name: str, **extra) -> observing.Candidate:
    return observing.Candidate(ref="e1", selector="#f", tag=extra.pop("tag", "input"), role="textbox", name=name,
                               kinds=("type",), **extra)


def _hints(literals: tuple[str, ...] = (), patterns: tuple[str, ...] = (),
           numbers: tuple[float, ...] = ()) -> values.CodeHints:
    facts = instrumented.CodeFacts(fns={}, keys=[], sequences=[], timers=[], literals=list(literals),
                                   patterns=[instrumented.Pattern(source=p, flags="") for p in patterns],
                                   numbers=list(numbers))
    return values.CodeHints.from_facts({"app.js": facts})


TOTP = _hints(patterns=(r"^[A-Z2-7]+=*$", r"^\d{6}$", r"\s+"))


def test_a_totp_app_gets_a_base32_secret_and_a_six_digit_code_first() -> None:
    secret = values.values_for(_field("Secret key"), TOTP)
    code = values.values_for(_field("6-digit code", max_length=6), TOTP)
    assert secret[0] == "A" * 16, "a secret of one letter is no secret: the long form"
    assert code[0] == "111111"
    assert "11111a" in code and code.index("11111a") > code.index("Buy milk"), "the near miss after the usual value"


def test_the_code_s_strings_of_the_field_s_shape_come_first() -> None:
    hints = _hints(literals=("active", "1234", "SAVE20", "admin@example.com", "admin123", "2024-12-25"))
    assert values.values_for(_field("Enter PIN", type="password"), hints)[0] == "1234"
    assert values.values_for(_field("Coupon code"), hints)[0] == "SAVE20"
    assert values.values_for(_field("Email", type="email"), hints)[0] == "admin@example.com"
    assert values.values_for(_field("Password", type="password"), hints)[0] == "admin123"
    assert values.values_for(_field("Deadline", type="date"), hints)[0] == "2024-12-25"
    assert "active" not in values.values_for(_field("Coupon code"), hints), "a word is no code"


def test_a_field_no_code_value_fits_keeps_its_usual_values() -> None:
    hints = _hints(literals=("SAVE20", "1234"), patterns=(r"^\d{6}$",))
    for field in (_field("What needs to be done?"), _field("Search", type="search"), _field("Notes", type="textarea")):
        assert values.values_for(field, hints) == values.values_for(field)


def test_without_hints_nothing_changes() -> None:
    field = _field("Zip", pattern="[0-9]{5}")
    assert values.values_for(field) == ["12345", "1234", "ABCDE", ""]
    assert values.values_for(_field("Secret key")) == values.values_for(_field("Secret key"), values.CodeHints())


def test_the_field_s_own_pattern_is_satisfied_then_missed() -> None:
    serial = values.values_for(_field("Serial", pattern=r"[A-Z]{3}-\d{3}"), values.CodeHints())
    assert serial[:3] == ["AAA-111", "Buy milk", "AAA-11a"]
    zip_code = values.values_for(_field("Zip", pattern="[0-9]{5}"), values.CodeHints())
    assert zip_code[0] == "12345", "the usual value passes: it stays first"
    assert "1111a" in zip_code


def test_code_values_the_field_refuses_are_left_out() -> None:
    hints = _hints(literals=("SAVE20", "WELCOME10", "1234", "ABC"))
    short = values.values_for(_field("Coupon", max_length=6), hints)
    assert "WELCOME10" not in short and short[0] == "SAVE20"
    patterned = values.values_for(_field("PIN", pattern=r"\d{4}"), hints)
    assert patterned[0] == "1234" and "SAVE20" not in patterned
    assert values.values_for(_field("Coupon", min_length=4), hints)[0] == "SAVE20"


def test_a_date_or_color_field_gets_only_what_the_browser_takes() -> None:
    hints = _hints(literals=("2024-13-45", "2024-01-31", "#FFF"), patterns=(r"^\d{4}-\d{2}-\d{2}$",))
    dates = values.values_for(_field("Due", type="date"), hints)
    assert dates[0] == "2024-01-31" and "2024-13-45" not in dates
    assert all(v == "" or v[:4].isdigit() for v in dates), "no near miss: fill would throw"
    colors = values.values_for(_field("Color", type="color"), hints)
    assert "#FFF" not in colors


def test_a_number_field_gets_the_compared_numbers_as_boundaries() -> None:
    age = values.values_for(_field("Age", type="number"), _hints(numbers=(18, 0, 1)))
    assert age[:4] == ["3", "18", "17", "19"], "the usual value first, then each number and its neighbours"
    assert values.values_for(_field("Qty", type="number"), _hints(numbers=(0, 1))) == \
        values.values_for(_field("Qty", type="number"))


def test_hints_from_facts_written_before_checks_were_read() -> None:
    old = instrumented.FACTS.schema.validate_python({"app.js": {"fns": {}, "keys": [], "sequences": [], "timers": []}})
    assert values.CodeHints.from_facts(old) == values.CodeHints()
    assert values.CodeHints.from_facts(None) == values.CodeHints()
    merged = values.CodeHints.from_facts({
        "a.js": instrumented.CodeFacts(fns={}, keys=[], sequences=[], timers=[], literals=["X1", "Y2"],
                                       patterns=[instrumented.Pattern(source="[", flags="")]),
        "b.js": instrumented.CodeFacts(fns={}, keys=[], sequences=[], timers=[], literals=["Y2", "Z3"]),
    })
    assert merged.literals == ("X1", "Y2", "Z3"), "in order, once each"
    assert merged.samples == (), "a regex it cannot sample is left out"
