"""Native mode for the PydanticAI driver: `router.native_tools()` with the real provider model classes.

The agent keeps the fixture toolset unwrapped (native mode decides what every request is sent),
with PydanticAI's own approval (`.approval_required()`) and the guardrail hooks; each native turn
runs PydanticAI's `OpenAIResponsesModel` or `AnthropicModel` through the real `openai` /
`anthropic` SDK client, pointed at the suite's fake provider.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.models import Model
from pydantic_ai.tools import DeferredToolRequests, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset

from schemarouter_pydantic_ai import NativeRoutedTools

from .._driver import NativeApi, NativeProvider
from ._pydantic_ai_harness import RunDeps, guardrail_hooks

__all__ = ["native_agent", "native_apis", "provider_model"]

_SDKS: tuple[tuple[NativeApi, str], ...] = (("responses", "openai"), ("messages", "anthropic"))

_MODEL_NAMES: dict[NativeApi, str] = {"responses": "gpt-5.4", "messages": "claude-sonnet-4-6"}
"""Model names whose PydanticAI profile sends tools with deferred loading and a tool search."""


def native_apis() -> tuple[NativeApi, ...]:
    """The provider APIs whose SDK is installed (PydanticAI's model classes need it)."""
    return tuple(api for api, sdk in _SDKS if importlib.util.find_spec(sdk) is not None)


def provider_model(provider: NativeProvider) -> Model:
    """PydanticAI's model class for `provider.api`, its SDK client at `provider.base_url`."""
    if provider.api == "responses":
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(base_url=provider.base_url, api_key="unused", max_retries=0)
        return OpenAIResponsesModel(_MODEL_NAMES["responses"], provider=OpenAIProvider(openai_client=client))
    from anthropic import AsyncAnthropic
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    anthropic = AsyncAnthropic(base_url=provider.base_url, api_key="unused", max_retries=0)
    return AnthropicModel(_MODEL_NAMES["messages"], provider=AnthropicProvider(anthropic_client=anthropic))


def native_agent(
    native: NativeRoutedTools,
    toolset: AbstractToolset[Any],
    *,
    approval_required: Collection[str],
    trip_value: str,
) -> Agent[RunDeps, str | DeferredToolRequests]:
    """An agent in native mode: the `native` capability (`router.native_tools()`) over the
    unwrapped toolset, whose listed tools need PydanticAI's approval, plus the guardrail hooks.
    No model: each turn passes one."""
    needs = frozenset(approval_required)

    def approval(ctx: RunContext[Any], tool_def: ToolDefinition, args: dict[str, Any]) -> bool:
        return tool_def.name in needs

    return Agent(
        None,
        deps_type=RunDeps,
        output_type=[str, DeferredToolRequests],
        toolsets=[toolset.approval_required(approval)],
        capabilities=[native, guardrail_hooks(trip_value)],
    )
