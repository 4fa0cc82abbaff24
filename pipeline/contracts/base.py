"""Shared base for the contracts: frozen, strict about unknown fields."""

from __future__ import annotations

import pydantic

SCHEMA_VERSION = "1"


class Model(pydantic.BaseModel):
    """A frozen record: unknown fields are an error, never silently dropped."""

    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")


class Stored(Model):
    """A record written to the store as its own artifact."""

    schema_version: str = SCHEMA_VERSION
