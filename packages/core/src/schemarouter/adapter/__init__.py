"""The adapter core: what every adapter does that is not its framework's glue.

An adapter turns a framework's run into a routing request, asks an `AllowSetProvider`, and plugs
the answer into the framework's own hooks. The parts that do not depend on the framework live
here, once, so the three bundled adapters (and yours) behave alike:

- `AdapterSettings`: the settings every adapter takes, one spelling each (`sessions`,
  `session_key`, `on_failure` (`OnFailure`), `cache_size`), checked at construction, and
  `adapter_provider`, the provider checked the same way;
- the errors every adapter raises: `AdapterSetupError` (setup misuse), `MissingRequestError` and
  `MissingConversationError` (a run that cannot be routed; it fails closed);
- `find_tools_call`: a find-tools call's arguments read strictly (`FindToolsCall`: the query, or
  the problem to tell the model), and `refusal_text`: the words a refused call returns
  (`RefusalReason`);
- `Decider`: a run step's routing decision (`Decision`), worked out the same way everywhere:
  the request, the provider's allow-set or the conversation's offer, find-tools calls, and a
  failure (`FailureCause`) that hides every routed tool, logged or raised (`on_failure`);
- `ContextMemo` and `RunMemo`: a run step's routing decision, worked out once however often the
  framework's hooks ask (keyed on the run context object, or on a run id);
- `SessionCache`: conversation mode's live sessions, handed out only while they are what the
  stored state says (`LiveSession`, `SessionStep`), with `stored_state` / `store_state` for a
  state kept in a run context or deps (`SESSION_FIELD`) and `listed_allow_set` for a
  conversation's list as an allow-set;
- `ListedTools`: the tools a framework lists matched against an allow-set (`ToolMatch`: by
  the route a tool records, `source:name`, or the catalog's only tool of its name), one step's
  view of them (`ListedStep`: routed, permitted by the provider's rules now, shown, ranked),
  selecting a listing's shown or permitted items, the provider's pinned routes, the live-contract
  check, and the once-per-catalog-version warnings that end in the adapter's `ListingAdvice`
  (`SharedNames`: what a name several catalog sources share means without a source);
- `failure_cause`: the `FailureCause` an exception raised while reading a run stands for;
- `MovedValidation`: the forwarder behind the bundled adapters' deprecated `validate` modules.

Reading the request, principal and conversation from a run context is in
`schemarouter.visibility` (`request_via`, `conversation_via`), as are the provider contract
(`require_provider`, `permitted`) and conversations (`RoutingSession`).

Floor 7: imports `schemarouter.visibility` and everything below it.
"""

from __future__ import annotations

from ..errors import AdapterSetupError, MissingConversationError, MissingRequestError
from ._calls import FindToolsCall, RefusalReason, find_tools_call, refusal_text
from ._decision import Decider, Decision, FailureCause, failure_cause
from ._listing import ListedStep, ListedTools, ListingAdvice, SharedNames, ToolMatch
from ._memo import ContextMemo, RunMemo
from ._moved import MovedValidation
from ._sessions import (
    SESSION_FIELD,
    LiveSession,
    SessionCache,
    SessionStep,
    listed_allow_set,
    store_state,
    stored_state,
)
from ._settings import AdapterSettings, OnFailure, adapter_provider

__all__ = [
    "SESSION_FIELD",
    "AdapterSettings",
    "AdapterSetupError",
    "ContextMemo",
    "Decider",
    "Decision",
    "FailureCause",
    "FindToolsCall",
    "ListedStep",
    "ListedTools",
    "ListingAdvice",
    "LiveSession",
    "MissingConversationError",
    "MissingRequestError",
    "MovedValidation",
    "OnFailure",
    "RefusalReason",
    "RunMemo",
    "SessionCache",
    "SessionStep",
    "SharedNames",
    "ToolMatch",
    "adapter_provider",
    "failure_cause",
    "find_tools_call",
    "listed_allow_set",
    "refusal_text",
    "store_state",
    "stored_state",
]
