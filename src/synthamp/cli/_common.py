"""Shared option types and output helpers of the command line."""

from __future__ import annotations

import json
import math
from typing import Any

import click
import numpy as np

from synthamp.jobs import SCHEMA_VERSION

__all__ = [
    "FLOAT_LIST",
    "SCHEMA_VERSION",
    "FloatList",
    "deprecated_alias",
    "echo_json",
    "envelope",
    "json_ready",
]


class FloatList(click.ParamType):
    """A comma-separated list of numbers, e.g. ``2,4,8``."""

    name = "LIST"

    def convert(self, value, param, ctx):
        if isinstance(value, list | tuple):
            return [float(v) for v in value]
        items = [item.strip() for item in str(value).split(",")]
        if not items or any(item == "" for item in items):
            self.fail(f"expected a comma-separated list of numbers, got {value!r}", param, ctx)
        out = []
        for item in items:
            try:
                number = float(item)
            except ValueError:
                self.fail(f"{item!r} is not a number", param, ctx)
            if not math.isfinite(number):
                self.fail(f"{item!r} is not a finite number", param, ctx)
            out.append(number)
        return out


FLOAT_LIST = FloatList()


def json_ready(obj: Any) -> Any:
    """Convert numpy scalars/arrays (recursively) to JSON-serialisable Python objects."""
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [json_ready(v) for v in obj.tolist()]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def echo_json(obj: Any) -> None:
    """Print one JSON object on stdout, led by ``schema_version`` and ``command`` (docs/json.md)."""
    ctx = click.get_current_context(silent=True)
    if isinstance(obj, dict) and ctx is not None:
        obj = envelope(ctx.info_name, obj)
    click.echo(json.dumps(json_ready(obj), indent=2))


def envelope(command: str, fields: dict[str, Any]) -> dict[str, Any]:
    """One command's JSON object: ``schema_version`` and ``command`` first, then ``fields``."""
    rest = {k: v for k, v in fields.items() if k not in ("schema_version", "command")}
    return {"schema_version": SCHEMA_VERSION, "command": command, **rest}


def deprecated_alias(value: Any, alias_value: Any, *, old: str, new: str) -> Any:
    """Resolve a hidden, deprecated spelling of an option: warn and use it when given.

    Commands declare the old spelling as a hidden option with default ``None``
    and pass both values here.
    """
    if alias_value is None or alias_value is False:
        return value
    click.echo(f"synthamp: warning: {old} is deprecated; use {new}", err=True)
    return alias_value
