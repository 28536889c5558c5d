"""Nouns that the stemmer keeps apart from the verb they name: "conversion" / "convert".

Tools are named and described with verbs ("convert_currency", "describe an image") and with
nouns ("currency conversion", "image description"), and requests use either. The English
stemmer folds inflections ("converts", "converted") but not these Latin-root alternations:
`convers` and `convert`, `descript` and `describ`, `analysi` and `analyz` stay different terms.
The table maps each noun (and its plural) to its verb before stemming, on both sides, so the
two forms are one term. Only pairs the stemmer alone keeps apart are listed (a prefix match,
"notif" / "notifi", helps ranking but is too loose to route on), and only
where the noun names the verb's action or result; nouns whose everyday sense drifted from the
verb ("provision", "position", "conversation") are left out.
"""

from __future__ import annotations

__all__ = ["verb_of"]

_NOUN_TO_VERB = {
    "acquisition": "acquire",
    "admission": "admit",
    "analysis": "analyze",
    "analytics": "analyze",
    "application": "apply",
    "assumption": "assume",
    "classification": "classify",
    "collision": "collide",
    "composition": "compose",
    "conclusion": "conclude",
    "consumption": "consume",
    "conversion": "convert",
    "decision": "decide",
    "deduction": "deduce",
    "definition": "define",
    "description": "describe",
    "division": "divide",
    "exclusion": "exclude",
    "expansion": "expand",
    "explanation": "explain",
    "extension": "extend",
    "identification": "identify",
    "inclusion": "include",
    "introduction": "introduce",
    "maintenance": "maintain",
    "modification": "modify",
    "notification": "notify",
    "payment": "pay",
    "permission": "permit",
    "prescription": "prescribe",
    "pronunciation": "pronounce",
    "reception": "receive",
    "reduction": "reduce",
    "registration": "register",
    "retention": "retain",
    "simplification": "simplify",
    "solution": "solve",
    "specification": "specify",
    "submission": "submit",
    "subscription": "subscribe",
    "transcription": "transcribe",
    "transmission": "transmit",
    "verification": "verify",
}
_PLURALS = {"analyses": "analyze"} | {
    noun + "s": verb for noun, verb in _NOUN_TO_VERB.items() if not noun.endswith(("s", "ce"))
}
_VERB_OF = _NOUN_TO_VERB | _PLURALS


def verb_of(word: str) -> str:
    """The verb a noun of the table names ("conversions" -> "convert"); else `word`."""
    return _VERB_OF.get(word, word)
