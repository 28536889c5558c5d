"""The demo's conversation: one `RoutingSession` over the demo's routing configuration.

Three user turns over the bundled fixture server; on the second, routing misses the tool the
request needs and the model's one find-tools call reveals it. What each model step is offered
is printed: the list only grows, find-tools first, so the prompt's tool prefix stays cached.
The find-tools query is scripted here (it stands for what a model would write).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..visibility._allow_set import AllowSetProvider
from ..visibility._find_tools import FIND_TOOLS
from ..visibility._session import RoutingSession, SessionOffer
from ._common import printable

__all__ = ["SCRIPT", "ConversationStep", "converse", "render_conversation"]

SCRIPT: tuple[tuple[str, str | None], ...] = (
    ("what's the weather forecast for Lisbon tomorrow?", None),
    ("and how much is 20 euros in dollars?", "convert currency"),
    ("email Ada that the meeting moved to Friday", None),
)
"""(user request, the find-tools query the model sends on that turn, if any)."""


@dataclass(frozen=True, slots=True)
class ConversationStep:
    """One model step: the request, what it was offered, and what find-tools said before it."""

    turn: int
    request: str
    offered: tuple[str, ...]
    """Tool names in the order the model receives them (find-tools first)."""
    added: tuple[str, ...]
    outcome: str
    schema_bytes: int
    found: str = ""
    """The find-tools call that preceded this step, and what it revealed."""


def converse(
    provider: AllowSetProvider, script: tuple[tuple[str, str | None], ...] = SCRIPT
) -> list[ConversationStep]:
    """Play `script` through one session over `provider`; runs no tool body."""
    session = RoutingSession(provider, conversation_id="demo")
    steps: list[ConversationStep] = []

    def step(
        turn: int, request: str, offer: SessionOffer, found: str = "", revealed: tuple[str, ...] = ()
    ) -> None:
        names = {route: name for route, name in zip(offer.routes, offer.names, strict=True)}
        added = revealed or tuple(names[route] for route in offer.added)
        steps.append(
            ConversationStep(turn, request, offer.tool_names, added, offer.outcome, offer.schema_bytes, found)
        )

    for turn, (request, query) in enumerate(script, 1):
        step(turn, request, session.offer(request))
        if query is not None:
            result = session.find_tools(query)
            revealed = tuple(t.name for t in result.added)
            said = f"{FIND_TOOLS.name}({query!r}) -> {', '.join(revealed) or 'nothing new'}"
            step(turn, request, session.offer(request), said, revealed)
    return steps


def render_conversation(
    steps: list[ConversationStep], catalog_bytes: int, console: Console, width: int = 100
) -> None:
    """The steps as one table at most `width` columns wide."""
    table = Table(title="A conversation: the tool list only grows (find-tools first)", title_justify="left")
    table.add_column("turn", justify="right")
    table.add_column("request / find-tools call", ratio=3)
    table.add_column("outcome")
    table.add_column("offered to the model (new in bold)", ratio=4)
    table.add_column("bytes", justify="right")
    previous: tuple[str, ...] = ()
    for s in steps:
        offered = Text()
        for i, name in enumerate(s.offered):
            if i:
                offered.append(", ")
            offered.append(printable(name), style="bold" if name in s.added else "")
        kept = s.offered[: len(previous)] == previous
        label = printable(s.found) if s.found else printable(s.request)
        table.add_row(
            str(s.turn),
            Text(label, style="italic" if s.found else ""),
            "" if s.found else s.outcome,
            offered,
            f"{s.schema_bytes}{'' if kept else ' (reset)'}",
        )
        previous = s.offered
    width = min(console.width, width)
    console.print(table, width=width)
    console.print(
        f"the catalog's tools are {catalog_bytes} bytes of definitions; the last step offered "
        f"{steps[-1].schema_bytes} (find-tools' own definition aside)",
        width=width,
    )
