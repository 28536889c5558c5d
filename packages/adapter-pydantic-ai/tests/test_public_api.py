from __future__ import annotations

import schemarouter_pydantic_ai


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in vars(schemarouter_pydantic_ai) if not name.startswith("_")}
    modules = {"errors", "testing", "validate"}
    public -= {name for name in public if name in modules}
    public.discard("annotations")
    assert sorted(public | {"__version__"}) == sorted(schemarouter_pydantic_ai.__all__)


def test_all_names_resolve() -> None:
    for name in schemarouter_pydantic_ai.__all__:
        assert getattr(schemarouter_pydantic_ai, name) is not None
