"""Tokenisation shared by the index and queries: identifiers, free text, CJK and symbols.

Surface tokens are lower-cased words. Identifiers are split on snake_case, camelCase,
dots, dashes and letter/digit boundaries. Runs of CJK characters become overlapping
character bigrams (so Chinese text is searchable without a dictionary), and pictographic
symbols such as emoji become one token each, so no text vanishes from the index.
"""

from __future__ import annotations

import re
import unicodedata

from ._memo import remember

__all__ = [
    "STOP_WORDS",
    "identifier_tokens",
    "is_cjk",
    "joined_whole",
    "mixed_case_whole",
    "text_tokens",
    "word_tokens",
]

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "anyone",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "either",
        "else",
        "etc",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "getting",
        "give",
        "given",
        "gives",
        "go",
        "going",
        "got",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "kindly",
        "let",
        "lets",
        "like",
        "made",
        "make",
        "makes",
        "many",
        "may",
        "me",
        "might",
        "mine",
        "more",
        "most",
        "much",
        "must",
        "my",
        "myself",
        "need",
        "needs",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "others",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "please",
        "possible",
        "provide",
        "really",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "someone",
        "something",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "use",
        "used",
        "using",
        "very",
        "via",
        "want",
        "wants",
        "was",
        "we",
        "were",
        "what",
        "whatever",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "would",
        "yes",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        # fragments of contractions ("we'll", "you're", "I've")
        "ll",
        "re",
        "ve",
    ]
)
"""Words that carry no routing evidence on their own (English function words and fillers)."""

# A capital starts a new word before lower-case letters (`HTTPServer`), except a plural `s`
# closing an acronym (`URLs`, `PDFs`, `METARs` stay one word).
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s(?![a-z]))")
_DIGIT_EDGE = re.compile(r"(?<=\D)(?=\d)|(?<=\d)(?=\D)")
# A word is a run of letters/digits; a symbol is any single pictographic or other symbol.
_PIECE = re.compile(r"[^\W_]+|[^\w\s]", re.UNICODE)

_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x2FA1F),  # CJK Extensions B..F, Compatibility Supplement
)


_CJK_CHAR = re.compile(
    "[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES) + "]",
)
_PIECE_CACHE_SIZE = 200_000
# Pieces repeat massively across a catalog: remember each piece's tokens (bounded, see `_memo`).
_identifier_pieces: dict[str, tuple[str, ...]] = {}
_word_pieces: dict[str, tuple[str, ...]] = {}


def is_cjk(char: str) -> bool:
    """Is `char` from a script written without spaces between words (Chinese, Japanese, Korean)?"""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def _cjk_split(word: str) -> list[str]:
    """Split a word into non-CJK parts and CJK bigrams (a lone CJK character stays a unigram)."""
    if word.isascii() or _CJK_CHAR.search(word) is None:
        return [word]
    out: list[str] = []
    run: list[str] = []
    other: list[str] = []

    def flush_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        else:
            out.extend(run[i] + run[i + 1] for i in range(len(run) - 1))
        run.clear()

    for char in word:
        if is_cjk(char):
            if other:
                out.append("".join(other))
                other.clear()
            run.append(char)
        else:
            if run:
                flush_run()
            other.append(char)
    if run:
        flush_run()
    if other:
        out.append("".join(other))
    return out


def _piece_tokens(piece: str, cache: dict[str, tuple[str, ...]], split_digits: bool) -> tuple[str, ...]:
    """Tokens of one `_PIECE` match (a symbol, or a run of letters and digits), remembered in `cache`.

    Identifiers also split where letters meet digits (`v2` -> `v`, `2`); free text does not.
    """
    out: list[str] = []
    if not piece[0].isalnum():
        if _is_symbol(piece):
            out.append(piece)
    elif split_digits:
        for part in _DIGIT_EDGE.split(piece):
            if part:
                out.extend(_cjk_split(part.casefold()))
    else:
        out.extend(_cjk_split(piece.casefold()))
    return _remember(cache, piece, out)


