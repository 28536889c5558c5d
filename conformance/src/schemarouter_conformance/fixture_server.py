"""Run the fixture MCP server: `python -m schemarouter_conformance.fixture_server [--transport http]`."""

from schemarouter_conformance._fixture import main

if __name__ == "__main__":
    main()
