"""Running a native-mode conversation for the native-mode tests, and reading what the provider got.

A conversation is a list of turns, each a run request and the model's scripted replies (its
last reply, the turn's answer, is added). The suite's recording fake provider answers every
model request with the next reply, and records the request: the native-mode tests read those
requests as the provider's prompt cache would (`prompt_view`). A model's tool search is
scripted by `search`, which answers in the form the request offers: OpenAI Responses'
client-executed `tool_search`, or a loaded search function tool taking `queries`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from ._driver import NativeApi, NativeProvider, NativeTurnReport, RunRequest
from ._harness import ConformanceRun
from ._prompt_view import PromptView, canonical_json, prompt_view
from ._provider_replies import Reply, Text, ToolCall, ToolSearchCall
from ._provider_server import FakeProviderServer, RecordedRequest
from .errors import ConformanceSetupError

__all__ = [
    "Conversation",
    "Step",
    "Turn",
    "converse",
    "naming",
    "native_fix",
    "search",
    "sent",
    "tools_array",
]

Step = Reply | Callable[[RecordedRequest], Reply]
"""One scripted model reply, or a function of the request it answers (see `search`)."""


@dataclass(frozen=True)
class Turn:
    """One run of the conversation: its request, and the model's replies before `answer`."""

    request: RunRequest
    steps: tuple[Step, ...]
    answer: str


@dataclass(frozen=True)
class Conversation:
    """What one native-mode conversation did, as the provider and the call log saw it."""

    api: NativeApi
    views: list[PromptView]
    """Every model request, in order, as the provider's cache sees it."""
    starts: list[int]
    """The index in `views` of each turn's first request."""
    reports: list[NativeTurnReport]
    errors: list[str]
    """Requests the fake provider answered with an error (a script that could not answer)."""
    ran: list[str]
    """The tool bodies that ran during the conversation, in order (the fixture's call log)."""
    planned: int
    """The model replies scripted for the whole conversation: one request each."""

    def problems(self, turns: Sequence[Turn]) -> list[str]:
        """Why the conversation did not go as scripted (every turn answered, one request per reply)."""
        found = [f"{self.api}: the fake provider answered an error: {error}" for error in self.errors]
        for index, (turn, report) in enumerate(zip(turns, self.reports, strict=True), start=1):
            if report.output != turn.answer:
                why = f" ({report.detail})" if report.detail else ""
                found.append(
                    f"{self.api}: turn {index} ({turn.request.query!r}) ended with {report.output!r}{why}, "
                    f"expected the model's answer {turn.answer!r}"
                )
        if len(self.views) != self.planned:
            found.append(
                f"{self.api}: the provider got {len(self.views)} model requests, expected {self.planned} "
                "(one per scripted model reply)"
            )
        return found

    def view(self, index: int) -> PromptView | None:
        return self.views[index] if 0 <= index < len(self.views) else None


def native_fix(how: str) -> str:
    """The footer of a native-mode test's failure: how to fix it, and the mode it runs in."""
    return (
        f"Fix: {how}. With `Scenario.native` set, build the agent in your adapter's native mode and "
        "run each turn with `native_turn`, through the framework's real model class."
    )


def _schema_of(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = tool.get("input_schema", tool.get("parameters"))
    return cast("Mapping[str, Any]", schema) if isinstance(schema, Mapping) else {}


def search(words: str, catalog: Collection[str]) -> Callable[[RecordedRequest], Reply]:
    """The model searches for `words` with the tool search the request offers: OpenAI Responses'
    client-executed `tool_search`, else a loaded function tool outside `catalog` that takes
    `queries` (a list of strings) or `query` (a string)."""

    def reply(request: RecordedRequest) -> Reply:
        view = prompt_view(request)
        if any(t.get("type") == "tool_search" and t.get("execution") == "client" for t in view.tools):
            return ToolSearchCall((words,))
        for tool in view.tools:
            name = tool.get("name")
            if not isinstance(name, str) or name in catalog:
                continue
            properties = _schema_of(tool).get("properties")
            if isinstance(properties, Mapping) and "queries" in properties:
                return ToolCall(name, {"queries": [words]})
            if isinstance(properties, Mapping) and "query" in properties:
                return ToolCall(name, {"query": words})
        raise ConformanceSetupError(
            f"the model wanted to search for {words!r}, but the request offers no client-executed tool "
            f"search (loaded tools {list(view.tool_names)}, hosted {list(view.hosted)})"
        )

    return reply


async def converse(
    run: ConformanceRun, agent: Any, api: NativeApi, conversation: str, turns: Sequence[Turn]
) -> Conversation:
    """Run `turns` as one conversation of the agent, against a fresh recording fake provider."""
    plan: list[Step] = [step for turn in turns for step in (*turn.steps, Text(turn.answer))]
    planned = len(plan)

    def script(request: RecordedRequest) -> Reply:
        step = plan.pop(0) if plan else Text("the script is used up")
        return step(request) if callable(step) else step

    before = len(run.calls())
    starts: list[int] = []
    reports: list[NativeTurnReport] = []
    with FakeProviderServer(script) as fake:
        base_url = fake.openai_base_url if api == "responses" else fake.anthropic_base_url
        for turn in turns:
            starts.append(len(fake.requests))
            request = replace(turn.request, conversation=conversation)
            reports.append(await run.native_turn(agent, request, NativeProvider(api, base_url)))
        requests, errors = fake.requests, fake.errors
    ran = [str(call.get("tool")) for call in run.calls()[before:]]
    return Conversation(api, [prompt_view(r) for r in requests], starts, reports, errors, ran, planned)


def sent(view: PromptView, catalog: Collection[str]) -> frozenset[str]:
    """The catalog tools a request sends or reveals: loaded, deferred, revealed or callable."""
    names = {*view.tool_names, *view.deferred_names, *view.revealed, *view.callable_names}
    return frozenset(names & set(catalog))


def tools_array(view: PromptView) -> str:
    """The request's whole `tools` array, loaded and deferred entries, as canonical JSON."""
    return canonical_json([list(view.tools), list(view.deferred)])


def naming(texts: Iterable[str], names: Collection[str]) -> list[str]:
    """The tool names the texts mention (whole names: `read_file` is not in `read_file_metadata`)."""
    text = "\n".join(texts)
    return sorted(name for name in names if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text))
