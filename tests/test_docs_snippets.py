"""Every command and code block the READMEs and docs show works as written.

Covered: README.md, packages/*/README.md, conformance/README.md and docs/*.md.

- Every fenced block names its language (`python`, `bash`, `text`, `json` or `toml`), so no
  command hides in a block nothing checks.
- Python blocks compile (top-level `await` allowed, as in `python -m asyncio` or a notebook).
  A block runs here as a script unless another test already runs it (`RUN_ELSEWHERE` names
  that test) or its first line says `# not standalone: <what it needs>`, visibly, to the reader.
- A call written in inline code (`function_call(name, arguments, call_id=...)`) or in a
  fragment, of a name the document imports, fits the real signature.
- Shell blocks: every line parses; `schemarouter ...` is taken by the CLI's own parser,
  `python -m X` names an importable module, `python3 scripts/dev.py X` a dev.py command, and
  every repository path a command names exists; pip gets folders as paths (`./conformance`,
  never the bare word `conformance`, which pip takes for a project on the index) and installs
  our unpublished distributions only from local wheels (`--find-links`). A line whose comment
  says `in your project` names the reader's own files: it is parsed, its paths are not looked
  for. The cheap commands (`schemarouter catalog | route | calibrate`) run, from the repository
  root, against the fixture server.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from schemarouter.cli import build_parser
from schemarouter_conformance import http_fixture_server

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted(
    [
        ROOT / "README.md",
        *ROOT.glob("packages/*/README.md"),
        ROOT / "conformance" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
LANGUAGES = {"python", "bash", "text", "json", "toml"}
NOT_STANDALONE = "# not standalone:"
YOUR_PROJECT = "in your project"

RUN_ELSEWHERE: dict[tuple[str, str], str] = {
    # (document, text in the block): the test that runs the block as written
    ("packages/core/README.md", ""): "packages/core/tests/test_readme.py",
    ("docs/execution.md", ""): "packages/core/tests/test_execution_docs.py",
    ("docs/snapshots.md", "load_snapshot("): "packages/core/tests/test_snapshot_docs.py",
    ("packages/adapter-langchain/README.md", "router = await SchemaRouter.from_stdio("): (
        "packages/adapter-langchain/tests/test_readme.py"
    ),
    ("packages/adapter-langchain/README.md", "model = ScriptedChatModel("): (
        "packages/adapter-langchain/tests/test_readme.py"
    ),
    ("packages/adapter-openai-agents/README.md", "async def build_support_agent("): (
        "packages/adapter-openai-agents/tests/test_readme_example.py"
    ),
    ("packages/adapter-openai-agents/README.md", 'model = ScriptedModel([[assistant_message("done")]])'): (
        "packages/adapter-openai-agents/tests/test_readme_example.py"
    ),
    ("packages/adapter-pydantic-ai/README.md", "asyncio.run(main())"): (
        "packages/adapter-pydantic-ai/tests/test_readme.py"
    ),
    ("docs/adapters.md", "class VisibilityPerPrincipal"): (
        "packages/adapter-openai-agents/tests/test_docs_principal.py"
    ),
    ("docs/adapters.md", "# toy_framework.py"): "conformance/tests/test_docs_example.py",
    ("docs/adapters.md", "# my_driver.py"): "conformance/tests/test_docs_example.py",
    ("docs/adapters.md", "# my_adapter.py"): "conformance/tests/test_docs_example.py",
    ("docs/adapters.md", "# test_conformance.py"): "conformance/tests/test_docs_example.py",
}

OUR_DISTRIBUTIONS = {
    "schemarouter-core",
    "schemarouter-conformance",
    "schemarouter-openai-agents",
    "schemarouter-pydantic-ai",
    "schemarouter-langchain",
}
# options whose value is something the command writes (or a URL), not a path that must exist
OUTPUT_OPTIONS = {
    "-w",
    "--wheel-dir",
    "--out-dir",
    "--call-log",
    "--artifacts",
    "--artifacts-dir",
    "--url",
    "--publish-url",
}
SHELL_COMMANDS = {
    "python",
    "python3",
    ".venv/bin/python",
    ".venv/bin/uv",
    "pip",
    "schemarouter",
    "pytest",
    "export",
    "bash",
}


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int
    language: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    @property
    def first_line(self) -> str:
        return next((line.strip() for line in self.code.splitlines() if line.strip()), "")


def _blocks(doc: Path) -> list[Block]:
    text = doc.read_text(encoding="utf-8")
    found: list[Block] = []
    fence = r"^( {0,3})```([^\n`]*)\n(.*?)^\1```[ \t]*$"  # a fence may be indented (in a list item)
    for match in re.finditer(fence, text, flags=re.DOTALL | re.MULTILINE):
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(doc, line, match.group(2).strip(), textwrap.dedent(match.group(3))))
    return found


BLOCKS = [block for doc in DOCS for block in _blocks(doc)]
PYTHON = [block for block in BLOCKS if block.language == "python"]
SHELL = [block for block in BLOCKS if block.language == "bash"]


def _run_elsewhere(block: Block) -> str | None:
    doc = str(block.doc.relative_to(ROOT))
    for (where, marker), test in RUN_ELSEWHERE.items():
        if where == doc and marker in block.code:
            return test
    return None


def _standalone(block: Block) -> bool:
    return not block.first_line.startswith(NOT_STANDALONE) and _run_elsewhere(block) is None


def _compiled(block: Block) -> Any:
    return compile(textwrap.dedent(block.code), block.name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def test_the_documents_are_found() -> None:
    names = {str(doc.relative_to(ROOT)) for doc in DOCS}
    assert {"README.md", "packages/core/README.md", "conformance/README.md", "docs/adapters.md"} <= names
    assert len(PYTHON) >= 20
    assert len(SHELL) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.name)
def test_every_block_names_its_language(block: Block) -> None:
    assert block.language in LANGUAGES, (
        f"{block.name}: a fenced block needs one of {sorted(LANGUAGES)} after its ``` "
        f"(found {block.language!r}), so that the checks here know what it holds"
    )


@pytest.mark.parametrize("block", PYTHON, ids=lambda block: block.name)
def test_every_python_block_compiles(block: Block) -> None:
    _compiled(block)


@pytest.mark.parametrize("key", list(RUN_ELSEWHERE), ids=lambda key: f"{key[0]}[{key[1] or 'all'}]")
def test_the_tests_that_run_blocks_exist_and_read_the_document(key: tuple[str, str]) -> None:
    doc, marker = key
    matching = [b for b in PYTHON if str(b.doc.relative_to(ROOT)) == doc and marker in b.code]
    assert matching, f"no python block of {doc} holds {marker!r}: update RUN_ELSEWHERE"
    test = ROOT / RUN_ELSEWHERE[key]
    assert test.is_file(), f"{RUN_ELSEWHERE[key]} does not exist"
    source = test.read_text(encoding="utf-8")
    assert Path(doc).name in source or Path(doc).stem.upper() in source, (
        f"{RUN_ELSEWHERE[key]} does not read {doc}"
    )


def _fixture_path() -> str:
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


_RUNNER = """
import ast, asyncio, sys
path = sys.argv[1]
code = compile(open(path, encoding="utf-8").read(), path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__", "__file__": path})
if asyncio.iscoroutine(result):
    asyncio.run(result)
"""


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in PYTHON if _standalone(b)], ids=lambda block: block.name)
def test_a_standalone_python_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    """Run as a script (top-level `await` in an event loop), in an empty folder, with the dev
    environment's python first on PATH (as in an activated virtual environment)."""
    script = tmp_path / (
        block.first_line.removeprefix("# ") if re.fullmatch(r"# \w+\.py", block.first_line) else "snippet.py"
    )
    script.write_text(block.code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(script)],
        cwd=tmp_path,
        env={**os.environ, "PATH": _fixture_path()},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{block.name} failed:\n{done.stderr[-3000:]}"


# --- calls written in the docs fit the real signatures -------------------------------------------


@dataclass
class Names:
    """What a document's python blocks import: names, and the modules they come from (a call
    in the prose may name a function of such a module that no block imports)."""

    names: dict[str, Any]
    modules: list[Any]

    def get(self, name: str) -> Any:
        if name in self.names:
            return self.names[name]
        # a module's own names only: a moved name's deprecation shim is not what the docs call
        return next((vars(m)[name] for m in self.modules if name in vars(m)), None)


def _imports(doc: Path) -> Names:
    """The names the document's python blocks import, resolved (names that do not import, such
    as the reader's own modules, are left out)."""
    found = Names({}, [])
    for block in (b for b in PYTHON if b.doc == doc):
        for node in ast.walk(ast.parse(textwrap.dedent(block.code))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                try:
                    module = importlib.import_module(node.module)
                except ImportError:
                    continue
                found.modules.append(module)
                for alias in node.names:
                    if hasattr(module, alias.name):
                        found.names[alias.asname or alias.name] = getattr(module, alias.name)
    return found


def _resolve(node: ast.expr, names: Names) -> tuple[Any, bool] | None:
    """The object a call's function names, and whether it is an instance method read off its
    class (whose `self` the call does not pass)."""
    if isinstance(node, ast.Name):
        target = names.get(node.id)
        return None if target is None else (target, False)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, names)
        if base is None or not hasattr(base[0], node.attr):
            return None
        owner = base[0]
        unbound = inspect.isclass(owner) and inspect.isfunction(inspect.getattr_static(owner, node.attr))
        return getattr(owner, node.attr), unbound
    return None


def _calls(doc: Path) -> Iterator[tuple[str, ast.Call]]:
    """Calls in the document's inline code and in its python blocks that no test runs."""
    text = doc.read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.DOTALL | re.MULTILINE)
    for span in re.findall(r"(?<!`)`([^`\n]+)`(?!`)", prose):
        try:
            tree = ast.parse(span.strip(), mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Call):
            yield f"`{span}`", tree.body
    for block in (b for b in PYTHON if b.doc == doc and not _standalone(b) and _run_elsewhere(b) is None):
        for node in ast.walk(ast.parse(textwrap.dedent(block.code))):
            if isinstance(node, ast.Call):
                yield f"{block.name}: {ast.unparse(node)}", node


