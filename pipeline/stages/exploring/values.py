"""Values a tester would type into a field, most ordinary first, then boundaries,
and, given what the app's code checks input against (``CodeHints``), values that pass
those checks and near misses that fail them.
Pure: a candidate (and hints) in, a list of strings out (the heuristic cycles through it).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Mapping

from iwcbench.pipeline.contracts import instrumented
from iwcbench.pipeline.stages.exploring import observing, sampling

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


def values_for(c: observing.Candidate, hints: CodeHints | None = None) -> list[str]:
    """Ordered values for a text-like field (never empty): what its placeholder
    shows as an example (if it shows one), the usual value, then boundaries. With
    ``hints`` (even empty ones: the field's own pattern attribute counts), values
    that pass the app's checks come first when any fits the field (``_with_hints``)."""
    usual = _with_example(c, _values(c))
    return usual if hints is None else _with_hints(c, hints, usual)


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


# ---- what the app's code checks input against ---------------------------------------
MAX_HINTS = 200  # of each kind, from all of an app's scripts
MAX_LITERALS = 4  # code strings offered to one field
MAX_SAMPLES = 3  # regex samples offered to one field
MAX_NUMBERS = 4  # compared numbers offered to a number field, each with its neighbours


@dataclasses.dataclass(frozen=True)
class Sample:
    """What one regex of the app accepts (shortest, and with open-ended repeats run 16
    times: a base32 secret of one letter is no secret) and a near miss it refuses."""

    source: str
    flags: str
    short: str
    long: str
    miss: str | None

    def accepts(self, text: str) -> bool:
        return sampling.matches(self.source, self.flags, text)

    @classmethod
    def of(cls, source: str, flags: str) -> Sample | None:
        short = sampling.matching(source, flags)
        long = sampling.matching(source, flags, long=True)
        if short is None or long is None:
            return None
        return cls(source, flags, short, long, sampling.not_matching(source, flags))


@dataclasses.dataclass(frozen=True)
class CodeHints:
    """What an app's code compares typed values with (code facts: ``literals``,
    ``patterns``, ``numbers`` of instrumenting's checks.js), in source order."""

    literals: tuple[str, ...] = ()
    samples: tuple[Sample, ...] = ()
    numbers: tuple[float, ...] = ()

    @classmethod
    def from_facts(cls, facts: Mapping[str, instrumented.CodeFacts] | None) -> CodeHints:
        """The hints of all an app's scripts (None or {}: no hints but the fields' own
        pattern attributes). Samples every pattern once: call it once per app."""
        scripts = list((facts or {}).values())
        literals = dict.fromkeys(text for f in scripts for text in f.literals)
        patterns = list(dict.fromkeys((p.source, p.flags) for f in scripts for p in f.patterns))[:MAX_HINTS]
        samples = (Sample.of(source, flags) for source, flags in patterns)
        numbers = dict.fromkeys(n for f in scripts for n in f.numbers)
        return cls(literals=tuple(literals)[:MAX_HINTS], samples=tuple(s for s in samples if s is not None),
                   numbers=tuple(numbers)[:MAX_HINTS])


# The shape of a value, first that fits; a code value is offered to a field that wants
# its shape.
_SHAPES = (
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("digits", re.compile(r"\d{3,}")),  # (shorter: indexes and counters far more often than PINs)
    ("hex", re.compile(r"#[0-9a-fA-F]{3,8}")),
    ("email", re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")),
    ("url", re.compile(r"https?://\S+")),
    ("phone", re.compile(r"\+?(?=(?:\D*\d){6})[\d\s().-]{6,20}")),
    ("code", re.compile(r"(?=.*[A-Z])[A-Z0-9][A-Z0-9_-]{1,31}")),  # SAVE20, A1, JBSWY3DP
    ("credential", re.compile(r"(?=.*[A-Za-z])(?=.*\d)\S{4,32}")),  # admin123, Passw0rd!
)
# the shapes a field of an input type takes from the code, most likely first; a type
# not listed goes by its words. Number fields take none: the browser lets only numbers
# in, and the code's numbers are offered as boundaries instead.
_WANTS_BY_TYPE = {
    "number": (), "range": (), "search": (), "textarea": (), "contenteditable": (), "time": (),
    "datetime-local": (), "month": (), "week": (), "date": ("date",), "email": ("email",),
    "url": ("url",), "tel": ("phone", "digits"), "color": ("hex",),
}
# (words of a field's label, placeholder, name, id or class) -> the shapes it takes
_WANTS_BY_WORD = (
    (("pin", "otp", "passcode", "totp", "2fa", "digit", "verification", "verify"), ("digits", "code")),
    (("coupon", "promo", "voucher", "secret", "key", "token", "seat", "ticket", "room", "serial", "license",
      "licence", "sku", "booking", "reference", "ref"), ("code", "digits")),
    (("code",), ("digits", "code")),
    (("zip", "zipcode", "postal", "postcode"), ("digits", "code")),
    (("date", "dob", "birthday", "birthdate"), ("date",)),
    (("color", "colour", "hex"), ("hex",)),
    (("email", "mail"), ("email",)),
    (("phone", "mobile", "tel"), ("phone", "digits")),
    (("url", "website"), ("url",)),
)


# input types a pattern attribute applies to (HTML)
_PATTERNED = frozenset(("text", "search", "url", "tel", "email", "password"))


def _is_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


# input types whose value the browser sets only when well-formed, and that check
_SET_AS_VALUE = {"date": _is_date, "color": lambda text: re.fullmatch(r"#[0-9a-f]{6}", text) is not None}


@functools.lru_cache(maxsize=4096)  # the same few hundred literals, asked for every field
def _shape(text: str) -> str | None:
    return next((name for name, shape in _SHAPES if shape.fullmatch(text)), None)


def _words(c: observing.Candidate) -> set[str]:
    text = " ".join(filter(None, (c.name, c.placeholder, c.autocomplete, c.input_name, c.hint)))
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
    return {w[:-1] if w.endswith("s") else w for w in words} | set(words)


def _wants(c: observing.Candidate) -> tuple[str, ...]:
    """The shapes of code value a field takes: by its input type when that decides
    (email, date, tel, ...), else inputmode="numeric", else the words naming it, else a
    password field takes credentials, codes and digits; a plain text field none."""
    kind = c.type or "text"
    if kind in _WANTS_BY_TYPE:
        return _WANTS_BY_TYPE[kind]
    if c.input_mode in ("numeric", "decimal"):
        return ("digits",)
    words = _words(c)
    for names, shapes in _WANTS_BY_WORD:
        if words.intersection(names):
            return shapes
    return ("credential", "code", "digits") if kind == "password" else ()


def _with_hints(c: observing.Candidate, hints: CodeHints, usual: list[str]) -> list[str]:
    """The usual values with the code's. By the shapes the field wants (``_wants``),
    likeliest first: the strings the code compares with of that shape, then samples of
    the code's regexes of that shape where the usual value fails them; a string the
    field's own pattern attribute accepts after the first shape's (if the usual value
    fails that pattern). Each only if the field's pattern, minlength and maxlength allow
    it. Then the usual value, the near misses of those regexes and of its own pattern
    (so both arms of each check run), the rest. Nothing fits: the usual values, with
    the numbers the code compares against (and their neighbours) as a number field's
    next boundaries."""
    own = Sample.of(f"^(?:{c.pattern})$", "v") if c.pattern and (c.type or "text") in _PATTERNED else None

    def allowed(text: str) -> bool:
        return (len(text) >= (c.min_length or 0) and (c.max_length is None or len(text) <= c.max_length)
                and (own is None or own.accepts(text)))

    wants = _wants(c)
    literals = [(shape, t) for shape in wants for t in hints.literals if _shape(t) == shape and allowed(t)]
    suited = [(shape, s, text) for shape in wants for s in hints.samples
              for text in [next((t for t in (s.short, s.long) if _shape(t) == shape and allowed(t)), None)] if text]
    literals, suited = literals[:MAX_LITERALS], suited[:MAX_SAMPLES]
    groups = [[t for kind, t in literals if kind == shape]
              + [text for kind, s, text in suited if kind == shape and not s.accepts(usual[0])] for shape in wants]
    own_text = _sized(c, own) if own is not None and not own.accepts(usual[0]) else None
    if own_text:
        groups.insert(1 if groups else 0, [own_text])  # after the first shape's
    passing = [t for group in groups for t in group]
    misses = [s.miss for s in [own] + [s for _, s, _ in suited] if s is not None and s.miss is not None]
    if c.type in _SET_AS_VALUE:  # no near misses: the browser refuses them (Playwright's fill throws)
        passing, misses = [t for t in passing if _SET_AS_VALUE[c.type](t)], []
    if not (passing or misses):
        return _with_numbers(c, hints, usual)
    return list(dict.fromkeys(passing + usual[:1] + misses + usual[1:]))


def _sized(c: observing.Candidate, sample: Sample) -> str | None:
    """The field's own pattern's sample that its minlength / maxlength allow."""
    return next((t for t in (sample.short, sample.long)
                 if len(t) >= (c.min_length or 0) and (c.max_length is None or len(t) <= c.max_length)), None)


def _with_numbers(c: observing.Candidate, hints: CodeHints, usual: list[str]) -> list[str]:
    if c.type != "number":
        return usual
    compared = [n for n in hints.numbers if abs(n) >= 2][:MAX_NUMBERS]
    edges = [_fmt(v) for n in compared for v in (n, n - 1, n + 1)]
    return list(dict.fromkeys(usual[:1] + edges + usual[1:]))
