"""SchemaRouter for the OpenAI Agents SDK: MCP tool_filter, function-tool and handoff is_enabled from one policy."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
