"""The README's example runs as written (with the offline scripted model)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from langchain.agents import create_agent

from schemarouter import SchemaRouter, Visibility
from schemarouter_langchain import LangChainRouter, McpToolkit

README = Path(__file__).resolve().parent.parent / "README.md"


def first_example() -> str:
    match = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None
    return match.group(1)


def _run_file(script: Path) -> subprocess.CompletedProcess[str]:
    """`python script` in the script's folder, as a user would run a copied snippet."""
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=script.parent,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_quick_start_is_short() -> None:
    """A whole file, imports and offline model included, and still a quick read."""
    code = [line for line in first_example().splitlines() if line.strip()]
    assert code[0] == "import asyncio"
    assert len(code) <= 40


async def test_quick_start_runs_as_a_file(tmp_path: Path) -> None:
    """Saved as a file and run with python, it prints the allow-set it was offered on both model
    steps, then the routed tool's successful run."""
    script = tmp_path / "quick_start.py"
    script.write_text(first_example(), encoding="utf-8")
    done = await asyncio.to_thread(_run_file, script)
    router = await SchemaRouter.from_stdio(
        sys.executable, ["-m", "schemarouter_conformance.fixture_server"], name="fixture"
    )
    allowed = Visibility(router, k=3).allow_set("what is the weather forecast for Paris this week").names
    assert "get_weather_forecast" in allowed
    assert done.stdout.splitlines() == [
        f"offered: {allowed!r}",
        f"offered: {allowed!r}",
        "get_weather_forecast ran: success",
    ]


def offline_example() -> str:
    """The README's block that scripts a model of your own (`model = ScriptedChatModel(...)`)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if "model = ScriptedChatModel(" in block)


async def test_readme_offline_model_reports_what_it_was_offered() -> None:
    namespace: dict[str, Any] = {}
    exec(compile(offline_example(), str(README), "exec"), namespace)
    router = await SchemaRouter.from_stdio(
        sys.executable, ["-m", "schemarouter_conformance.fixture_server"], name="fixture"
    )
    visibility = Visibility(router, k=3)
    async with McpToolkit(router.sources["fixture"]) as toolkit:  # pyright: ignore[reportArgumentType]
        agent = create_agent(
            namespace["model"], tools=toolkit.tools, middleware=[LangChainRouter(visibility)]
        )
        for query in ("what is the weather forecast for Paris this week", "tell me a joke about cats"):
            await agent.ainvoke({"messages": [{"role": "user", "content": query}]}, context={"query": query})
    assert namespace["offered"] == [
        visibility.allow_set("what is the weather forecast for Paris this week").names,
        (),  # no route: the model is offered nothing
    ]
    assert "get_weather_forecast" in namespace["offered"][0]


def conversations_example() -> str:
    """The README's conversation-mode block."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if "sessions=SessionLimits()" in block)


async def test_readme_conversations_example_prints_what_it_says(tmp_path: Path) -> None:
    """Saved as a file and run with python, the block prints the lists its closing comments show:
    find-tools first, the tools it found on the next step, and a second turn that starts with the
    first's list."""
    block = conversations_example()
    script = tmp_path / "conversations.py"
    script.write_text(block, encoding="utf-8")
    printed = (await asyncio.to_thread(_run_file, script)).stdout.splitlines()
    claimed = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# (")]
    assert printed == claimed
    assert claimed[0].startswith("('find_tools', ")
