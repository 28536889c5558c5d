"""A prototype of revealing each turn's allow-set to PydanticAI's deferred tools (benchmark only).

`RevealRouted` is a capability: before each model request it takes the run's routing request
(`RoutingRequest` deps), asks the `Visibility` for its allow-set, and records the routed tools
that are deferred and not yet revealed as a `ToolAvailabilityDeltaPart` in the run's messages,
the way PydanticAI's own `ToolSearch` records tools a capability load revealed
(`capabilities/_deferred_capabilities.py`). PydanticAI then sends the reveal in the provider's
form (an exchange of its local `search_tools` tool answered with `tool_reference` blocks on
Anthropic, an `additional_tools` item on OpenAI Responses) and keeps the `tools` array as it
was, so the turn's routed tools are callable at once and the cached prefix holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelRequest, ToolAvailabilityDeltaPart
from pydantic_ai.models import ModelRequestContext

from schemarouter import Visibility
from schemarouter.visibility import request_in


@dataclass
class RevealRouted(AbstractCapability[Any]):
    visibility: Visibility

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request = request_in(ctx.deps)
        if request is None or not request.query.strip():
            return request_context
        params = request_context.model_request_parameters
        deferred = {tool.name for tool in params.function_tools if tool.defer_loading}
        routed = self.visibility.allow_set(request.query, request.principal).names
        added = [name for name in routed if name in deferred and name not in ctx.discovered_tool_names]
        if not added:
            return request_context
        delta = ModelRequest(parts=[ToolAvailabilityDeltaPart(tools_added=added)])
        request_context.messages = [*request_context.messages, delta]
        ctx.messages.append(delta)
        ctx.discovered_tool_names.update(added)
        request_context.model_request_parameters = replace(
            params, revealed_tool_names=params.revealed_tool_names | set(added)
        )
        return request_context