def _elided(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _call_problem(call: ast.Call, names: Names) -> str | None:
    resolved = _resolve(call.func, names)
    if resolved is None or not callable(resolved[0]):
        return None
    target, unbound = resolved
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    if unbound:
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    elided = any(_elided(a) or isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )
    positional = [None for a in call.args if not _elided(a) and not isinstance(a, ast.Starred)]
    keywords = {k.arg: None for k in call.keywords if k.arg is not None}
    try:
        (signature.bind_partial if elided else signature.bind)(*positional, **keywords)
    except TypeError as exc:
        return f"{exc} (the signature is {signature})"
    return None


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_calls_in_the_docs_fit_the_real_signatures(doc: Path) -> None:
    names = _imports(doc)
    problems = [
        f"{where}: {problem}"
        for where, call in _calls(doc)
        if (problem := _call_problem(call, names)) is not None
    ]
    assert not problems, "\n".join(problems)


# --- shell commands -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    block: Block
    argv: tuple[str, ...]
    comment: str
    env: tuple[tuple[str, str], ...]

    @property
    def yours(self) -> bool:
        return YOUR_PROJECT in self.comment


def _split_comment(line: str) -> tuple[str, str]:
    """A shell line as (command, comment): the comment starts at the first `#` that begins a
    word outside quotes (an apostrophe in the comment is not a quote)."""
    quote = ""
    for position, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (position == 0 or line[position - 1].isspace()):
            return line[:position], line[position:]
    return line, ""


def _commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    env: list[tuple[str, str]] = []
    logical = re.sub(r"\\\n\s*", " ", block.code)
    for line in logical.splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        code, comment = _split_comment(line)
        words = shlex.split(code)
        if words and words[0] == "export":
            name, _, value = words[1].partition("=")
            env.append((name, value))
        commands.append(Command(block, tuple(words), comment, tuple(env)))
    return commands


COMMANDS = [command for block in SHELL for command in _commands(block)]


def _is_path(word: str) -> bool:
    return (
        "/" in word or word.startswith(".") or re.search(r"\.(py|json|jsonl|md|toml)$", word) is not None
    ) and ("://" not in word)


def _path_problems(command: Command, words: tuple[str, ...]) -> list[str]:
    if command.yours:
        return []
    problems: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        if word in OUTPUT_OPTIONS:
            skip_next = True
            continue
        if word.startswith("-") or not _is_path(word) or word == "dist" or word.startswith("dist/"):
            continue  # dist/: what a build command of the same page writes
        path = re.sub(r"\[[^\]]*\]$", "", word)  # ./packages/core[semantic]
        if not (ROOT / path).exists():
            problems.append(f"{word} does not exist in the repository")
    return problems


def _module_problem(module: str) -> str | None:
    try:
        found = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        found = None
    return None if found is not None else f"no module named {module!r}"


def _python_problems(command: Command, argv: tuple[str, ...]) -> list[str]:
    if argv[:2] == ("-m", "pip"):
        return _pip_problems(command, argv[2:])
    if argv[:1] == ("-m",):
        problem = _module_problem(argv[1])
        return ([problem] if problem else []) + _path_problems(command, argv[2:])
    if argv[:1] == ("scripts/dev.py",):
        spec = importlib.util.spec_from_file_location("dev_for_docs", ROOT / "scripts" / "dev.py")
        assert spec is not None
        assert spec.loader is not None
        dev = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(dev)
        return [] if argv[1:2] and argv[1] in dev.COMMANDS else [f"dev.py has no command {argv[1:2]}"]
    return _path_problems(command, argv[:1])


def _pip_problems(command: Command, argv: tuple[str, ...]) -> list[str]:
    if argv[:1] not in (("install",), ("wheel",)):
        return [f"pip {argv[:1]}: only install and wheel are checked"]
    problems = _path_problems(command, argv[1:])
    takes_value = {"-w", "--wheel-dir", "--find-links", "-f", "-r", "--requirement", "-c", "--index-url"}
    words = list(argv[1:])
    local_wheels = "--find-links" in words or "-f" in words
    position = 0
    while position < len(words):
        word = words[position]
        position += 2 if word in takes_value else 1
        if word.startswith("-"):
            continue
        bare = word.split("[")[0]
        if "/" not in bare and (ROOT / bare).is_dir():
            problems.append(f"pip reads {word!r} as a project name on the index; write ./{word}")
        if bare in OUR_DISTRIBUTIONS and not local_wheels:
            problems.append(
                f"{bare} is not on the public index yet: install it from a clone "
                "(a folder path, or --find-links with built wheels)"
            )
    return problems


def _schemarouter_problems(command: Command, argv: tuple[str, ...]) -> list[str]:
    try:
        with patch.dict(os.environ, dict(command.env)):  # what the block's `export` lines set
            args = build_parser().parse_args(list(argv))
    except SystemExit as exit_:
        return [] if exit_.code == 0 else ["the schemarouter parser refuses it"]
    problems: list[str] = []
    for stdio in getattr(args, "stdio", []):
        inner = tuple(shlex.split(stdio))
        if inner[:1] in (("python",), ("python3",)):
            problems += _python_problems(command, inner[1:])
        else:
            problems.append(f"--stdio {stdio!r}: start a python server, as a reader can run it")
    files = [*getattr(args, "tools", []), *([args.labelled] if getattr(args, "labelled", None) else [])]
    problems += _path_problems(command, tuple(files))
    return problems


def _command_problems(command: Command) -> list[str]:
    argv = command.argv
    program = argv[0]
    if program not in SHELL_COMMANDS:
        return [f"{program!r}: a command these checks do not know (add it to SHELL_COMMANDS with a check)"]
    if program == "export":
        return [] if len(argv) == 2 and "=" in argv[1] else ["export NAME=VALUE"]
    if program in ("python", "python3", ".venv/bin/python"):
        return _python_problems(command, argv[1:])
    if program == "pip":
        return _pip_problems(command, argv[1:])
    if program == "schemarouter":
        return _schemarouter_problems(command, argv[1:])
    if program == ".venv/bin/uv" and argv[1:2] not in (("build",), ("publish",)):
        return [f"uv {argv[1:2]}: only build and publish are checked"]
    return _path_problems(command, argv[1:])  # pytest, bash, uv build / publish


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"{c.block.name}:{shlex.join(c.argv)[:60]}")
def test_every_shell_command_parses_and_names_what_exists(command: Command) -> None:
    problems = _command_problems(command)
    assert not problems, f"{command.block.name}: {shlex.join(command.argv)}\n" + "\n".join(problems)


