"""Tokenisation of identifiers and free text, including CJK and emoji."""

from __future__ import annotations

import pytest

from schemarouter.analysis._segment import segment
from schemarouter.analysis._stemming import Stemmer
from schemarouter.analysis._text import identifier_tokens, text_tokens


@pytest.mark.parametrize(
    ("identifier", "tokens"),
    [
        ("get_weather_forecast", ["get", "weather", "forecast"]),
        ("getUserProfile", ["get", "user", "profile"]),
        ("HTTPServerStatus", ["http", "server", "status"]),
        ("files.read_v2", ["files", "read", "v", "2"]),
        ("geo-code-address", ["geo", "code", "address"]),
        ("mp3ToWav", ["mp", "3", "to", "wav"]),
    ],
)
def test_identifier_tokens_split_case_separators_and_digits(identifier: str, tokens: list[str]) -> None:
    assert identifier_tokens(identifier) == tokens


def test_text_tokens_drop_stop_words_and_contraction_fragments() -> None:
    assert text_tokens("Could you please tell me what I'm supposed to do with the weather?") == [
        "tell",
        "supposed",
        "weather",
    ]


def test_chinese_text_becomes_character_bigrams() -> None:
    assert text_tokens("天气预报") == ["天气", "气预", "预报"]
    assert text_tokens("翻译 text") == ["翻译", "text"]


def test_a_lone_cjk_character_is_kept() -> None:
    assert text_tokens("猫") == ["猫"]


def test_emoji_are_tokens_not_noise() -> None:
    assert text_tokens("weather ☀️ today 🌧") == ["weather", "☀", "today", "🌧"]


def test_mixed_scripts_never_crash_and_never_vanish() -> None:
    tokens = text_tokens("Привет мир — café naïve 東京タワー 🚀")
    assert "привет" in tokens
    assert "café" in tokens
    assert "🚀" in tokens
    assert any("東" in t for t in tokens)


def test_stemming_folds_plurals_and_leaves_other_scripts_alone() -> None:
    stemmer = Stemmer()
    assert stemmer.stem("forecasts") == stemmer.stem("forecasting") == "forecast"
    assert stemmer.stem("天气") == "天气"
    assert stemmer.stem("v2") == "v2"


def test_run_together_names_are_split_into_known_words() -> None:
    vocabulary = {"air", "quality", "forecast", "car", "park"}
    assert segment("airqualityforecast", vocabulary) == ("air", "quality", "forecast")
    assert segment("carpark", vocabulary) == ("car", "park")
    assert segment("zzqxv", vocabulary) == ()
