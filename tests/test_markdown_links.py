"""Every link in every Markdown file of the repository leads somewhere, without the network.

- A relative link names a file or folder of the repository (outside code blocks and code spans);
  a link may not leave the repository.
- A `#fragment` names a heading of its target Markdown file (or of the file itself), by GitHub's
  rules: the heading's text as rendered, lower-cased, with every character that is not a letter,
  a digit, `_`, `-` or a space dropped and spaces turned into `-`; a repeated heading gets `-1`,
  `-2`, ... An explicit `<a id="...">` (or `name`) counts too.
- No absolute machine path: no link to `/...` or `file:`, and nowhere the folder this checkout
  lies in (`/home/me/src/...`).
- An external link is never fetched: it must be a well-formed `http(s)` URL (a host, no space)
  or `mailto:`.

The checker is tested on small files first, so that it can be trusted to fail.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_FOLDERS = {"node_modules", "dist", "build", "artifacts", "__pycache__", "site-packages"}
"""Folders of build output, installed packages and caches; hidden folders (`.venv`, `.git`) too."""


def markdown_files(root: Path = ROOT) -> list[Path]:
    found: list[Path] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".") and name not in SKIPPED_FOLDERS and not name.endswith(".egg-info")
        )
        found.extend(Path(folder) / name for name in sorted(files) if name.endswith(".md"))
    return found


# -- reading a Markdown file ------------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
EXPLICIT_ANCHOR = re.compile(r"""<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
INLINE_LINK = re.compile(
    r"""!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]"""  # [text], one level of nested brackets
    r"""\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"""  # (target
    r"""(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)"""  # optional "title")
)
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.MULTILINE)
AUTOLINK = re.compile(r"<((?:https?|mailto|file):[^\s<>]*)>", re.IGNORECASE)


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    """The line with fenced code blanked out, inline code spans and comments removed."""


def prose_lines(text: str) -> list[Line]:
    """The file's lines outside fenced code blocks, with code spans and comments removed."""
    text = COMMENT.sub(lambda m: "\n" * m.group().count("\n"), text)
    lines: list[Line] = []
    fence: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(raw)
        if fence is None and opening:
            fence = opening.group(1)
            continue
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        lines.append(Line(number, CODE_SPAN.sub("", raw)))
    return lines


