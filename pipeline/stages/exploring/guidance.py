"""Coverage-plateau guidance for the LLM tester: what code has not run yet, as source
excerpts with file and line numbers, from Istanbul's map and the original sources.

Pure text-making over the live coverage the explorer reads; it never touches the page.
"""

from __future__ import annotations

from iwcbench.pipeline.stages.exploring import coverage, llm_policy

UNCOVERED_LIMIT = 20  # uncovered functions/statements shown to the guidance model


def render_uncovered(items: list[dict]) -> str | None:
    """Istanbul's uncovered items as source excerpts with file and line numbers."""
    if not items:
        return None
    parts = []
    for item in items:
        name = f" {item['name']}" if item.get("name") else ""
        parts.append(f"--- {item['file']} lines {item['start_line']}-{item['end_line']} "
                     f"({item['kind']}{name})\n{item['snippet']}")
    return "\n".join(parts)


def guide(policy: llm_policy.LLMPolicy, coverage_map: dict | None, sources: dict[str, str]) -> None:
    """Let ``policy`` ask, at a plateau, which code has not run (instrumented apps only)."""
    if not coverage_map:
        return

    def uncovered() -> str | None:
        live = policy.context.coverage if policy.context else None
        if live is None:
            return None
        return render_uncovered(coverage.uncovered(live(), coverage_map, sources, UNCOVERED_LIMIT))

    policy.uncovered = uncovered
