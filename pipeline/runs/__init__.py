"""Runs: the only place that knows the order of the stages.

``app`` takes one app through instrument → serve → explore → abstract → score (and
judge); ``local`` plans, resumes and schedules a run's apps on this machine;
``finishing`` completes, aggregates and reports a run wherever its apps ran;
``rescoring`` and ``checklists`` re-use stored evidence and tasks with an LLM;
``assistants`` composes the typed LLM side of an app; ``inputs`` reads tasks and apps
from a folder or a store; ``provenance`` records what produced the results.
Stages never import this package; the CLI and the operator do.
"""