def rendered_heading(text: str) -> str:
    """A heading's text as GitHub renders it: code spans' content, links' text, no emphasis or tags."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("*", "")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (before duplicates are numbered)."""
    return re.sub(r"[^\w\- ]", "", rendered_heading(heading).strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every fragment a link may name in this Markdown text."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fence: str | None = None
    for raw in text.splitlines():
        opening = FENCE.match(raw)
        if fence is None and opening:
            fence = opening.group(1)
            continue
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        heading = HEADING.match(raw)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(match.group(1) for match in EXPLICIT_ANCHOR.finditer(raw))
    return found


def links(lines: list[Line]) -> Iterator[tuple[int, str]]:
    """(line number, target) of every inline link, image, reference definition and autolink
    (`<https://...>`). A bare URL in prose is a link on GitHub only when it is well formed, so it
    is not checked."""
    for line in lines:
        targets = [m.group(1) for m in INLINE_LINK.finditer(line.text)]
        targets += [m.group(1) for m in REFERENCE_DEFINITION.finditer(line.text)]
        targets += [m.group(1) for m in AUTOLINK.finditer(line.text)]
        for target in targets:
            yield line.number, target.removeprefix("<").removesuffix(">")


# -- checking ---------------------------------------------------------------------------------------


def _external_problem(target: str) -> str | None:
    parts = urlsplit(target)
    if parts.scheme == "mailto":
        return None if re.fullmatch(r"mailto:[^@\s]+@[^@\s]+", target) else "a malformed mailto: link"
    if parts.scheme in ("http", "https"):
        if not re.fullmatch(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|[0-9a-f:]+", parts.hostname or ""):
            return "an http(s) link without a well-formed host"
        try:
            parts.port  # noqa: B018 - a port that is no number raises
        except ValueError:
            return "an http(s) link with a malformed port"
        return None
    return f"a link of scheme {parts.scheme!r}, neither a relative path nor http(s)"


_SHARED_FOLDERS = {Path("/"), Path("/tmp"), Path("/var/tmp"), Path(tempfile.gettempdir()).resolve()}
"""Folders that hold many things (a clone made in /tmp): docs may name paths in them, such as an
example file `/tmp/notes.md`, without naming this machine's layout."""


def machine_paths(root: Path) -> list[str]:
    """Where this checkout lies on this machine (its folder, and the folder holding it unless
    that is a shared one such as /tmp): text naming them names a machine, not the repository."""
    checkout = root.resolve()
    holder = checkout.parent
    return [f"{checkout}/" if holder in _SHARED_FOLDERS else f"{holder}/"]


def problems(path: Path, root: Path = ROOT) -> list[str]:
    """Every broken link of the Markdown file at `path`, as `file:line: problem`."""
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(root).as_posix()
    found: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        for prefix in machine_paths(root):
            if prefix in raw:
                found.append(f"{where}:{number}: a machine path {prefix!r}: the docs name repository paths")
    for number, target in links(prose_lines(text)):
        problem = _link_problem(path, target, root)
        if problem is not None:
            found.append(f"{where}:{number}: {target!r} is {problem}")
    return found


def _link_problem(path: Path, target: str, root: Path) -> str | None:
    if not target:
        return "an empty link"
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target) and not re.match(r"^[A-Za-z]:[\\/]", target):
        return _external_problem(target)
    if target.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:[\\/]", target):
        return "an absolute path: link relative to the file instead"
    location, _, fragment = target.partition("#")
    destination = (path.parent / unquote(location)).resolve() if location else path
    try:
        destination.relative_to(root.resolve())
    except ValueError:
        return "outside the repository"
    if not destination.exists():
        return f"a link to {location!r}, which does not exist"
    if fragment and destination.suffix == ".md":
        names = anchors(destination.read_text(encoding="utf-8"))
        if unquote(fragment) not in names:
            return f"a link to a heading #{fragment} that {destination.relative_to(root.resolve()).as_posix()} does not have"
    return None


# -- the checker, checked ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Abstention (`abstention.py`)", "abstention-abstentionpy"),
        ("BFCL: data no weight was tuned on (`bfcl.py`)", "bfcl-data-no-weight-was-tuned-on-bfclpy"),
        ("Many workers, one snapshot", "many-workers-one-snapshot"),
        ("What `load_snapshot` checks — and why", "what-load_snapshot-checks--and-why"),
        ("A [linked](other.md) **bold** heading", "a-linked-bold-heading"),
        ("Café über 2.0", "café-über-20"),
    ],
)
def test_headings_slug_as_github_slugs_them(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_the_checker_finds_each_kind_of_broken_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\n## Setup\n\n## Setup\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "\n".join(
            [
                "# Title",
                "[ok](docs/guide.md#setup) [ok again](docs/guide.md#setup-1) [self](#title) [folder](docs/)",
                "[ok url](https://example.org/a?b=c#d) <https://example.org> [mail](mailto:a@example.org)",
                "[missing](docs/nope.md) [bad anchor](docs/guide.md#install) [bad self](#nothing)",
                "[machine](/home/someone/file.md) [out](../elsewhere.md) [scheme](file:///etc/passwd)",
                f"[bad url](https://) [bad port](http://127.0.0.1:port/mcp), see {tmp_path}/docs/guide.md",
                "a request such as 'save it to /root/notes.md' or 'open http://.../a.jpg' is prose",
                "`[in code](missing.md)`",
                "```text",
                "[in a fence](missing.md)",
                "```",
            ]
        ),
        encoding="utf-8",
    )
    found = problems(tmp_path / "README.md", tmp_path)
    assert found == [
        f"README.md:6: a machine path '{tmp_path.parent}/': the docs name repository paths",
        "README.md:4: 'docs/nope.md' is a link to 'docs/nope.md', which does not exist",
        "README.md:4: 'docs/guide.md#install' is a link to a heading #install that docs/guide.md does not have",
        "README.md:4: '#nothing' is a link to a heading #nothing that README.md does not have",
        "README.md:5: '/home/someone/file.md' is an absolute path: link relative to the file instead",
        "README.md:5: '../elsewhere.md' is outside the repository",
        "README.md:5: 'file:///etc/passwd' is a link of scheme 'file', neither a relative path nor http(s)",
        "README.md:6: 'https://' is an http(s) link without a well-formed host",
        "README.md:6: 'http://127.0.0.1:port/mcp' is an http(s) link with a malformed port",
    ]


def test_every_markdown_file_is_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in markdown_files()}
    assert {"README.md", "docs/architecture.md", "benchmarks/README.md", "packages/core/README.md"} <= names
    assert not any(name.startswith((".venv/", ".git/")) for name in names)


# -- the repository ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_link_of_every_markdown_file_leads_somewhere(path: Path) -> None:
    assert problems(path) == []
