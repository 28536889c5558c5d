"""British and American spellings of one word index as one term.

A tool written in Britain says "Summarise the organisation's colour palette"; a user in the
United States asks to "summarize" it (and the other way round). The English stemmer keeps the
two apart (`summaris` / `summar`), so both the catalog's words and the request's are mapped to
the American spelling before stemming. The rules are suffix rewrites applied the same way on
both sides: where a rule also rewrites a word that has no other spelling ("advise" ->
"advize"), the catalog and the request still agree, so nothing is lost. Words that differ
otherwise come from a short table.
"""

from __future__ import annotations

import re

__all__ = ["american"]

_WORDS = {
    "aluminium": "aluminum",
    "cheque": "check",
    "cheques": "checks",
    "cosy": "cozy",
    "defence": "defense",
    "grey": "gray",
    "jewellery": "jewelry",
    "licence": "license",
    "licences": "licenses",
    "mould": "mold",
    "offence": "offense",
    "plough": "plow",
    "programme": "program",
    "programmes": "programs",
    "pyjamas": "pajamas",
    "tyre": "tire",
    "tyres": "tires",
}

_SUFFIXES = (
    # organisation, organise, organised, organising, organiser; analyse, analysed
    (re.compile(r"(?<=[a-z]{3})isation(s?)$"), r"ization\1"),
    (re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|er|ers)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{2})ys(e|ed|es|ing|er|ers)$"), r"yz\1"),
    # colour, colours, coloured, favourite, behavioural, honourable
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|ite|ites|al|able|ful|less|er|ers)?$"), r"or\1"),
    # centre, metres, theatre, fibre
    (re.compile(r"(?<=[a-z]{2})(t|b)re(s?)$"), r"\1er\2"),
    # catalogue, dialogues
    (re.compile(r"(?<=[a-z]{3})logue(s?)$"), r"log\1"),
)


def american(word: str) -> str:
    """`word` (lower case) in American spelling, when a rule or the table has it; else `word`."""
    mapped = _WORDS.get(word)
    if mapped is not None:
        return mapped
    for pattern, replacement in _SUFFIXES:
        spelled, count = pattern.subn(replacement, word)
        if count:
            return spelled
    return word
