"""Our JavaScript for a page, put together one way: every script of ours that a page
runs — the init script, the observer, the probe, the blank-page check, axe-core's run —
comes from ``function`` or ``call`` here, in Python, and Node tools are handed the
result (stages/quality/render.mjs, firefox.mjs evaluate it as it is).

A page script is an ES module of ours (``.mjs``). It may import named things from
other page modules, one relative import per line::

    import { visible, visibility } from '../../kits/page/visible.mjs';

export what other modules and its tests need (``export function name``, ``export
const NAME``), and, when a page runs it, one default export, the function it runs::

    export default function observe(limits) { ... }

Tests (tests/js) import the modules as they are, so what is tested is what runs.
For a page, each module becomes a closure over its own top-level names (two modules
may each have a ``clip``), its imports bound to the other closures' exports, and the
entry's default export is called with the argument. Nothing is renamed or minified.
A page module declares at its top level and does nothing there: a test imports it
outside any browser. Only the import and export forms above are understood; any other
is a ``ValueError`` when the script is assembled (tests/unit/injecting assembles every
page script). This module reads files and builds text; it runs nothing.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
from typing import Any

_IMPORT = re.compile(r"^import \{([^}]*)\} from '(\.\.?/[^']+\.mjs)';[ \t]*$")
_DEFAULT = re.compile(r"^export default (?:async )?function (\w+)\s*\(")
_NAMED = re.compile(r"^export (?:async function|function|const|let|class) (\w+)\b")
_KEYWORD = re.compile(r"^\s*(?:import|export)\b(?!\s*\()")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")




@functools.cache
def function(path: pathlib.Path) -> str:
    """The page script at ``path`` (an entry module) as one function expression of
    one argument, for Playwright's ``evaluate``, the isolated world or puppeteer."""
    order: list[pathlib.Path] = []
    _visit(pathlib.Path(path).resolve(), order, [])
    index = {module: n for n, module in enumerate(order)}
    # Not strict mode, as these scripts always ran: the init script's addEventListener
    # stands in for the page's, and a bare `addEventListener('keydown', f)` must give
    # it `window` as `this`, as it gives the builtin.
    parts = ["(arg) => {"]
    for module in order:
        body, imports, exports = _parse(module)
        parts.append(f"const __module{index[module]} = (() => {{")
        for names, target in imports:
            parts.append(f"const {{ {names} }} = __module{index[target]};")
        parts.append(body)
        parts.append("return { " + ", ".join(exports) + " };")
        parts.append("})();")
    if not any(e.startswith("default:") for e in _parse(order[-1])[2]):
        raise ValueError(f"{path}: no `export default function name(...)`: not a script a page can run")
    parts.append(f"return __module{index[order[-1]]}.default(arg);")
    parts.append("}")
    return "\n".join(parts)


def call(path: pathlib.Path, arg: Any = None) -> str:
    """An expression that runs the page script at ``path`` with ``arg`` (as JSON):
    for an init script, a DevTools ``Runtime.evaluate``, a Node tool's page."""
    return invoke(function(path), arg)


def invoke(source: str, arg: Any = None) -> str:
    """An expression that calls the function expression ``source`` with ``arg``."""
    return f"({source})({json.dumps(arg)})"


def _visit(module: pathlib.Path, order: list[pathlib.Path], stack: list[pathlib.Path]) -> None:
    if module in order:
        return
    if module in stack:
        raise ValueError(f"page scripts import each other in a circle: {module}")
    stack.append(module)
    for _names, target in _parse(module)[1]:
        _visit(target, order, stack)
    stack.pop()
    order.append(module)


@functools.cache
def _parse(module: pathlib.Path) -> tuple[str, tuple[tuple[str, pathlib.Path], ...], tuple[str, ...]]:
    """(body without its import and export keywords, imports as (destructuring,
    module), exported names with ``default: name``)."""
    if module.suffix != ".mjs":
        raise ValueError(f"a page script is an ES module (.mjs): {module}")
    lines = module.read_text(encoding="utf-8").split("\n")
    imports: list[tuple[str, pathlib.Path]] = []
    exports: list[str] = []
    for n, line in enumerate(lines):
        where = f"{module.name}:{n + 1}"
        if found := _IMPORT.match(line):
            names = [_binding(name.strip(), where) for name in found.group(1).split(",") if name.strip()]
            imports.append((", ".join(names), (module.parent / found.group(2)).resolve()))
            lines[n] = ""
        elif found := _DEFAULT.match(line):
            if any(e.startswith("default:") for e in exports):
                raise ValueError(f"{where}: a second default export")
            exports.append(f"default: {found.group(1)}")
            lines[n] = line[len("export default "):]
        elif found := _NAMED.match(line):
            exports.append(found.group(1))
            lines[n] = line[len("export "):]
        elif _KEYWORD.match(line):
            raise ValueError(f"{where}: only `import {{ a, b }} from './x.mjs';`, `export function|const|let|class"
                             f" name` and `export default function name(` are understood: {line.strip()[:80]}")
    return "\n".join(lines), tuple(imports), tuple(exports)


def _binding(name: str, where: str) -> str:
    """``a`` or ``a as b`` as a destructuring entry (``a`` / ``a: b``)."""
    parts = name.split()
    if len(parts) == 3 and parts[1] == "as" and _NAME.match(parts[0]) and _NAME.match(parts[2]):
        return f"{parts[0]}: {parts[2]}"
    if len(parts) == 1 and _NAME.match(parts[0]):
        return parts[0]
    raise ValueError(f"{where}: cannot import {name!r}")
