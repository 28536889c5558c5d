"""Immutable catalog snapshots, and the checks every source's tools pass through."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as JsonSchemaError

from ..errors import SchemaError, UserError
from ._canonical import canonical_bytes, sha256_hex
from ._capability import ROUTE_SEPARATOR, Capability
from ._definitions import definition_name, parse_definition, read_definitions_file, single_definitions
from ._metaschema import plainly_valid
from ._names import lookalike_groups
from ._schema_checks import MAX_SCHEMA_DEPTH, dangling_ref, nesting_depth, too_expansive

if TYPE_CHECKING:
    from mcp.types import Tool as McpTool

__all__ = [
    "Catalog",
    "CatalogLimits",
    "CutReason",
    "ListingCut",
    "SkipReason",
    "SkippedTool",
    "ToolSpec",
    "name_too_long",
    "over_tool_limit",
    "schema_too_large",
    "text_too_large",
]

SkipReason = Literal[
    "empty_name",
    "duplicate_name",
    "invalid_schema",
    "schema_too_large",
    "description_too_large",
    "tool_limit",
    "invalid_description",
    "invalid_definition",
    "name_too_long",
]
"""Why a tool was skipped: `empty_name` (no name), `duplicate_name` (an earlier tool of the source
has it), `invalid_schema` (a schema that is not a valid JSON Schema object with root type
`object`, or a name containing `:`), `schema_too_large` (over `CatalogLimits.max_schema_bytes`),
`description_too_large` (a description or title over `CatalogLimits.max_description_bytes`),
`tool_limit` (the source already gave `CatalogLimits.max_tools` tools), `invalid_description`
(not a string), `invalid_definition` (not a tool definition of a recognised shape, or not plain
JSON data: nested too deeply to read, or holding NaN), `name_too_long` (a name over
`CatalogLimits.max_name_chars`)."""

CutReason = Literal["page_limit", "tool_limit"]
"""Why a source's listing was not read to its end (see `ListingCut`)."""


