"""Validation scenarios over the fixture server, shared by every adapter, the suite and the demo."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "APPROVAL_CASES",
    "GUARDRAIL_TRIP_VALUE",
    "SUPPORTED_CASES",
    "UNSUPPORTED_QUERIES",
    "SupportedCase",
]

GUARDRAIL_TRIP_VALUE = "__guardrail_trip__"
"""The scenario's input guardrail rejects any call whose arguments contain this string."""


@dataclass(frozen=True, slots=True)
class SupportedCase:
    query: str
    required_tools: tuple[str, ...]
    arguments: dict[str, object]
    """Valid arguments for the first required tool (used when a scenario scripts the call)."""


SUPPORTED_CASES: tuple[SupportedCase, ...] = (
    SupportedCase(
        "search the CRM for customers named Ada", ("search_customers",), {"query": "Ada", "limit": 5}
    ),
    SupportedCase(
        "what is the weather forecast for Paris this week",
        ("get_weather_forecast",),
        {"city": "Paris", "days": 3},
    ),
    SupportedCase(
        "convert 100 USD to EUR at today's exchange rate",
        ("convert_currency",),
        {"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
    ),
    SupportedCase(
        "list the overdue invoices of customer c-100",
        ("list_invoices",),
        {"customer_id": "c-100", "status": "overdue"},
    ),
    SupportedCase(
        "permanently delete customer c-200 from the CRM", ("delete_customer",), {"customer_id": "c-200"}
    ),
    SupportedCase(
        "send an email to ada@example.org with the subject hello",
        ("send_email",),
        {"to": "ada@example.org", "subject": "hello", "body": "Hi Ada"},
    ),
)

APPROVAL_CASES: tuple[SupportedCase, ...] = (
    *(case for case in SUPPORTED_CASES if case.required_tools == ("delete_customer",)),
    SupportedCase(
        "permanently delete invoice inv-1 from the billing system",
        ("delete_invoice",),
        {"invoice_id": "inv-1"},
    ),
)
"""One request per tool the suite gates behind an approval (the fixture's `DESTRUCTIVE_TOOLS`)
that routes it in, with valid arguments: the approval and guardrail tests call each of them."""

UNSUPPORTED_QUERIES: tuple[str, ...] = (
    "tell me a joke about cats",
    "write a haiku about the sea at dawn",
    "what is the meaning of life",
    "who painted the Mona Lisa",
)
