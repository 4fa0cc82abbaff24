"""The sandbox's request rule: which requests of a page in one of our browsers go
through, which the CDN mirror answers, which are refused. One rule, stated here as
data (``RULE``) and one procedure (``decide``), for four consumers: the explorer's page
routing (routing.Hermetic), the minimal router (routing.OriginGuard),
and the quality stage's Chromium and Firefox (stages/quality/chromium.mjs and
firefox.mjs, through rule.mjs, which reads rule.json: hack/gen-sandbox-rule writes it
from ``RULE``, hack/verify fails when it has drifted). tests/unit/sandbox holds the
four to the same decisions on one table of URLs.

``decide(url, app_origin, websocket)``:

  pass    a ``data:`` or ``blob:`` URL (no network), or the app's own origin
  mirror  an http(s) request (not a WebSocket) to a public CDN host: answered from the
          CDN mirror when it holds the file, refused when it does not (or there is none)
  refuse  anything else

An origin is ``scheme://netloc`` as the URL spells it, lower-cased, with ``ws``/``wss``
counted as ``http``/``https``: no default port is filled in and user info is kept, so
``http://user@127.0.0.1:8000/`` is not the app's origin. Browsers hand over canonical
URLs; the procedure is plain string work, written the same way in rule.mjs, so the two
agree on any string. The network guard (kits/egress.py) is the layer under this one.
This module decides; it does no routing.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
from typing import Any, Literal

from iwcbench.pipeline.kits.mirror import cdn

JSON_PATH = pathlib.Path(__file__).resolve().with_name("rule.json")
RULE: dict[str, Any] = {  # also written to rule.json for the page scripts
    "pass_schemes": ["blob", "data"],
    "websocket_schemes": {"ws": "http", "wss": "https"},
    "cdn_schemes": ["http", "https"],
    "cdn_hosts": sorted(cdn.HOSTS),
}
_SPLIT = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?://([^/?#]*))?")
_PORT = re.compile(r":[0-9]*\Z")  # (\Z: `$` would also match before a final newline)

Action = Literal["pass", "mirror", "refuse"]


@dataclasses.dataclass(frozen=True)
class Decision:
    action: Action
    reason: str = ""  # why a request is refused ("external host"); empty otherwise


def origin(url: str) -> str:
    """``scheme://netloc`` of ``url``, lower-cased, ``ws(s)`` as ``http(s)``; for a URL
    without a netloc, ``scheme:``; "" when it has no scheme."""
    found = _SPLIT.match(url)
    if not found:
        return ""
    scheme = found.group(1).lower()
    scheme = RULE["websocket_schemes"].get(scheme, scheme)
    netloc = found.group(2)
    return f"{scheme}://{netloc.lower()}" if netloc is not None else f"{scheme}:"


def host(url: str) -> str:
    """The host name of ``url`` (no user info, no port), lower-cased; "" for none."""
    found = _SPLIT.match(url)
    netloc = (found.group(2) or "") if found else ""
    netloc = netloc.rsplit("@", 1)[-1]
    if not netloc.endswith("]"):
        netloc = _PORT.sub("", netloc)
    return netloc.lower()


def decide(url: str, app_origin: str, websocket: bool = False) -> Decision:
    found = _SPLIT.match(url)
    scheme = found.group(1).lower() if found else ""
    if scheme in RULE["pass_schemes"] or origin(url) == origin(app_origin):
        return Decision("pass")
    if websocket:
        return Decision("refuse", "WebSocket to an external host")
    if scheme in RULE["cdn_schemes"] and host(url) in RULE["cdn_hosts"]:
        return Decision("mirror")
    return Decision("refuse", "external host")


def as_json() -> str:
    """rule.json as hack/gen-sandbox-rule writes it."""
    return json.dumps(RULE, indent=2, sort_keys=True) + "\n"