@dataclass(frozen=True, slots=True)
class CatalogLimits:
    """Bounds applied while loading a catalog. Tools past them are skipped and reported: each
    tool read but not kept is a `SkippedTool`, and a listing left unread past a limit is a
    `ListingCut` on `Catalog.cut_short`."""

    max_tools: int = 10_000
    """Tools kept per source at most. An MCP listing stops at the first page that takes it over
    this limit; the tools of that page past the limit are skipped as `tool_limit`."""
    max_schema_bytes: int = 64 * 1024
    """Size of an input or output schema at most, in bytes of its canonical JSON; a tool over it
    is skipped as `schema_too_large`."""
    max_description_bytes: int = 16 * 1024
    """Size of a tool's description at most, in UTF-8 bytes, and of its title on its own (the
    same bound, each checked by itself); a tool over it is skipped as `description_too_large`.

    A description is tokenised and indexed on every catalog build, fingerprinted, and offered
    to the model word for word, so one source sending megabytes costs time, memory and prompt
    on every request. Honest descriptions are far smaller: the longest of the 526 real MCP
    tools in LiveMCPBench is 3,886 bytes, MetaTool's longest 355. 16 KiB leaves four times the
    longest seen (about 4,000 tokens of English) while bounding what one tool can cost. A title
    is a display name and needs no bound of its own: it gets the same one rather than a second
    knob."""
    max_name_chars: int = 128
    """Characters of a tool's name at most; a tool over it is skipped as `name_too_long`. The MCP
    specification asks for names of 1 to 128 characters; the longest in the development data
    has 64 (BFCL). A name is an identifier the gate trusts as naming the tool: an unbounded one
    is room for keyword stuffing (and its words past 12 count as description words anyway)."""
    max_pages: int = 100
    """MCP `tools/list` pages followed at most (pagination)."""
    max_listing_bytes: int = 32 * 1024 * 1024
    """Bytes of an MCP server's `tools/list` answers at most, all pages together. Over HTTP they
    are counted after content decoding, while they are read, so a compressed answer that would
    decode to gigabytes is stopped at this bound; over stdio each answer counts as its compact
    JSON once it has arrived. A listing over the bound fails with a `ServerProtocolError`
    naming this limit.

    32 MiB is far above honest listings: the largest of LiveMCPBench's 70 servers lists 41 KB,
    and its 527 tools together 420 KB (about 800 bytes a tool), so `max_tools` (10,000) such
    tools come to 8 MB."""

    def __post_init__(self) -> None:
        for field_name in (
            "max_tools",
            "max_schema_bytes",
            "max_description_bytes",
            "max_name_chars",
            "max_pages",
            "max_listing_bytes",
        ):
            value: object = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UserError(f"CatalogLimits.{field_name} must be an integer >= 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a source reported it, before validation."""

    name: Any
    description: Any = None
    input_schema: Any = None
    title: Any = None
    output_schema: Any = None
    annotations: Any = None

    @classmethod
    def from_definition(cls, definition: object) -> ToolSpec:
        """The spec of a tool definition written as JSON: OpenAI (Chat Completions or
        Responses), Anthropic, or an MCP `tools/list` entry. Raises `SchemaError` for any other
        shape (another tool type, two input schemas, not an object)."""
        return cls(*parse_definition(definition))

    def fingerprint(self, source: str) -> str | None:
        """The contract fingerprint a catalog gives this tool from `source` (the contract
        alone: the source is not part of it), or None when a
        catalog would skip it for its name, description or schema's shape.

        The schemas are not validated here (that is the catalog's slower check), and no size
        limit is applied: compare the result with a catalog capability's `fingerprint`, which
        passed both. Equal fingerprints mean the very contract the catalog validated, as
        adapters use it to tell a live tool that changed since the catalog was built. A live
        tool whose description or schema grew past the catalog's limits differs from every
        contract the catalog kept, so its fingerprint matches none of them; checking sizes here
        against default limits would instead fail every tool of a catalog loaded with larger
        `CatalogLimits`."""
        try:
            built = _validate(source, self, CatalogLimits(), check_schemas=False)
            return built.fingerprint if isinstance(built, Capability) else None
        except _UNREADABLE:  # a contract that is not JSON data has no fingerprint
            return None

    @classmethod
    def from_mcp_tool(cls, tool: McpTool) -> ToolSpec:
        """The spec of a tool from an MCP `tools/list` answer, with its title, output schema and
        annotations (unset hints left out). Every MCP path in SchemaRouter converts tools here,
        so one server's tools get the same fingerprints whichever client listed them."""
        annotations = (
            tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
        )
        return cls(
            name=tool.name,
            description=tool.description,
            input_schema=tool.input_schema,
            title=tool.title,
            output_schema=tool.output_schema,
            annotations=annotations,
        )


@dataclass(frozen=True, slots=True)
class SkippedTool:
    """A tool that could not be loaded; the rest of the catalog still loads."""

    source: str
    name: str
    reason: SkipReason
    detail: str


@dataclass(frozen=True, slots=True)
class ListingCut:
    """A source whose tool listing was not read to its end: the catalog lacks whatever the
    source listed past this point, and the number of those tools is unknown.

    `reason` is `page_limit` when `CatalogLimits.max_pages` pages were read and the server
    offered another, `tool_limit` when the pages read already listed more than
    `CatalogLimits.max_tools` tools (those read past the limit are each skipped as
    `tool_limit`) and the server offered another page. `tools_listed` counts the tools on the
    pages read."""

    source: str
    reason: CutReason
    pages_read: int
    tools_listed: int
    detail: str


_UNREADABLE = (TypeError, ValueError, RecursionError)
"""What checking or fingerprinting a tool raises when its definition is not plain JSON data:
NaN or a non-string key (`TypeError`, `ValueError`), or nesting deeper than Python's
recursion limit allows (`RecursionError`)."""


def _unreadable(source: str, spec: ToolSpec, exc: BaseException) -> SkippedTool:
    name = spec.name if isinstance(spec.name, str) else ""
    if isinstance(exc, RecursionError):
        detail = "the tool's definition is nested too deeply to be checked"
    else:
        detail = f"the tool's definition is not plain JSON data: {exc}"
    return SkippedTool(source, name, "invalid_definition", detail)


def _check_schema(value: Any, what: str, limits: CatalogLimits) -> tuple[SkipReason, str] | None:
    """Why the schema `value` cannot be loaded (a skip reason and its detail), or None.

    Beyond being a valid Draft 2020-12 schema within the size limit, it must be nested at most
    `MAX_SCHEMA_DEPTH` levels (checking, copying and fingerprinting it recurse) and each `$ref`
    into the schema itself must resolve (see `_schema_checks`)."""
    if not isinstance(value, Mapping):
        return "invalid_schema", f"{what} is {type(value).__name__}, not a JSON object"
    too_deep = f"{what} is nested too deeply: more than {MAX_SCHEMA_DEPTH} levels of objects and arrays"
    try:
        serialised = canonical_bytes(value)
    except RecursionError:
        return "invalid_schema", too_deep
    except (TypeError, ValueError) as exc:
        return "invalid_schema", f"{what} is not serialisable as JSON: {exc}"
    if (too_large := schema_too_large(len(serialised), what, limits)) is not None:
        return too_large
    schema = cast("Mapping[str, Any]", value)
    try:
        # the common case, judged by a plain walk; anything it cannot vouch for meets the full check
        certain = plainly_valid(schema)
    except RecursionError:  # called from a deep stack
        certain = False
    if not certain:
        if nesting_depth(schema) > MAX_SCHEMA_DEPTH:
            return "invalid_schema", too_deep
        try:
            Draft202012Validator.check_schema(schema)
        except JsonSchemaError as exc:
            where = "/".join(str(p) for p in exc.path) or "(root)"
            return "invalid_schema", f"{what} is not a valid JSON Schema at {where}: {exc.message}"
        except RecursionError:  # within the depth limit, but called from a deep stack
            return "invalid_schema", too_deep
    if b'"$ref"' in serialised or b'"$dynamicRef"' in serialised:
        dangling = dangling_ref(schema)
        if dangling is not None:
            return "invalid_schema", f"{what} has a dangling reference: {dangling}"
        if (expansive := too_expansive(schema, what)) is not None:
            return expansive
    return None


def schema_too_large(size: int, what: str, limits: CatalogLimits) -> tuple[SkipReason, str] | None:
    """The `schema_too_large` skip of a schema of `size` bytes (canonical JSON), or None."""
    if size <= limits.max_schema_bytes:
        return None
    return "schema_too_large", f"{what} is {size} bytes, over the limit of {limits.max_schema_bytes}"


def name_too_long(source: str, name: str, limits: CatalogLimits) -> SkippedTool | None:
    """The `name_too_long` skip of a tool named `name`, or None."""
    if len(name) <= limits.max_name_chars:
        return None
    detail = f"name has {len(name)} characters, over the limit of {limits.max_name_chars} (CatalogLimits.max_name_chars)"
    return SkippedTool(source, name[: limits.max_name_chars] + "...", "name_too_long", detail)


def over_tool_limit(source: str, name: str, limits: CatalogLimits) -> SkippedTool:
    """The `tool_limit` skip of a tool read once its source has `limits.max_tools` tools."""
    return SkippedTool(source, name, "tool_limit", f"over the limit of {limits.max_tools} tools")


def text_too_large(text: str | None, what: str, limits: CatalogLimits) -> str | None:
    """The detail of a `description_too_large` skip when `text` is over
    `limits.max_description_bytes` UTF-8 bytes, else None. A text of at most a quarter of the
    limit in characters is within it whatever they are, and is not encoded to be measured."""
    limit = limits.max_description_bytes
    if text is None or len(text) * 4 <= limit:
        return None
    size = len(text.encode("utf-8"))  # a lone surrogate raises: not plain JSON data
    if size <= limit:
        return None
    return f"{what} is {size} bytes (UTF-8), over the limit of {limit} (CatalogLimits.max_description_bytes)"


def _validate(
    source: str, spec: ToolSpec, limits: CatalogLimits, check_schemas: bool = True
) -> Capability | SkippedTool:
    """The capability of `spec`, or why a catalog skips it. `check_schemas=False` (for
    `ToolSpec.fingerprint`) leaves out schema validation and every size limit."""
    name = spec.name if isinstance(spec.name, str) else ""
    if not name.strip():
        return SkippedTool(source, str(spec.name or ""), "empty_name", "tool has no name")
    if ROUTE_SEPARATOR in name:
        return SkippedTool(source, name, "invalid_schema", f"tool name contains {ROUTE_SEPARATOR!r}")
    if check_schemas and (too_long := name_too_long(source, name, limits)) is not None:
        return too_long
    if spec.description is not None and not isinstance(spec.description, str):
        return SkippedTool(source, name, "invalid_description", "description is not a string")
    title = spec.title if isinstance(spec.title, str) else None
    if check_schemas:
        too_large = text_too_large(spec.description, "description", limits) or text_too_large(
            title, "title", limits
        )
        if too_large is not None:
            return SkippedTool(source, name, "description_too_large", too_large)
    raw_schema: Any = (
        spec.input_schema if spec.input_schema is not None else {"type": "object", "properties": {}}
    )
    if check_schemas:
        problem = _check_schema(raw_schema, "input schema", limits)
    elif not isinstance(raw_schema, Mapping):
        problem = ("invalid_schema", "input schema is not a JSON object")
    else:
        problem = None
    input_schema = cast("Mapping[str, Any]", raw_schema)
    if problem is None and input_schema.get("type", "object") != "object":
        problem = ("invalid_schema", "input schema root is not of type 'object'")
    if problem is None and spec.output_schema is not None and check_schemas:
        problem = _check_schema(spec.output_schema, "output schema", limits)
    if problem is not None:
        return SkippedTool(source, name, problem[0], problem[1])
    raw_annotations: Any = spec.annotations
    annotations = cast("Mapping[str, Any]", raw_annotations) if isinstance(raw_annotations, Mapping) else None
    return Capability(
        source=source,
        name=name,
        description=spec.description or "",
        input_schema=input_schema,
        title=title,
        output_schema=spec.output_schema,
        annotations=annotations,
    )


class Catalog:
    """An immutable snapshot of tool contracts.

    Iterating yields capabilities in load order. `version` is derived from every
    route and fingerprint (order-independent): any contract change gives a new
    version, and anything cached per catalog is keyed on it.
    """

    __slots__ = ("_by_name", "_by_route", "_capabilities", "_cut_short", "_named", "_skipped", "_version")

    def __init__(
        self,
        capabilities: Iterable[Capability] = (),
        skipped: Iterable[SkippedTool] = (),
        cut_short: Iterable[ListingCut] = (),
    ) -> None:
        caps = tuple(capabilities)
        by_route: dict[str, Capability] = {}
        for cap in caps:
            if cap.route in by_route:
                raise UserError(f"duplicate route {cap.route!r} in catalog")
            by_route[cap.route] = cap
        self._capabilities = caps
        self._by_route = by_route
        self._by_name: dict[tuple[str, str], Capability] = {(c.source, c.name): c for c in caps}
        named: dict[str, list[Capability]] = {}
        for cap in caps:
            named.setdefault(cap.name, []).append(cap)
        self._named = {name: tuple(group) for name, group in named.items()}
        self._skipped = tuple(skipped)
        self._cut_short = tuple(cut_short)
        digest_input = "\n".join(sorted(f"{c.route}\t{c.fingerprint}" for c in caps))
        self._version = sha256_hex(digest_input.encode("utf-8"))

    @classmethod
    def from_specs(
        cls, source: str, specs: Iterable[ToolSpec], limits: CatalogLimits | None = None
    ) -> Catalog:
        """Validate a source's tools; bad ones are skipped with a reason, the rest load.

        Once `limits.max_tools` tools are kept, every further tool is skipped as `tool_limit`
        without being checked. A tool whose definition is not plain JSON data (nested too
        deeply to check, or holding NaN) is skipped as `invalid_definition`, never raised."""
        if not source or ROUTE_SEPARATOR in source:
            raise UserError(f"source name must be non-empty and must not contain {ROUTE_SEPARATOR!r}")
        limits = limits or CatalogLimits()
        caps: list[Capability] = []
        skipped: list[SkippedTool] = []
        seen: set[str] = set()
        for position, spec in enumerate(specs):
            if not isinstance(spec, ToolSpec):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise UserError(
                    f"specs must be ToolSpec objects; item {position} is a {type(spec).__name__}"
                    " (tool definitions as dicts load with Catalog.from_definitions)"
                )
            if len(caps) >= limits.max_tools:
                skipped.append(
                    over_tool_limit(source, spec.name if isinstance(spec.name, str) else "", limits)
                )
                continue
            try:
                result = _validate(source, spec, limits)
            except _UNREADABLE as exc:
                result = _unreadable(source, spec, exc)
            if isinstance(result, SkippedTool):
                skipped.append(result)
            elif result.name in seen:
                skipped.append(
                    SkippedTool(source, result.name, "duplicate_name", "an earlier tool has this name")
                )
            else:
                seen.add(result.name)
                caps.append(result)
        return cls(caps, skipped)

    @classmethod
    def from_definitions(
        cls, source: str, definitions: Iterable[object], limits: CatalogLimits | None = None
    ) -> Catalog:
        """A catalog from JSON tool definitions (see `ToolSpec.from_definition`). A definition of
        no recognised shape is skipped with reason `invalid_definition`; the rest load as
        `from_specs` loads them."""
        specs: list[ToolSpec] = []
        refused: list[SkippedTool] = []
        for place, definition in single_definitions(definitions):
            try:
                specs.append(ToolSpec.from_definition(definition))
            except SchemaError as exc:
                detail = f"definition {place}: {exc}"
                refused.append(SkippedTool(source, definition_name(definition), "invalid_definition", detail))
        catalog = cls.from_specs(source, specs, limits)
        return cls(catalog, (*refused, *catalog.skipped)) if refused else catalog

    @classmethod
    def from_file(
        cls, path: str | Path, source: str | None = None, limits: CatalogLimits | None = None
    ) -> Catalog:
        """A catalog from a JSON file of tool definitions: an array, or an object with a `tools`
        array (an MCP `tools/list` result). `source` defaults to the file name without its
        extension. An unreadable or malformed file raises `UserError`."""
        name, definitions = read_definitions_file(path, source)
        return cls.from_definitions(name, definitions, limits)

    @classmethod
    def merge(cls, *catalogs: Catalog) -> Catalog:
        """One catalog from several sources; routes must not collide."""
        return cls(
            (cap for cat in catalogs for cap in cat),
            (skip for cat in catalogs for skip in cat.skipped),
            (cut for cat in catalogs for cut in cat.cut_short),
        )

    @property
    def version(self) -> str:
        return self._version

    @property
    def skipped(self) -> tuple[SkippedTool, ...]:
        return self._skipped

    @property
    def cut_short(self) -> tuple[ListingCut, ...]:
        """Sources whose listing was not read to its end (a limit was reached while the source
        offered more): the catalog lacks their tools past that point. Empty when every
        listing was read in full."""
        return self._cut_short

    @property
    def routes(self) -> tuple[str, ...]:
        return tuple(c.route for c in self._capabilities)

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.source for c in self._capabilities))

    def __iter__(self) -> Iterator[Capability]:
        return iter(self._capabilities)

    def __len__(self) -> int:
        return len(self._capabilities)

    def __contains__(self, route: object) -> bool:
        return route in self._by_route

    def __repr__(self) -> str:
        cut = f", {len(self._cut_short)} listings cut short" if self._cut_short else ""
        return f"Catalog({len(self)} tools, {len(self._skipped)} skipped{cut}, version={self._version[:12]})"

    def get(self, route: str) -> Capability | None:
        return self._by_route.get(route)

    def __getitem__(self, route: str) -> Capability:
        try:
            return self._by_route[route]
        except KeyError:
            raise KeyError(f"no tool with route {route!r} in this catalog") from None

    def lookup(self, source: str, name: str) -> Capability | None:
        return self._by_name.get((source, name))

    def unknown(self, names_or_routes: Iterable[str]) -> tuple[str, ...]:
        """Those of `names_or_routes` that are neither a tool name nor a route of this catalog,
        sorted (a typo in a static rule or a calibration label, usually)."""
        given = set(names_or_routes)
        return tuple(sorted(given - {cap.name for cap in self} - set(self._by_route)))

    def by_name(self, name: str) -> tuple[Capability, ...]:
        """Every capability with this tool name, across sources, in catalog order (a lookup)."""
        return self._named.get(name, ())

    def total_schema_bytes(self) -> int:
        return sum(c.schema_bytes for c in self._capabilities)

    @property
    def lookalikes(self) -> tuple[tuple[str, ...], ...]:
        """Routes whose tool names differ but look alike (`name_skeleton`: other scripts' letters
        drawn like Latin ones, zero-width characters, fullwidth forms, case), one group per
        look, in catalog order. A model or a reviewer cannot tell such tools apart; `Visibility`
        hides a lookalike of a blocked name as blocked, and `AllowSet.shared_names` reports
        lookalikes offered together. Empty for most catalogs."""
        return lookalike_groups({cap.route: cap.name for cap in self._capabilities})