def _remember(cache: dict[str, tuple[str, ...]], piece: str, tokens: list[str]) -> tuple[str, ...]:
    return remember(cache, piece, tuple(tokens), _PIECE_CACHE_SIZE)


def _is_symbol(piece: str) -> bool:
    return len(piece) == 1 and unicodedata.category(piece) == "So"


def identifier_tokens(identifier: str) -> list[str]:
    """Split `get_userProfile.v2` into `get user profile v 2`, lower-cased."""
    spaced = _CAMEL.sub(" ", unicodedata.normalize("NFKC", identifier))
    out: list[str] = []
    cache = _identifier_pieces
    for piece in _PIECE.findall(spaced):
        tokens = cache.get(piece)
        out.extend(tokens if tokens is not None else _piece_tokens(piece, cache, split_digits=True))
    return out


def word_tokens(text: str) -> list[str]:
    """Lower-cased tokens of free text (no camelCase splitting), stop-words kept."""
    out: list[str] = []
    cache = _word_pieces
    for piece in _PIECE.findall(unicodedata.normalize("NFKC", text)):
        tokens = cache.get(piece)
        out.extend(tokens if tokens is not None else _piece_tokens(piece, cache, split_digits=False))
    return out


def _content_tokens(text: str) -> list[str]:
    return [t for t in identifier_tokens(text) if t not in STOP_WORDS and not (len(t) == 1 and t.isascii())]


_text_words: dict[str, tuple[str, ...]] = {}
_text_words_whole: dict[str, tuple[str, ...]] = {}

_MIXED_CASE = re.compile(r"[A-Za-z]*[a-z][A-Z][A-Za-z]*")
"""A word written in mixed case: a capital after a small letter (`YouTube`, `iPhone`, `getWeather`)."""
_AROUND_WORD = "\"'`()[]{}<>,.;:!?*"


def mixed_case_whole(word: str) -> str | None:
    """`word` (surrounding punctuation aside) lower-cased and kept whole, if it is written in
    mixed case (`YouTube` -> `youtube`); otherwise None. Such a word is split into its parts
    (`you`, `tube`) like an identifier, but is often a name in its own right."""
    core = word.strip(_AROUND_WORD)
    if _MIXED_CASE.fullmatch(core) is None:
        return None
    whole = core.casefold()
    return None if whole in STOP_WORDS else whole


def joined_whole(identifier: str) -> str | None:
    """`identifier` (surrounding punctuation aside) as one lower-cased word, when it is made of
    several identifier parts (`get_customer`, `getCustomer`, `cmd_controller.execute` ->
    `getcustomer`, `getcustomer`, `cmdcontrollerexecute`); None for a single part. The index
    keeps a multi-part tool name whole in this form, so that a request that names the tool,
    however it spells the joins, names that one tool and not only its parts."""
    core = identifier.strip(_AROUND_WORD)
    if len(identifier_tokens(core)) < 2:
        return None
    joined = "".join(ch for ch in unicodedata.normalize("NFKC", core).casefold() if ch.isalnum())
    return joined or None


def text_tokens(text: str, wholes: bool = False) -> list[str]:
    """Lower-cased tokens of free text; stop-words and single ASCII characters removed.

    Words written in camelCase or with digits inside (`getWeather`, `v2`) are split the
    way identifiers are, since users paste tool names into requests. With `wholes`, a word
    written in mixed case is also kept whole, after its parts (`YouTube` -> `tube`,
    `youtube`): the catalog side indexes both, so a request can name either.
    """
    if not text.isascii():
        # NFKC first; no token crosses whitespace, so the words can then be read one by one
        text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    cache = _text_words_whole if wholes else _text_words
    for word in text.split():
        tokens = cache.get(word)
        if tokens is None:
            found = _content_tokens(word)
            whole = mixed_case_whole(word) if wholes else None
            if whole is not None and whole not in found:
                found.append(whole)
            tokens = _remember(cache, word, found)
        out.extend(tokens)
    return out
