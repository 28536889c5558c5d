"""Tokenisation shared by the index and queries."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["STOP_WORDS", "identifier_tokens", "text_tokens"]

STOP_WORDS = frozenset(
    """a an and are as at be by can do does for from get give has have how i in is it its me my
    of on or please show that the their them this to use using want was what when where which
    who will with would you your""".split()
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def identifier_tokens(identifier: str) -> list[str]:
    """Split `get_userProfile.v2` into `get user profile v 2`, lower-cased."""
    spaced = _CAMEL.sub(" ", _normalise(identifier))
    out: list[str] = []
    for word in _WORD.findall(spaced):
        out.extend(part.lower() for part in re.split(r"(?<=\D)(?=\d)|(?<=\d)(?=\D)", word) if part)
    return out


def text_tokens(text: str) -> list[str]:
    """Lower-cased word tokens of free text, stop-words removed."""
    return [t for t in identifier_tokens(text) if t not in STOP_WORDS]
