"""A path or file name in a request stands for a file of its format."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._paths import path_words

TOOLS = [
    ToolSpec(
        "write_file",
        "Write text to a file on disk.",
        {"type": "object", "properties": {"path": {"type": "string"}}},
    ),
    ToolSpec("excel_read_sheet", "Read rows from a sheet of an Excel workbook."),
    ToolSpec("create_presentation", "Create a PowerPoint presentation."),
    ToolSpec("get_stock_news", "Latest news about a stock ticker."),
]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Save it to /root/markdown/report.md", ["file", "markdown"]),
        ("open data.xlsx please", ["file", "excel", "spreadsheet"]),
        ("see report.pdf, and notes.txt.", ["file", "pdf", "text"]),
        ("C:\\docs\\plan.docx", ["file", "word", "document"]),
        ("run ./scripts/build.py twice", ["file", "python"]),
        ("summarise https://example.com/q3/report.pdf", ["pdf"]),  # on the web, not on a disk
        ("open file:///tmp/notes.md", ["file", "markdown"]),
        ("visit www.example.com now", []),  # a host, not a file
        ("write to ann.lee@example.com", []),  # an address
        ("Mr. Smith went home. Then he slept.", []),  # sentence ends
        ("Python 3.11 is out", []),  # a version
        ("e.g. this one", []),
        ("the archive.unknownext file", []),  # an extension not in the table
        ("Fetch https://point.md/ru/novosti", []),  # a host, not a file
        ("see www.example.com/tools/setup.zip", ["archive", "zip"]),  # a host, then a path on it
        ("Node.js or Vue.js, and console.log", []),  # code, not files
        ("a cat named Mr.Log", []),
        ("Open budget (1).xlsx", ["file", "excel", "spreadsheet"]),
        ("read [the spec](https://x.org/spec.pdf)", ["pdf"]),
        ("fix src/App.ts and app.js", ["file", "typescript", "javascript"]),
        ("Here is the log output." + "-" * 2000, []),
    ],
)
def test_the_files_a_request_names_give_words_for_their_format(text: str, words: list[str]) -> None:
    assert list(path_words(text)) == words


def test_a_path_routes_to_the_tools_for_files_of_its_format() -> None:
    visibility = Visibility(SchemaRouter(Catalog.from_specs("demo", TOOLS)), k=2)
    assert visibility.allow_set("put the news summary in /root/out/daily.md").names[:1] == ("write_file",)
    assert visibility.allow_set("what is in /root/excel/people.xlsx").names[:1] == ("excel_read_sheet",)
    assert visibility.allow_set("turn this into slides at /root/ppt/apple.pptx").names[:1] == (
        "create_presentation",
    )
    # without a file name the same requests reach none of them
    assert "write_file" not in visibility.allow_set("put the news summary in my daily notes").names


def test_a_request_naming_no_file_is_read_as_before() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    a = router.retrieve("latest stock news. Then a summary, please.", 3)
    b = router.retrieve("latest stock news Then a summary please", 3)
    assert [(c.name, c.score) for c in a.candidates] == [(c.name, c.score) for c in b.candidates]


def test_the_explanation_names_the_file_a_word_was_read_from() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    (best, *_) = router.retrieve("what is in /data/people.xlsx", 2).candidates
    assert best.name == "excel_read_sheet"
    read = {(s.term, s.read_as) for s in best.signals}
    assert ("/data/people.xlsx", "excel") in read
    # a word the request itself says is its own, even when a file name says it too
    (best, *_) = router.retrieve("read the excel sheet people.xlsx", 2).candidates
    assert ("excel", None) in {(s.term, s.read_as) for s in best.signals}


def test_a_file_named_early_in_a_long_request_still_counts() -> None:
    """Words for the files a request names come before its own words, which count up to 64."""
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    filler = " ".join(f"word{i}x" for i in range(80))
    (best, *_) = router.retrieve(f"Open quarterly.xlsx. {filler}", 2).candidates
    assert best.name == "excel_read_sheet"


def test_an_explanation_shows_the_file_name_without_the_punctuation_around_it() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    (best, *_) = router.retrieve('what is in "people.xlsx"?', 2).candidates
    assert ("people.xlsx", "excel") in {(s.term, s.read_as) for s in best.signals}
