"""Files named in a request: a path or a file name stands for a file of a format.

"Save the summary to /root/markdown/report.md" asks for a file to be written in Markdown,
though neither word is in the request; "open data.xlsx" asks for a spreadsheet. Each path or
file name in a request (a whitespace-separated word, quotes and brackets around it aside,
whose last part has a known extension) adds the word "file" and the words its extension
stands for to the request's words. A web address ("https://example.com/data.json", or
"www.example.com/data.json") adds the words for its format but not "file": it names a resource
on the web, not a file on a disk; a host alone ("point.md") names no file. Words that read as
code rather than as files are left alone: "Node.js" (a capitalised name before .js or .ts)
and an extension in mixed case ("Mr.Log"). The scan is one pass over the request's words.
"""

from __future__ import annotations

import re

__all__ = ["path_words"]

_FORMATS: dict[str, tuple[str, ...]] = {
    "md": ("markdown",),
    "markdown": ("markdown",),
    "txt": ("text",),
    "csv": ("csv",),
    "tsv": ("tsv",),
    "xlsx": ("excel", "spreadsheet"),
    "xls": ("excel", "spreadsheet"),
    "docx": ("word", "document"),
    "pptx": ("powerpoint", "presentation"),
    "ppt": ("powerpoint", "presentation"),
    "pdf": ("pdf",),
    "json": ("json",),
    "yaml": ("yaml",),
    "yml": ("yaml",),
    "xml": ("xml",),
    "html": ("html",),
    "py": ("python",),
    "js": ("javascript",),
    "ts": ("typescript",),
    "png": ("image",),
    "jpg": ("image",),
    "jpeg": ("image",),
    "gif": ("image",),
    "webp": ("image",),
    "svg": ("image", "svg"),
    "mp3": ("audio",),
    "wav": ("audio",),
    "mp4": ("video",),
    "mov": ("video",),
    "zip": ("archive", "zip"),
}

_EXTENSION_HINT = re.compile(r"\.[A-Za-z]")
_STRIP = "\"'`()[]{}<>,;:!?*"
_MAX_WORD = 1024
"""Longer words (pasted data, encoded blobs) are not read as file names."""
_CODE_EXTENSIONS = frozenset({"js", "ts"})
"""After a capitalised name these name a framework ("Node.js", "Vue.js"), not a file."""


def _shown(word: str) -> str:
    """`word` without the quotes, brackets and punctuation around it, and without the text of a
    Markdown link before its target (`[spec](https://x.org/spec.pdf)`)."""
    return word.rsplit("](", 1)[-1].strip(_STRIP).rstrip(".")


def _named_file(word: str) -> tuple[str, bool] | None:
    """(extension, on the web?) when `word` (as `_shown` gives it) names a file of a known
    format, else None."""
    if not word or len(word) > _MAX_WORD:
        return None
    lower = word.lower()
    web = False
    if "://" in lower:
        if not lower.startswith("file://"):
            web = True
            word = word.split("://", 1)[1]
            if "/" not in word:
                return None  # a host alone ("https://point.md")
            word = word.split("/", 1)[1]
    elif "/" in word and "." in word.split("/", 1)[0] and not word.startswith((".", "~")):
        web = True  # "www.example.com/setup.zip": a host, then a path on it
        word = word.split("/", 1)[1]
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or not (stem[-1].isalnum() or stem[-1] in "_-)"):
        return None
    if extension not in (extension.lower(), extension.upper()):
        return None  # "Mr.Log", "passed.Log": not a file name
    extension = extension.lower()
    if extension not in _FORMATS:
        return None
    if extension in _CODE_EXTENSIONS and "/" not in word and stem[:1].isupper():
        return None
    return extension, web


def path_words(text: str) -> dict[str, str]:
    """The words the files a request names stand for, each with the first path or file name
    that gave it, in order of first mention (empty when it names no file of a known format)."""
    out: dict[str, str] = {}
    if _EXTENSION_HINT.search(text) is None:
        return out  # no dot before a letter: no extension anywhere (the usual request)
    for word in text.split():
        if "." not in word:
            continue
        shown = _shown(word)
        named = _named_file(shown)
        if named is None:
            continue
        extension, web = named
        for meant in _FORMATS[extension] if web else ("file", *_FORMATS[extension]):
            out.setdefault(meant, shown)
    return out
