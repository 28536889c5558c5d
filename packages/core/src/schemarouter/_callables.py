"""Catalog source for plain Python callables: the schema comes from type hints via pydantic."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import ConfigDict, create_model

from ._catalog import Catalog, CatalogLimits, ToolSpec
from .errors import SchemaError

__all__ = ["CallableSource", "callable_spec"]


def _description(func: Callable[..., Any]) -> str:
    doc = inspect.getdoc(func) or ""
    return doc.split("\n\n", 1)[0].strip()


def callable_spec(func: Callable[..., Any], *, name: str | None = None) -> ToolSpec:
    """A `ToolSpec` for `func`: parameters from its signature, descriptions from `Annotated` fields."""
    tool_name = name or getattr(func, "__name__", "")
    try:
        signature = inspect.signature(func)
        hints = get_type_hints(func, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        raise SchemaError(f"cannot read the signature of {tool_name or func!r}: {exc}") from exc
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise SchemaError(f"{tool_name}: *args / **kwargs cannot be described as a tool schema")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    try:
        model = create_model(  # pyright: ignore[reportCallIssue, reportUnknownVariableType]
            f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
        schema: dict[str, Any] = model.model_json_schema()  # pyright: ignore[reportUnknownMemberType]
    except Exception as exc:  # pydantic raises several kinds for unsupported types
        raise SchemaError(f"{tool_name}: cannot build a JSON Schema from its type hints: {exc}") from exc
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)  # pyright: ignore[reportUnknownMemberType]
    return ToolSpec(name=tool_name, description=_description(func), input_schema=schema)


@dataclass(frozen=True, slots=True)
class CallableSource:
    """Python functions as tools. `functions` maps tool name -> callable (or is a list of callables)."""

    name: str
    functions: Mapping[str, Callable[..., Any]]

    @classmethod
    def of(cls, functions: Iterable[Callable[..., Any]], *, name: str = "python") -> CallableSource:
        return cls(name=name, functions={getattr(f, "__name__", ""): f for f in functions})

    def load(self, limits: CatalogLimits | None = None) -> Catalog:
        specs = [callable_spec(func, name=tool_name) for tool_name, func in self.functions.items()]
        return Catalog.from_specs(self.name, specs, limits)
