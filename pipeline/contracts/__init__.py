"""The data every stage agrees on: frozen pydantic models, no I/O.

Stages meet only through these models and the store. Nothing here may import a kit,
a stage or the operator (an import-linter contract checks it). Every model that is
stored on its own carries ``schema_version`` so that old evidence can be recognised.
"""
