"""The whole suite against the reference driver (the framework-free fake agent), both transports."""

from __future__ import annotations

from schemarouter_conformance import AdapterConformanceSuite, ReferenceDriver


class TestReferenceDriver(AdapterConformanceSuite):
    driver_factory = ReferenceDriver
