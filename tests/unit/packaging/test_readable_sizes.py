"""Code stays at a readable size (issue 18): no function in pipeline/ or operator/ over
60 lines, no kit module over 500 — past that, it is two things."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
MAX_FUNCTION_LINES = 60
MAX_KIT_LINES = 500


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


def test_no_kit_is_longer_than_five_hundred_lines():
    big = [f"{p.relative_to(ROOT)} ({n} lines)" for p in _sources("pipeline/kits")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_KIT_LINES]
    assert not big, "split these:\n" + "\n".join(big)
