"""`schemarouter snapshot` as a user runs it: build once from a server or a definitions file,
check the file, and a fleet process loads it. Most tests call the command's `main(argv)` in
this process; one runs it as a real process (exit code, output streams)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter import Catalog, McpSource, SchemaRouter, ToolSpec, UserError, Visibility, load_snapshot
from schemarouter.cli import main
from schemarouter.cli._common import human_size
from schemarouter.cli._snapshot_cmd import EXAMPLE
from schemarouter.snapshot import save_snapshot
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log, stdio_command


def _definitions(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    tools = [
        {
            "name": "get_weather",
            "description": "Weather forecast for a city.",
            "parameters": {"type": "object"},
        },
        {"name": "send_email", "description": "Send an email.", "parameters": {"type": "object"}},
        {"name": "broken", "description": "Its schema is no schema.", "parameters": {"type": "dict"}},
    ]
    path.write_text(json.dumps(tools), encoding="utf-8")
    return path


def test_build_then_check_then_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tools.snapshot"
    assert (
        main(["snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out), "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["tools"], report["skipped"], report["mode"]) == (2, 1, "lexical")
    assert main(["snapshot", "check", str(out)]) == 0
    checked = capsys.readouterr().out
    assert checked.startswith(f"loaded {out} in ")
    assert "2 tools (1 skipped)" in checked
    assert "skipped tools:broken — invalid_schema" in checked
    router = load_snapshot(out)
    assert router.catalog.version == report["catalog_version"]
    assert Visibility(router, k=3).allow_set("weather in Paris").names == ("get_weather",)


def test_an_altered_snapshot_fails_the_check_as_misuse_in_a_real_process(tmp_path: Path) -> None:
    """Exit code 2, the reason on one line of stderr, nothing on stdout: as a shell sees it."""
    out = tmp_path / "tools.snapshot"
    assert main(["snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out)]) == 0
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0xFF
    out.write_bytes(bytes(data))
    checked = subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", "snapshot", "check", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 2
    assert "cut short or altered" in checked.stderr
    assert checked.stderr.count("\n") == 1
    assert checked.stdout == ""


def test_build_from_a_server_runs_no_tool(
    tmp_path: Path, call_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command, args = stdio_command(call_log)
    out = tmp_path / "fixture.snapshot"
    code = main(
        ["snapshot", "build", "--stdio", shlex.join([command, *args]), "--name", "fixture", "--out", str(out)]
    )
    assert code == 0
    assert f"{len(FIXTURE_TOOL_NAMES)} tools" in capsys.readouterr().out
    assert {cap.name for cap in load_snapshot(out).catalog} == set(FIXTURE_TOOL_NAMES)
    assert read_call_log(call_log) == []


# -- where the snapshot goes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "reason"),
    [
        pytest.param("missing/dir/x.snapshot", "does not exist", id="a-folder-that-does-not-exist"),
        pytest.param(".", "is a directory", id="a-folder"),
        pytest.param("file.txt/x.snapshot", "is not a directory", id="inside-a-file"),
    ],
)
def test_an_out_path_that_cannot_be_written_is_misuse_said_in_one_line(
    tmp_path: Path, where: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file.txt").write_text("not a folder", encoding="utf-8")
    out = tmp_path / where
    code = main(["snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 2
    assert stdout == ""
    assert stderr.count("\n") == 1, stderr
    assert f"cannot write a snapshot to {out}" in stderr
    assert reason in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "tools.json"]  # no temporary file


def test_the_out_path_is_checked_before_any_server_is_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = tmp_path / "started"
    server = shlex.join([sys.executable, "-c", f"open({str(started)!r}, 'w')"])
    code = main(["snapshot", "build", "--stdio", server, "--out", str(tmp_path / "missing" / "x.snapshot")])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err
    assert not started.exists()


def test_save_snapshot_names_the_path_it_cannot_write(tmp_path: Path) -> None:
    router = SchemaRouter(Catalog.from_specs("tools", [ToolSpec("ping", "Ping.")]))
    with pytest.raises(UserError, match=f"cannot write a snapshot to {re.escape(str(tmp_path))}/missing/x: "):
        save_snapshot(router, tmp_path / "missing" / "x")
    with pytest.raises(UserError, match="is a directory"):
        save_snapshot(router, tmp_path)
    assert list(tmp_path.iterdir()) == []


# -- what the help shows, and what it prints --------------------------------------------------------


def test_the_help_example_builds_a_snapshot_the_guide_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`snapshot --help` builds with the source name the README and docs/snapshots.md load with
    (`name="fixture"`): the two agree, so the help's file loads with the guide's code."""
    (build,) = [line.strip() for line in EXAMPLE.splitlines() if "snapshot build" in line]
    argv = shlex.split(build)[1:]
    argv[argv.index("--out") + 1] = str(tmp_path / "tools.snapshot")
    stdio = argv.index("--stdio") + 1
    argv[stdio] = re.sub(r"^python(?= )", shlex.quote(sys.executable), argv[stdio])  # this interpreter
    assert main(argv) == 0
    capsys.readouterr()
    fixture = McpSource.stdio(
        sys.executable, ["-m", "schemarouter_conformance.fixture_server"], name="fixture"
    )
    router = load_snapshot(tmp_path / "tools.snapshot", sources=[fixture])
    assert set(router.sources) == {"fixture"}


def test_sizes_print_in_the_unit_that_reads_best(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 19_500, 2**20 - 1, 11_655_712, 3 * 2**30)] == [
        "0 B",
        "1023 B",
        "1.0 KiB",
        "19.0 KiB",
        "1.0 MiB",
        "11.1 MiB",
        "3.0 GiB",
    ]
    out = tmp_path / "tools.snapshot"
    assert main(["snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1, "one line, however long the path"
    assert f", {human_size(out.stat().st_size)}, " in printed
    assert "KiB" in printed
    assert "0.0 MiB" not in printed
