"""`LangChainRouter`: routing middleware for `create_agent`, enforced again at call time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, ToolCallRequest
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.types import Command

from schemarouter import AllowSetProvider
from schemarouter.adapter import AdapterSettings, Decision, find_tools_call
from schemarouter.errors import RoutingError
from schemarouter.visibility import FIND_TOOLS, SessionKey, SessionLimits

from ._checks import route_of
from ._find_tool import find_tools_tool, is_find_tool
from ._guard import ExecutionGuard, aguarded, guarded
from ._refusal import refusal_message
from ._request import ConversationFrom, RequestFrom, conversation_via, default_conversation_from, messages_of
from ._sessions import SESSIONS_STATE_KEY, SessionsState, saved_session
from ._turn import OnFailure, TurnRouter, TurnRouting, logger
from .errors import MissingConversationError

__all__ = ["LangChainRouter"]

ModelResult = ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]
ToolResult = ToolMessage | Command[Any]


def _execution(runtime: Any) -> tuple[str | None, str | None]:
    """The run's checkpointer thread id (None without a checkpointer) and the current step's
    checkpoint id, from a `Runtime` or `ToolRuntime`."""
    info: Any = getattr(runtime, "execution_info", None)
    thread: Any = getattr(info, "thread_id", None)
    step: Any = getattr(info, "checkpoint_id", None)
    return (str(thread) if thread not in (None, "") else None), (
        step if isinstance(step, str) and step else None
    )


def _tool_choice_after(tool_choice: Any, kept: Collection[str]) -> Any:
    """Drop a tool choice that names a tool hidden this turn (it would name a tool the model lacks)."""
    named: Any = None
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "any", "none", "required"):
        named = tool_choice
    elif isinstance(tool_choice, dict):
        function: Any = tool_choice.get("function")  # pyright: ignore[reportUnknownMemberType]
        named = function.get("name") if isinstance(function, dict) else tool_choice.get("name")  # pyright: ignore[reportUnknownMemberType]
    if isinstance(named, str) and named not in kept:
        return None
    return tool_choice


class LangChainRouter(AgentMiddleware[Any, Any, Any]):
    """Shows the model only this turn's allow-set, and refuses any other tool call.

    `wrap_model_call` narrows `request.tools` to the allow-set (routed tools best first,
    then `always_visible` ones; provider-native dict tools are kept as they are).
    `wrap_tool_call` returns an error `ToolMessage` for a call to a tool that is not
    visible, or not registered with the agent: LangChain's tool node would otherwise
    execute any registered tool the model names, so narrowing alone is not enough. It asks
    the provider again for every call (never a cached answer), so a call approved through
    `HumanInTheLoopMiddleware` is refused on resume when routing hides the tool by then.
    The tool the tool node actually starts is checked again (`on_tool_start`), so a later
    middleware that changes the call (a reviewer's `edit`) cannot run a hidden tool. Sync
    and async paths behave the same.

    Tools are matched by route when their metadata records one (`McpToolkit` tools do), so
    a rule about one server's tool never shows another server's tool of the same name;
    tools with no route are matched by name. Every visible tool is asked about with the
    provider's `permits` for the run's principal on every model step and every call, so a
    rule changed while a run waits holds at once. `always_visible` names are shown for every
    request the provider permits them for, and not at all when routing fails.

    The request comes from `runtime.context` through `request_from` (default: the
    context's `query` and `principal`, from a mapping or attributes). Pass the same
    `context` again when resuming an interrupted run. Without one the run fails closed;
    `fallback_to_messages=True` routes on the last human message instead (no principal;
    logged at WARNING once per router).

    On a routing failure (the provider raised, or there is no request) every tool is
    hidden and every call is refused; the failure is logged at WARNING on the
    `schemarouter.langchain` logger, or raised with `on_failure="raise"`. An `McpToolkit`
    tool whose contract differs from the one in the router's catalog is hidden and refused
    too, and a tool missing from the catalog is named; both WARNING once per catalog version.

    Place it first in `middleware=[...]`, before approval and guardrail middleware: it is
    then the outermost `wrap_tool_call`, so a hidden call is refused before anything else
    sees it, and the approval and guardrail middleware run unchanged for visible calls.

    Conversation mode (`sessions=SessionLimits()`): one `RoutingSession` per conversation, so
    the model's tool list only grows from turn to turn, with the find-tools tool (`FIND_TOOLS`,
    registered by this middleware) offered first. The conversation is `conversation_from(context)`
    (default: the context's `conversation`), else, with `thread_as_conversation` (the default),
    the run's checkpointer `thread_id`; a run with neither fails closed. The session's state is
    kept in the graph state (`SESSIONS_STATE_KEY`), so the checkpointer saves it with the
    thread: a resumed run offers what it offered before. The saved state is sealed (pass the
    same `session_key` to every process that serves a conversation); an edited one is refused.
    Calls are checked against the conversation's saved list and the provider's `permits` now,
    not routed again.
    """

    def __init__(
        self,
        visibility: AllowSetProvider,
        *,
        request_from: RequestFrom | None = None,
        fallback_to_messages: bool = False,
        always_visible: Collection[str] = (),
        on_failure: OnFailure = "hide",
        sessions: SessionLimits | None = None,
        conversation_from: ConversationFrom | None = None,
        thread_as_conversation: bool = True,
        session_key: SessionKey | None = None,
        cache_size: int = 256,
    ) -> None:
        super().__init__()
        self.settings = AdapterSettings(
            sessions=sessions, session_key=session_key, on_failure=on_failure, cache_size=cache_size
        )
        self.router = TurnRouter(
            visibility,
            request_from=request_from,
            fallback_to_messages=fallback_to_messages,
            always_visible=always_visible,
            on_failure=on_failure,
            cache_size=cache_size,
            sessions=sessions,
            session_key=session_key,
        )
        self.sessions = sessions
        self.conversation_from: ConversationFrom = conversation_from or default_conversation_from
        self.thread_as_conversation = thread_as_conversation
        self.conversations = self.router.decider.sessions
        """Conversation mode's live sessions (the adapter core's `SessionCache`), else None."""
        self.find_tool: BaseTool | None = (
            find_tools_tool(self._answer_find_tools) if sessions is not None and sessions.find_tools else None
        )
        self.tools = [self.find_tool] if self.find_tool is not None else []
        if sessions is not None:
            self.state_schema = SessionsState

    @property
    def visibility(self) -> AllowSetProvider:
        return self.router.provider

    def routing(
        self,
        context: Any,
        messages: Sequence[Any],
        *,
        state: Mapping[str, Any] | None = None,
        thread_id: str | None = None,
    ) -> TurnRouting:
        """This turn's routing for a run context and its conversation (what the hooks use).

        In conversation mode: the conversation's list as saved in the agent `state` (e.g.
        `agent.get_state(config).values`), what a call is checked against; the conversation is
        the one `context` names, else `thread_id`.
        """
        if self.conversations is None:
            return self.router.route(context, messages)
        return self._listed(context, messages, state, thread_id)

    def _listed(self, context: Any, messages: Sequence[Any], state: Any, thread: str | None) -> TurnRouting:
        """Conversation mode: the routing of the conversation's saved list (nothing routed anew)."""
        assert self.conversations is not None
        conversation: str | None = None
        try:
            turn = self.router.request(context, messages)
            conversation = self._conversation(context, thread)
            session = self.conversations.new(conversation, turn.principal, saved_session(state, conversation))
        except Exception as exc:
            return self.router.failed(exc, conversation)
        return self.router.conversation_routing(turn, conversation, session)

    # -- model calls: narrow what the model is offered --------------------------------------

    def visible_tools(
        self,
        tools: Sequence[BaseTool | dict[str, Any]],
        context: Any,
        messages: Sequence[Any],
        *,
        state: Mapping[str, Any] | None = None,
        thread_id: str | None = None,
    ) -> list[BaseTool | dict[str, Any]]:
        """`tools` narrowed for this turn: visible ones in allow-set order, then provider-native
        dicts (in conversation mode: find-tools first, then the conversation's saved list)."""
        return self._visible(tools, self.routing(context, messages, state=state, thread_id=thread_id))

    def _visible(
        self, tools: Sequence[BaseTool | dict[str, Any]], routing: TurnRouting
    ) -> list[BaseTool | dict[str, Any]]:
        find = self.find_tool
        visible = [
            t for t in tools if isinstance(t, BaseTool) and t is not find and self.router.shows(t, routing)
        ]
        visible.sort(key=lambda t: routing.rank(t.name, route_of(t.metadata)))
        kept: list[BaseTool | dict[str, Any]] = [find] if find is not None and routing.find_tools else []
        kept += visible
        kept += [t for t in tools if isinstance(t, dict)]
        return kept

    def _narrow(self, request: ModelRequest[Any], routing: TurnRouting) -> ModelRequest[Any]:
        kept = self._visible(request.tools, routing)
        names = {t.name for t in kept if isinstance(t, BaseTool)}
        return request.override(tools=kept, tool_choice=_tool_choice_after(request.tool_choice, names))

    def _model_step(self, request: ModelRequest[Any]) -> tuple[ModelRequest[Any], Command[Any] | None]:
        """The request narrowed for this model step, and the session state to save with its answer."""
        runtime: Any = request.runtime
        context = getattr(runtime, "context", None)
        if self.conversations is None:
            return self._narrow(request, self.routing(context, request.messages)), None
        routing, saved = self._conversation_step(request, context, runtime)
        update = Command(update={SESSIONS_STATE_KEY: saved}) if saved else None
        return self._narrow(request, routing), update

    def _conversation_step(
        self, request: ModelRequest[Any], context: Any, runtime: Any
    ) -> tuple[TurnRouting, dict[str, Any] | None]:
        decider = self.router.decider
        conversation: str | None = None
        try:
            thread, step = _execution(runtime)
            turn = self.router.request(context, request.messages)
            conversation = self._conversation(context, thread)
            saved = saved_session(request.state, conversation)
        except Exception as exc:
            return self.router.failed(exc, conversation), None
        live = decider.session(turn, conversation, saved=saved, scope=thread, step=step)
        if isinstance(live, Decision):
            return self.router.failure(live, conversation), None
        decision, after = decider.offer(turn, conversation, live, saved=saved)
        offer = decision.offer
        if offer is None or after is None:
            return self.router.failure(decision, conversation), None
        if offer.find_tools and not any(t is self.find_tool for t in request.tools):
            missing = RoutingError(
                f"the router's {FIND_TOOLS.name} tool is not among the agent's tools: another tool "
                f"named {FIND_TOOLS.name!r} replaced it, or a middleware before the router removed it"
            )
            return self.router.failed(missing, conversation), None
        routing = self.router.conversation_routing(turn, conversation, live.session, offer)
        return routing, ({conversation: after.state} if after.changed else None)

    def _conversation(self, context: Any, thread: str | None) -> str:
        """The run's conversation id (`thread`: the run's checkpointer thread id, if any);
        raises `MissingConversationError` when it names none."""
        default = self.conversation_from is default_conversation_from
        found = conversation_via(self.conversation_from, context, default=default)
        if found is None and self.thread_as_conversation:
            found = thread
        if found is None:
            where = "no conversation id in runtime.context"
            if self.thread_as_conversation:
                where += " and no checkpointer thread_id"
            raise MissingConversationError(
                f"conversation mode: the run names no conversation ({where}), so every tool is "
                "hidden. Pass context={'query': ..., 'conversation': ...} on every call, resumes "
                "included"
                + (
                    ", or run the agent with a checkpointer and a thread_id"
                    if self.thread_as_conversation
                    else ""
                )
            )
        if thread is None:
            self.router.warn_once(
                ("no_checkpointer",),
                "conversation %r runs without a checkpointer: its list of tools lives in this "
                "invoke's graph state only, and the next invoke starts a new list. Compile the agent "
                "with a checkpointer (create_agent(..., checkpointer=...)) and pass a thread_id.",
                found,
            )
        return found

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResult:
        narrowed, update = self._model_step(request)
        response = handler(narrowed)
        return response if update is None else ExtendedModelResponse(model_response=response, command=update)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResult:
        narrowed, update = self._model_step(request)
        response = await handler(narrowed)
        return response if update is None else ExtendedModelResponse(model_response=response, command=update)

    # -- the find-tools tool ----------------------------------------------------------------

    def _answer_find_tools(self, query: object, runtime: ToolRuntime) -> Command[Any] | ToolMessage:
        """The find-tools tool's body: search in the run's conversation, save the session."""
        conversations = self.conversations
        call_id = runtime.tool_call_id or ""
        call = ToolCall(name=FIND_TOOLS.name, args={FIND_TOOLS.argument: query}, id=call_id)
        read = find_tools_call({FIND_TOOLS.argument: query})
        if read.query is None:  # searches nothing: the model reads what to fix
            return ToolMessage(read.problem or "", tool_call_id=call_id, name=FIND_TOOLS.name, status="error")
        query = read.query
        try:
            assert conversations is not None
            context = runtime.context
            thread, step = _execution(runtime)
            turn = self.router.request(context, messages_of(runtime.state))
            conversation = self._conversation(context, thread)
            saved = saved_session(runtime.state, conversation)
            live = conversations.session(conversation, turn.principal, saved, scope=thread, step=step)
            result, after = live.find(query, saved, call=call_id)
        except Exception as exc:
            failure = f"{type(exc).__name__}: {exc}"
            logger.warning("find-tools failed; no tool was added (%s)", failure)
            return refusal_message(call, "routing_failed", failure)
        message = ToolMessage(result.text(), tool_call_id=call_id, name=FIND_TOOLS.name)
        return Command(update={"messages": [message], SESSIONS_STATE_KEY: {conversation: after.state}})

    # -- tool calls: refuse what is not visible ---------------------------------------------

    def _call_routing(self, request: ToolCallRequest) -> TurnRouting:
        context = getattr(request.runtime, "context", None)
        messages = messages_of(request.state)
        if self.conversations is None:
            # Asked afresh: the call may come from a run resumed after an approval, with the same
            # context object, and routing may have changed while the run waited.
            return self.router.route(context, messages, fresh=True)
        # The conversation's list as saved with the model step that made the call.
        thread, _ = _execution(request.runtime)
        return self._listed(context, messages, request.state, thread)

    def _shows_started(self, name: str, metadata: Any, routing: TurnRouting) -> bool:
        """Is the tool the tool node started (by name and metadata) visible for this call?"""
        if routing.find_tools and routing.failure is None and is_find_tool(name, metadata):
            return True
        return self.router.shows_named(name, metadata, routing)

    def _refusal(self, request: ToolCallRequest, routing: TurnRouting) -> ToolMessage | None:
        call, tool = request.tool_call, request.tool
        if routing.failure is not None:
            return refusal_message(call, "routing_failed", routing.failure)
        if tool is None:
            # LangChain's own error for an unknown tool lists every registered tool, hidden ones too.
            return refusal_message(call, "hidden", "no tool of this name is registered with the agent")
        if tool is self.find_tool:
            return None if routing.find_tools else refusal_message(call, "hidden")
        if self.router.shows(tool, routing):
            return None
        if routing.allows(tool.name, route_of(tool.metadata)):
            return refusal_message(call, "hidden", "its contract changed since the catalog was built")
        return refusal_message(call, "hidden")

    def _guard(self, request: ToolCallRequest, routing: TurnRouting) -> ExecutionGuard:
        return ExecutionGuard(
            request.tool_call, lambda name, metadata: self._shows_started(name, metadata, routing)
        )

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolResult],
    ) -> ToolResult:
        routing = self._call_routing(request)
        refused = self._refusal(request, routing)
        if refused is not None:
            return refused
        return guarded(self._guard(request, routing), lambda: handler(request))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
    ) -> ToolResult:
        routing = self._call_routing(request)
        refused = self._refusal(request, routing)
        if refused is not None:
            return refused
        return await aguarded(self._guard(request, routing), lambda: handler(request))
