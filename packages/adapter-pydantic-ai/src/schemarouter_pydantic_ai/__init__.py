"""SchemaRouter for PydanticAI: routed toolsets and a capability behind PydanticAI's native hooks."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
