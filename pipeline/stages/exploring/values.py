"""Values a tester would type into a field, most ordinary first, then boundaries.
Pure: a candidate in, a list of strings out (the heuristic cycles through it).
"""

from __future__ import annotations

import re

from iwcbench.pipeline.stages.exploring import observing

LONG_TEXT = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 9).strip()
MULTILINE = "First line of a longer note.\nSecond line with more detail.\n\n" + LONG_TEXT
SPECIAL = '<b>bold</b> & "quotes" \' ; DROP TABLE'
UNICODE = "Ünïcödé ✓ 日本語 🙂"


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _numbers(c: observing.Candidate) -> list[str]:
    low, high = _num(c.min), _num(c.max)
    middle = (low + high) / 2 if low is not None and high is not None else (low + 1 if low is not None else 3)
    values = [_fmt(round(middle)) if float(middle).is_integer() or c.step in (None, "", "1") else _fmt(middle)]
    if low is not None:
        values += [_fmt(low), _fmt(low - 1)]
    if high is not None:
        values += [_fmt(high), _fmt(high + 1)]
    values += ["0", "-1", "999999999", "1.5", ""]
    return list(dict.fromkeys(values))


def _hint(c: observing.Candidate) -> str:
    return " ".join(filter(None, (c.name, c.placeholder, c.autocomplete, c.input_name))).lower()


_EXAMPLE = re.compile(r"^\s*(?:e\.?\s?g\.?|ex(?:ample)?|such as|like)\s*[:,]?\s*[\"'“]?(.+?)[\"'”]?\s*$", re.IGNORECASE)
_VALUE_LIKE = re.compile(r"^[\d][\d:./,+ -]*$")


def _example(c: observing.Candidate) -> str | None:
    """The value a placeholder shows as an example ("e.g. WELCOME10", "12345")."""
    text = (c.placeholder or "").strip()
    found = _EXAMPLE.match(text)
    if found:
        return found.group(1).strip()
    return text if _VALUE_LIKE.match(text) and any(ch.isdigit() for ch in text) else None


def _with_example(c: observing.Candidate, values: list[str]) -> list[str]:
    example = _example(c)
    if example is None or example in values:
        return values
    return [example] + values


# (words in a field's name, placeholder, autocomplete or input name) -> what a tester types
_BY_HINT = (
    (("cc-number", "card number", "cardnumber", "card-number"), ["4242 4242 4242 4242", "1234 5678 9012 3456", ""]),
    (("cc-exp", "expiry", "expiration", "mm/yy"), ["12/30", "01/20", "13/99", ""]),
    (("cc-csc", "cvv", "cvc", "security code"), ["123", "12", "abcd", ""]),
    (("postal-code", "zip", "postcode", "postal"), ["12345", "1234", "ABCDE", ""]),
    (("street-address", "address-line1", "street", "address"), ["221B Baker Street", "", "x"]),
    (("address-level2", "city", "town"), ["Springfield", ""]),
    (("username", "user name", "login", "customer id", "customerid", "account id"), ["alex", "12345678", ""]),
    (("coupon", "promo", "voucher", "discount code"), ["SAVE10", "INVALID-CODE", ""]),
)


def values_for(c: observing.Candidate) -> list[str]:
    """Ordered values for a text-like field (never empty): what its placeholder
    shows as an example (if it shows one), the usual value, then boundaries."""
    return _with_example(c, _values(c))


def _values(c: observing.Candidate) -> list[str]:
    kind = c.type or "text"
    hint = _hint(c)
    if kind == "number":
        return _numbers(c)
    if kind == "range":
        low, top = _num(c.min) or 0.0, _num(c.max)
        high = top if top is not None else 100.0
        return [_fmt(high), _fmt(low), _fmt(round((low + high) / 2))]
    if kind == "email" or "email" in hint or "e-mail" in hint:
        return ["user@example.com", "not-an-email", "", "a@b", "x" * 70 + "@example.com"]
    if kind == "date":
        first = "1990-05-15" if ("birth" in hint or "bday" in hint or "dob" in hint.split()) else "2024-02-29"
        return [v for v in (first, c.min, c.max, "1970-01-01", "2099-12-31", "") if v is not None]
    if kind == "time":
        return ["09:30", "00:00", "23:59"]
    if kind == "datetime-local":
        return ["2024-06-01T09:30", "1999-12-31T23:59", "2099-01-01T00:00"]
    if kind == "month":
        return ["2024-06", "1999-12"]
    if kind == "week":
        return ["2024-W23", "1999-W52"]
    if kind == "color":
        return ["#ff8800", "#000000", "#ffffff"]
    if kind == "tel" or "phone" in hint or "tel" in hint.split():
        return ["+1 555 0100", "abc", ""]
    if kind == "url" or "website" in hint or "url" in hint.split():
        return ["https://example.com", "not a url", ""]
    if kind == "password" or "password" in hint:
        return ["Secret123!", "a", ""]
    for words, found in _BY_HINT:
        if kind not in ("number", "textarea", "contenteditable") and any(w in hint for w in words):
            return list(found)
    if kind == "search" or "search" in hint or "filter" in hint:
        return ["test", "a", "zzzz-no-match", ""]
    if any(word in hint for word in ("age", "amount", "price", "qty", "quantity", "count", "number")):
        return ["42", "0", "-1", "999999999", "abc", ""]
    if kind in ("textarea", "contenteditable"):
        return ["A short note.", MULTILINE, "", SPECIAL, UNICODE]
    if "name" in hint:
        return ["Alex Doe", "", "A" * 120, UNICODE, SPECIAL]
    longest = "A" * min(c.max_length + 1, 500) if c.max_length else "A" * 300
    return ["Buy milk", "Walk the dog", "", "   ", longest, SPECIAL, UNICODE, "Write report", "0"]
