"""Files named in a request: a path or a file name stands for a file of a format.

"Save the summary to /root/markdown/report.md" asks for a file to be written in Markdown,
though neither word is in the request; "open data.xlsx" asks for a spreadsheet. Each path or
file name in a request (a word with a known extension, or a path with a slash and an
extension) adds the word "file" and the words its extension stands for to the request's words.
A web address ending in a file name ("https://example.com/data.json") adds the words for its
format but not "file": it names a resource on the web, not a file on a disk.
"""

from __future__ import annotations

import re

__all__ = ["path_words"]

_FORMATS: dict[str, tuple[str, ...]] = {
    "md": ("markdown",),
    "markdown": ("markdown",),
    "txt": ("text",),
    "log": ("log",),
    "csv": ("csv",),
    "tsv": ("tsv",),
    "xlsx": ("excel", "spreadsheet"),
    "xls": ("excel", "spreadsheet"),
    "docx": ("word", "document"),
    "doc": ("word", "document"),
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

_NAMED_FILE = re.compile(r"(?<![\w@])[\w./~\\-]*?[\w-]\.([A-Za-z][A-Za-z0-9]{0,4})(?!\w|\.\w)")


def path_words(text: str) -> dict[str, str]:
    """The words the files a request names stand for, each with the first path or file name
    that gave it, in order of first mention (empty when it names no file of a known format)."""
    out: dict[str, str] = {}
    for match in _NAMED_FILE.finditer(text):
        formats = _FORMATS.get(match.group(1).lower())
        if formats is None:
            continue
        start = max(text.rfind(space, 0, match.start()) for space in " \t\n\r") + 1
        named = text[start : match.end()]  # the whole word: a web address keeps its scheme
        # a web address names a resource of that format, not a file on a disk
        web = "://" in named and not named.lower().startswith("file://")
        for word in formats if web else ("file", *formats):
            out.setdefault(word, named)
    return out
