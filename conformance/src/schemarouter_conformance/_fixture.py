"""The bundled fixture MCP server: a mixed catalog whose every tool body is logged.

Run it over stdio (default) or streamable HTTP on 127.0.0.1:

    python -m schemarouter_conformance.fixture_server --call-log calls.jsonl
    python -m schemarouter_conformance.fixture_server --transport http --port 8765

Each tool-body invocation appends one JSON line `{"tool": ..., "arguments": ...}` to the
call log (``--call-log`` or the ``SCHEMAROUTER_CALL_LOG`` environment variable), so a
test can prove that discovery and filtering never ran a tool.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

__all__ = [
    "CALL_LOG_ENV",
    "DESTRUCTIVE_TOOLS",
    "FIXTURE_TOOL_NAMES",
    "READ_ONLY_TOOLS",
    "build_server",
    "main",
    "read_call_log",
    "stdio_command",
]

CALL_LOG_ENV = "SCHEMAROUTER_CALL_LOG"

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
MUTATING = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)

READ_ONLY_TOOLS = (
    "search_customers",
    "get_customer",
    "list_invoices",
    "get_weather_forecast",
    "convert_currency",
    "read_file",
    "read_file_metadata",
    "translate_text",
    "add",
)
MUTATING_TOOLS = ("create_customer", "update_customer_email", "refund_invoice", "send_email")
DESTRUCTIVE_TOOLS = ("delete_customer", "delete_invoice")
FIXTURE_TOOL_NAMES = READ_ONLY_TOOLS + MUTATING_TOOLS + DESTRUCTIVE_TOOLS

_CUSTOMERS = {
    "c-100": {"id": "c-100", "name": "Ada Lovelace", "email": "ada@example.org"},
    "c-200": {"id": "c-200", "name": "Alan Turing", "email": "alan@example.org"},
}
_RATES = {"USD": 1.0, "EUR": 0.92, "GBP": 0.79, "JPY": 151.0}


def read_call_log(path: str | os.PathLike[str]) -> list[dict[str, object]]:
    """Every logged tool-body call, oldest first (empty when the file does not exist)."""
    log = Path(path)
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def stdio_command(call_log: str | os.PathLike[str] | None = None) -> tuple[str, list[str]]:
    """`(command, args)` that starts this server over stdio with the current interpreter."""
    args = ["-m", "schemarouter_conformance.fixture_server"]
    if call_log is not None:
        args += ["--call-log", os.fspath(call_log)]
    return sys.executable, args


def build_server(call_log: str | os.PathLike[str] | None = None) -> MCPServer:
    """The fixture server; tool bodies append to `call_log` (or `$SCHEMAROUTER_CALL_LOG`)."""
    log_path = call_log if call_log is not None else os.environ.get(CALL_LOG_ENV)
    server = MCPServer("schemarouter-fixture", version="1.0")

    def record(tool: str, **arguments: object) -> None:
        if log_path:
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True) + "\n")

    @server.tool(annotations=READ_ONLY)
    def search_customers(
        query: Annotated[str, Field(description="Name or email fragment to look for")],
        limit: Annotated[int, Field(description="Maximum number of customers returned", ge=1, le=100)] = 10,
    ) -> list[dict[str, str]]:
        """Search customer records in the CRM by name or email address."""
        record("search_customers", query=query, limit=limit)
        q = query.lower()
        return [c for c in _CUSTOMERS.values() if q in c["name"].lower() or q in c["email"]][:limit]

    @server.tool(annotations=READ_ONLY)
    def get_customer(
        customer_id: Annotated[str, Field(description="Customer id such as c-100")],
    ) -> dict[str, str]:
        """Fetch one customer record from the CRM by its id."""
        record("get_customer", customer_id=customer_id)
        return _CUSTOMERS.get(customer_id, {"id": customer_id, "error": "not found"})

    @server.tool(annotations=MUTATING)
    def create_customer(
        name: Annotated[str, Field(description="Full name of the new customer")],
        email: Annotated[str, Field(description="Contact email address")],
    ) -> dict[str, str]:
        """Create a new customer record in the CRM."""
        record("create_customer", name=name, email=email)
        return {"id": "c-999", "name": name, "email": email}

    @server.tool(annotations=MUTATING)
    def update_customer_email(
        customer_id: Annotated[str, Field(description="Customer id such as c-100")],
        email: Annotated[str, Field(description="The new email address")],
    ) -> dict[str, str]:
        """Change the email address stored on a customer record."""
        record("update_customer_email", customer_id=customer_id, email=email)
        return {"id": customer_id, "email": email}

    @server.tool(annotations=DESTRUCTIVE)
    def delete_customer(customer_id: Annotated[str, Field(description="Customer id such as c-100")]) -> str:
        """Permanently delete a customer record and its history from the CRM."""
        record("delete_customer", customer_id=customer_id)
        return f"deleted {customer_id}"

    @server.tool(annotations=READ_ONLY)
    def list_invoices(
        customer_id: Annotated[str, Field(description="Customer id such as c-100")],
        status: Annotated[
            Literal["open", "paid", "overdue"], Field(description="Only invoices with this payment status")
        ] = "open",
    ) -> list[dict[str, object]]:
        """List a customer's invoices, filtered by payment status."""
        record("list_invoices", customer_id=customer_id, status=status)
        return [{"invoice_id": "inv-1", "customer_id": customer_id, "status": status, "amount": 120.0}]

    @server.tool(annotations=MUTATING)
    def refund_invoice(
        invoice_id: Annotated[str, Field(description="Invoice id such as inv-1")],
        amount: Annotated[float, Field(description="Amount to refund, in the invoice currency", gt=0)],
    ) -> dict[str, object]:
        """Issue a refund against a paid invoice."""
        record("refund_invoice", invoice_id=invoice_id, amount=amount)
        return {"invoice_id": invoice_id, "refunded": amount}

    @server.tool(annotations=DESTRUCTIVE)
    def delete_invoice(invoice_id: Annotated[str, Field(description="Invoice id such as inv-1")]) -> str:
        """Permanently delete an invoice from the billing system."""
        record("delete_invoice", invoice_id=invoice_id)
        return f"deleted {invoice_id}"

    @server.tool(annotations=READ_ONLY)
    def get_weather_forecast(
        city: Annotated[str, Field(description="City name, for example Paris")],
        days: Annotated[int, Field(description="Number of forecast days", ge=1, le=10)] = 3,
    ) -> dict[str, object]:
        """Get the weather forecast (temperature, rain) for a city for the next days."""
        record("get_weather_forecast", city=city, days=days)
        return {"city": city, "days": days, "forecast": ["sunny"] * days}

    @server.tool(annotations=READ_ONLY)
    def convert_currency(
        amount: Annotated[float, Field(description="Amount of money to convert")],
        from_currency: Annotated[str, Field(description="ISO currency code to convert from, e.g. USD")],
        to_currency: Annotated[str, Field(description="ISO currency code to convert to, e.g. EUR")],
    ) -> float:
        """Convert an amount of money between currencies at today's exchange rate."""
        record("convert_currency", amount=amount, from_currency=from_currency, to_currency=to_currency)
        return round(amount / _RATES.get(from_currency, 1.0) * _RATES.get(to_currency, 1.0), 2)

    @server.tool(annotations=MUTATING)
    def send_email(
        to: Annotated[str, Field(description="Recipient email address")],
        subject: Annotated[str, Field(description="Subject line")],
        body: Annotated[str, Field(description="Plain-text message body")],
    ) -> str:
        """Send an email message to a recipient."""
        record("send_email", to=to, subject=subject, body=body)
        return "sent"

    @server.tool(annotations=READ_ONLY)
    def read_file(path: Annotated[str, Field(description="Path of the file inside the workspace")]) -> str:
        """Read the text contents of a file in the workspace."""
        record("read_file", path=path)
        return f"contents of {path}"

    @server.tool(annotations=READ_ONLY)
    def read_file_metadata(
        path: Annotated[str, Field(description="Path of the file inside the workspace")],
    ) -> dict[str, object]:
        """Read a workspace file's size, owner and modification time, without its contents."""
        record("read_file_metadata", path=path)
        return {"path": path, "size": 42}

    @server.tool(annotations=READ_ONLY)
    def translate_text(
        text: Annotated[str, Field(description="要翻译的文本")],
        target_language: Annotated[str, Field(description="目标语言代码，例如 en、fr、zh")],
    ) -> str:
        """将文本翻译成目标语言（translate text）。"""
        record("translate_text", text=text, target_language=target_language)
        return f"[{target_language}] {text}"

    @server.tool(annotations=READ_ONLY)
    def add(
        a: Annotated[float, Field(description="First number")],
        b: Annotated[float, Field(description="Second number")],
    ) -> float:
        """Add two numbers and return the sum."""
        record("add", a=a, b=b)
        return a + b

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--call-log", default=None, help=f"call log file (default: ${CALL_LOG_ENV})")
    args = parser.parse_args(argv)
    server = build_server(args.call_log)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)