def _cheap(command: Command) -> bool:
    return command.argv[:1] == ("schemarouter",) and command.argv[1:2] in (
        ("catalog",),
        ("route",),
        ("calibrate",),
    )


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("docs-fixture")
    with http_fixture_server(folder / "calls.jsonl", folder / "server.log") as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if _cheap(c)], ids=lambda c: f"{c.block.name}:{shlex.join(c.argv)[:60]}"
)
def test_the_cheap_commands_run(command: Command, fixture_url: str) -> None:
    """From the repository root, with the dev environment first on PATH; a documented
    `--url http://127.0.0.1:8765/mcp` reaches the fixture server on whatever port it has."""
    argv = [re.sub(r"^http://127\.0\.0\.1:8765/mcp$", fixture_url, word) for word in command.argv]
    done = subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", *argv[1:]],
        cwd=ROOT,
        env={**os.environ, "PATH": _fixture_path(), **dict(command.env)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, (
        f"{shlex.join(command.argv)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    )


def test_the_signature_check_catches_a_missing_keyword_only_argument() -> None:
    """The check that holds the docs to the SDK: `function_call(name, arguments)` misses the
    keyword-only `call_id` the OpenAI Agents SDK requires."""
    names = Names({}, [importlib.import_module("agents.testing")])
    call = ast.parse("function_call(name, arguments)", mode="eval").body
    assert isinstance(call, ast.Call)
    assert "call_id" in (_call_problem(call, names) or "")
    fixed = ast.parse("function_call(name, arguments, call_id=...)", mode="eval").body
    assert isinstance(fixed, ast.Call)
    assert _call_problem(fixed, names) is None


def test_the_pip_check_catches_a_folder_written_as_a_name() -> None:
    block = Block(ROOT / "README.md", 0, "bash", "pip wheel --no-deps -w dist packages/core conformance\n")
    problems = _command_problems(_commands(block)[0])
    assert problems == ["pip reads 'conformance' as a project name on the index; write ./conformance"]
