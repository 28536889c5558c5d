"""The driver protocol: the small, framework-specific part an adapter author writes.

The suite builds a `Scenario` (a catalog source, an allow-set provider, which tools need
approval, one input and one output guardrail, and, for the conversation tests, the session
limits of conversation mode) and asks the driver to express it with the framework's *own*
mechanisms, then to run single turns with the framework's offline model. In native mode
(`Scenario.native`, the native-mode tests) the turns run through the framework's real provider
model class instead, its SDK client pointed at the suite's recording fake provider
(`NativeProvider`), so the suite reads the requests as the provider would receive them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # the package imports this module eagerly; it must not pull in schemarouter
    from schemarouter import AllowSetProvider, McpSource, SessionLimits

__all__ = [
    "AdapterDriver",
    "CallOutcome",
    "CallReport",
    "DriverCapabilities",
    "FindToolsReport",
    "FixtureSource",
    "NativeApi",
    "NativeDriver",
    "NativeProvider",
    "NativeTurnReport",
    "OfferedTool",
    "OfferedTools",
    "RunRequest",
    "Scenario",
]

CallOutcome = Literal[
    "ran",
    "awaiting_approval",
    "rejected",
    "blocked_by_input_guardrail",
    "refused_hidden",
    "error",
]
"""What happened to a scripted tool call:

- `ran`: the framework executed the tool body (it is in the call log);
- `awaiting_approval`: the framework paused the run for an approval decision;
- `rejected`: an approval was denied and the framework did not run the tool;
- `blocked_by_input_guardrail`: the framework's input guardrail stopped the call;
- `refused_hidden`: the tool was not visible for this request, so the call was refused;
- `error`: anything else (the report's `detail` says what).
"""

NativeApi = Literal["responses", "messages"]
"""A provider API whose deferred tool loading native mode relies on: OpenAI Responses
(`responses`) or Anthropic Messages (`messages`)."""


@dataclass(frozen=True, slots=True)
class FixtureSource:
    """How to reach the fixture MCP server for this scenario."""

    transport: Literal["stdio", "http"]
    call_log: Path
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    url: str | None = None
    source_name: str = "fixture"
    """The `source` of the catalog's routes (`fixture:<tool>`)."""

    def mcp_source(self) -> McpSource:
        """The core's `McpSource` for this server: what a driver connects through, and lists
        the catalog with, when its framework takes a SchemaRouter source."""
        from schemarouter import McpSource

        if self.transport == "http":
            if self.url is None:
                raise ValueError("an http fixture source needs a url")
            return McpSource.http(self.url, name=self.source_name)
        if self.command is None:
            raise ValueError("a stdio fixture source needs a command")
        return McpSource.stdio(self.command, self.args, env=self.env, name=self.source_name)


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything a driver needs to build one agent.

    `visibility` is what the adapter must consult (it may raise, to test failing closed).
    Tools named in `approval_required` must need approval through the framework's own
    approval mechanism. The input guardrail must reject any call whose arguments contain
    `guardrail_trip_value`; the output guardrail must observe every tool result (the driver
    reports it in `CallReport.output_seen_by_guardrail`).
    """

    source: FixtureSource
    visibility: AllowSetProvider
    approval_required: frozenset[str] = frozenset()
    guardrail_trip_value: str = "__guardrail_trip__"
    options: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Driver-specific knobs a suite subclass may set (e.g. `{"cache_tools_list": True}`)."""
    conversations: SessionLimits | None = None
    """When set, build the agent in conversation mode with these limits (the adapter's
    `sessions=` argument): one `RoutingSession` per conversation, find-tools offered first."""
    native: bool = False
    """When True, build the agent in the adapter's native mode (the `tools` array fixed for the
    conversation, routed tools deferred and revealed): the native-mode tests run its turns with
    `AdapterDriver.native_turn`."""


@dataclass(frozen=True, slots=True)
class RunRequest:
    """Per-run context. `query=None` means the run carries no request (must fail closed)."""

    query: str | None
    principal: Hashable | None = None
    conversation: str | None = None
    """The conversation the run belongs to (conversation mode); None: the run carries no
    conversation id. Keep each conversation's context where your users would (the same context
    dict, deps or checkpointer thread id), so its state carries over from run to run."""


@dataclass(frozen=True, slots=True)
class OfferedTool:
    name: str
    input_schema: Mapping[str, Any]
    """The JSON schema exactly as the model was offered it."""


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """What the model saw in one turn."""

    tools: tuple[OfferedTool, ...]
    failure: str | None = None
    """A routing failure the adapter surfaced (raised or logged), if any."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)


@dataclass(frozen=True, slots=True)
class CallReport:
    """The outcome of one scripted tool call."""

    tool: str
    outcome: CallOutcome
    output: str | None = None
    output_seen_by_guardrail: bool = False
    detail: str = ""
    pending: Any = None
    """Opaque state the driver needs to `resume` an `awaiting_approval` call."""


@dataclass(frozen=True, slots=True)
class DriverCapabilities:
    """What a framework can do; a suite test needing a missing capability is skipped visibly."""

    approvals: bool = True
    input_guardrails: bool = True
    output_guardrails: bool = True
    http_transport: bool = True
    concurrent_runs: bool = True
    conversations: bool = True
    """Conversation mode: `Scenario.conversations`, `RunRequest.conversation`, `call_find_tools`."""
    state_access: bool = False
    """The driver can read and replace a conversation's saved state where the framework keeps it
    (`conversation_state`, `replace_conversation_state`), so the suite can edit it as an attacker
    with write access to stored run state would."""
    native_mode: tuple[NativeApi, ...] = ()
    """The provider APIs the adapter's native mode runs with, through the framework's real model
    class (`Scenario.native`, `native_turn`); empty: the adapter has no native mode, and the
    native-mode tests are skipped, with that reason."""


@dataclass(frozen=True, slots=True)
class NativeProvider:
    """Where a native-mode turn's model requests go: the suite's recording fake provider."""

    api: NativeApi
    base_url: str
    """The `base_url` of the provider SDK's client (OpenAI's for `responses`, Anthropic's for
    `messages`); the server is on 127.0.0.1 and takes any API key."""


@dataclass(frozen=True, slots=True)
class NativeTurnReport:
    """The outcome of one native-mode turn (`AdapterDriver.native_turn`)."""

    output: str | None
    """The model's final text, or None when the turn did not finish."""
    failure: str | None = None
    """A routing failure the adapter surfaced (raised or logged), if any."""
    detail: str = ""
    """Why the turn did not finish (the error the run raised), when `output` is None."""


