"""Code stays at a readable size (issues 18 and 47): no function in pipeline/ or operator/
over 60 lines and no module over 500 — past that, it is two things — and the same caps
for our own JavaScript, which ESLint holds (eslint.config.mjs; hack/verify runs it)."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 500


def _sources(*folders: str) -> list[pathlib.Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py")) if "node_modules" not in p.parts]


def test_no_function_is_longer_than_sixty_lines():
    long = []
    for path in _sources("pipeline", "operator"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "split these:\n" + "\n".join(long)


def test_no_module_is_longer_than_five_hundred_lines():
    big = [f"{p.relative_to(ROOT)} ({n} lines)" for p in _sources("pipeline", "operator")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not big, "split these:\n" + "\n".join(big)


def test_eslint_holds_our_javascript_to_the_same_caps():
    """ESLint's own parser measures our JavaScript (hack/verify runs it with --max-warnings 0):
    the config must ask for both caps, for every file it lints, as errors."""
    config = (ROOT / "eslint.config.mjs").read_text(encoding="utf-8")
    assert re.search(r"'max-lines-per-function':\s*\['error',\s*\{\s*max:\s*MAX_FUNCTION_LINES\b", config)
    assert re.search(r"'max-lines':\s*\['error',\s*\{\s*max:\s*MAX_MODULE_LINES\b", config)
    assert re.search(rf"const MAX_FUNCTION_LINES = {MAX_FUNCTION_LINES};", config)
    assert re.search(rf"const MAX_MODULE_LINES = {MAX_MODULE_LINES};", config)
