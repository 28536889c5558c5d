"""Catalog source for plain Python callables: the schema comes from type hints via pydantic.

A callable that cannot be a tool is a programming error in the application, so registering it
raises (`UserError`, or `SchemaError` for one whose parameters cannot be described) with the
callable and the reason named, instead of being skipped the way a bad remote tool is. A
callable that can be described but is over the `CatalogLimits` it is loaded with (a schema or a
docstring's first paragraph too large) is skipped and reported as any source's tool is: the
limits belong to whoever loads the catalog, not to the callable.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast, get_type_hints

from pydantic import ConfigDict, create_model

from ..errors import SchemaError, UserError
from ..telemetry._catalog_loads import catalog_span, loaded
from ._catalog import Catalog, CatalogLimits, ToolSpec

__all__ = ["CallableSource", "call_arguments", "callable_spec", "describe_callable"]

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def describe_callable(func: object) -> str:
    """How errors name a callable: `module.qualname`, or its repr when it has no qualified name
    (a `functools.partial`, a callable object), shortened."""
    qualname = getattr(func, "__qualname__", None)
    if isinstance(qualname, str) and not isinstance(func, functools.partial):
        module = getattr(func, "__module__", None)
        return f"{module}.{qualname}" if isinstance(module, str) else qualname
    text = repr(cast(object, func))
    return text if len(text) <= 120 else f"{text[:117]}..."


def _hinted(func: Callable[..., Any]) -> Callable[..., Any]:
    """The function whose annotations type `func`'s parameters: the wrapped function of a
    `functools.partial`, the `__call__` of a callable object."""
    target: Any = func
    while isinstance(target, functools.partial):
        target = cast("functools.partial[Any]", target).func
    if inspect.isroutine(target) or inspect.isclass(target):
        return target
    kind = type(cast(object, target))
    return getattr(kind, "__call__", target)  # noqa: B004 - the object's own __call__


def _description(func: Callable[..., Any]) -> str:
    doc = inspect.getdoc(func) or ""
    return doc.split("\n\n", 1)[0].strip()


def callable_spec(func: Callable[..., Any], *, name: str | None = None) -> ToolSpec:
    """A `ToolSpec` for `func`: parameters from its signature, descriptions from `Annotated` fields.

    `name` defaults to `func.__name__` (needed for a `functools.partial` or a callable object,
    which have none). Positional-only parameters are described like the others and passed by
    position when the tool is called. Raises `SchemaError` naming the callable and the reason
    when it cannot be described: a `*args` / `**kwargs` parameter, unreadable type hints, or
    hints pydantic cannot turn into a JSON Schema."""
    tool_name = name or getattr(func, "__name__", "")
    if not isinstance(tool_name, str) or not tool_name:
        raise UserError(
            f"{describe_callable(func)} has no __name__ to name its tool: pass name=..., or register "
            "it as CallableSource(source_name, {tool_name: callable})"
        )
    what = f"tool {tool_name!r} ({describe_callable(func)})"
    try:
        signature = inspect.signature(func)
        hints = get_type_hints(_hinted(func), include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        raise SchemaError(
            f"cannot register {what}: its signature or type hints cannot be read: {exc}"
        ) from exc
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in _VARIADIC:
            star = "*" if param.kind is inspect.Parameter.VAR_POSITIONAL else "**"
            raise SchemaError(
                f"cannot register {what}: its parameter {star}{param.name} takes any number of "
                "arguments, which a tool schema of named arguments cannot describe; give it named "
                "parameters"
            )
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    try:
        model = create_model(  # pyright: ignore[reportCallIssue, reportUnknownVariableType]
            f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
        schema: dict[str, Any] = model.model_json_schema()  # pyright: ignore[reportUnknownMemberType]
    except Exception as exc:  # pydantic raises several kinds for unsupported types
        raise SchemaError(
            f"cannot register {what}: no JSON Schema can be built from its type hints: {exc}"
        ) from exc
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)  # pyright: ignore[reportUnknownMemberType]
    return ToolSpec(name=tool_name, description=_description(func), input_schema=schema)


def call_arguments(
    func: Callable[..., Any], arguments: Mapping[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """`arguments` (by parameter name, as a model sends them) split into what `func` takes by
    position (its positional-only parameters, with the defaults of those skipped before a given
    one) and by keyword (the rest)."""
    keywords = dict(arguments)
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return [], keywords
    positional: list[Any] = []
    skipped_defaults: list[Any] = []
    for param in parameters:
        if param.kind is not inspect.Parameter.POSITIONAL_ONLY:
            break
        if param.name in keywords:
            positional.extend(skipped_defaults)
            skipped_defaults.clear()
            positional.append(keywords.pop(param.name))
        elif param.default is not inspect.Parameter.empty:
            skipped_defaults.append(param.default)
        else:
            break  # a required one is missing: the call reports it
    return positional, keywords


@dataclass(frozen=True, slots=True)
class CallableSource:
    """Python functions as tools. `functions` maps tool name -> callable (or is a list of callables)."""

    name: str
    functions: Mapping[str, Callable[..., Any]]

    @classmethod
    def of(cls, functions: Iterable[Callable[..., Any]], *, name: str = "python") -> CallableSource:
        """The source of `functions`, each a tool named after its `__name__`.

        Two different callables with one `__name__` (two modules' `search`, closures made by one
        factory) raise `UserError` naming both, where a JSON catalog would keep the first and
        report `duplicate_name`: both are the application's own code, and keeping either would
        silently route requests meant for the other. Name them apart, or register them as
        `CallableSource(name, {"web_search": ..., "product_search": ...})`. The same callable
        listed twice is one tool. A callable without a `__name__` (a `functools.partial`, a
        callable object) needs that mapping form too.
        """
        by_name: dict[str, Callable[..., Any]] = {}
        positions: dict[str, int] = {}
        for position, func in enumerate(functions):
            if not callable(func):
                raise UserError(
                    f"item {position} of the functions is not callable: {describe_callable(func)}"
                )
            tool_name = getattr(func, "__name__", None)
            if not isinstance(tool_name, str) or not tool_name:
                raise UserError(
                    f"item {position} of the functions, {describe_callable(func)}, has no __name__ to "
                    f"name its tool: register it as CallableSource({name!r}, {{tool_name: callable}})"
                )
            earlier = by_name.get(tool_name)
            if earlier is not None and earlier is not func:
                raise UserError(
                    f"two callables are both named {tool_name!r}: item {positions[tool_name]} "
                    f"({describe_callable(earlier)}) and item {position} ({describe_callable(func)}); "
                    "give them different __name__s, or register them as "
                    f"CallableSource({name!r}, {{tool_name: callable, ...}})"
                )
            by_name[tool_name] = func
            positions.setdefault(tool_name, position)
        return cls(name=name, functions=by_name)

    def load(self, limits: CatalogLimits | None = None) -> Catalog:
        with catalog_span(self.name, "callables") as span:
            specs = [callable_spec(func, name=tool_name) for tool_name, func in self.functions.items()]
            return loaded(span, Catalog.from_specs(self.name, specs, limits))