@dataclass(frozen=True, slots=True)
class FindToolsReport:
    """The outcome of one scripted find-tools call (`AdapterDriver.call_find_tools`)."""

    result: str
    """The text the model received as the find-tools tool's result."""
    offered_next: OfferedTools
    """What the model was offered on the model step right after the find-tools call, in the
    order it received them (find-tools included)."""
    outcome: CallOutcome = "ran"
    detail: str = ""


@runtime_checkable
class AdapterDriver(Protocol):
    """Implemented once per framework. Every method may be `async`."""

    name: str
    capabilities: DriverCapabilities

    async def build(self, scenario: Scenario) -> Any:
        """Build a framework-native agent (with the adapter plugged in) for `scenario`."""
        ...

    async def offered_tools(self, agent: Any, request: RunRequest) -> OfferedTools:
        """Run one turn with an offline model that calls no tool; report what it was offered
        (in conversation mode, in the order the model received them: find-tools first)."""
        ...

    async def call_tool(
        self, agent: Any, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        """Run one turn whose offline model calls `tool` with `arguments`; report the outcome."""
        ...

    async def resume(
        self, agent: Any, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        """Approve or reject a call that is `awaiting_approval`, resume the run, report the outcome."""
        ...

    async def call_find_tools(self, agent: Any, request: RunRequest, query: str) -> FindToolsReport:
        """Run one turn of `request.conversation` whose offline model first calls the find-tools
        tool with `{"query": query}`, then, on the next step, calls no tool; report the tool's
        result text and what the next step was offered. Needed with `capabilities.conversations`."""
        ...

    async def conversation_state(self, agent: Any, request: RunRequest) -> Mapping[str, Any] | None:
        """The saved routing state of `request.conversation` (for `request.principal`) exactly
        where the framework keeps it (run context, deps, graph state), as plain data; None when
        there is none yet. Needed with `capabilities.state_access`."""
        ...

    async def replace_conversation_state(
        self, agent: Any, request: RunRequest, state: Mapping[str, Any] | None
    ) -> None:
        """Overwrite that saved state with `state` (None removes it), bypassing the adapter, as
        someone who can write where run state is stored would. Needed with
        `capabilities.state_access`."""
        ...

    async def native_tools(self, agent: Any, request: RunRequest) -> Sequence[Any]:
        """The framework-native tool objects visible for `request`, after filtering."""
        ...

    async def validate(self, workdir: Path) -> Path:
        """Run the adapter's external validation in `workdir`; return the evidence JSON path."""
        ...

    async def close(self, agent: Any) -> None:
        """Release what `build` opened (connections, subprocesses)."""
        ...


@runtime_checkable
class NativeDriver(AdapterDriver, Protocol):
    """A driver of an adapter with a native mode (`DriverCapabilities.native_mode`): the
    native-mode tests build its agent with `Scenario.native` and run turns with `native_turn`."""

    async def native_turn(
        self, agent: Any, request: RunRequest, provider: NativeProvider
    ) -> NativeTurnReport:
        """Run one turn of `request.conversation` on an agent built with `Scenario.native`, with
        the framework's real model class for `provider.api` (its SDK client at
        `provider.base_url`, no retries), after the conversation's earlier turns (their messages
        carried over, as a user carries a conversation's history); report the model's final
        text. Needed with `capabilities.native_mode`."""
        ...
