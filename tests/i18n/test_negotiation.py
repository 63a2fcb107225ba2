"""Accept-Language negotiation (RFC 9110 section 12.5.4, lookup as in RFC 4647 section 3.4) and the lang override."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.i18n.negotiation import SUPPORTED_LANGUAGES, lookup, negotiate, parse_accept_language


@pytest.mark.parametrize(("header", "expected"), [
    # quality values decide, whatever the order
    ("en;q=0.5, hr", "hr"),
    ("th;q=0.2, sq;q=0.9, fil;q=0.8", "sq"),
    ("su;q=1.0, en;q=0.999", "su"),
    ("hr;q=0.500, th;q=0.5", "hr"),  # equal qualities: the first listed
    ("th, hr", "th"),
    # q=0 means "not acceptable"
    ("hr;q=0, th;q=0.1", "th"),
    ("hr;q=0", "en"),
    # lookup: a more specific range falls back to its language; case-insensitive
    ("hr-HR", "hr"), ("HR-hr", "hr"), ("sq-Latn-AL;q=0.9, en;q=0.1", "sq"), ("th-TH-u-nu-thai", "th"),
    ("tl", "fil"), ("fil-PH", "fil"),  # Tagalog's tag names Filipino
    # unknown languages are skipped; nothing acceptable gives English
    ("de-DE, fr;q=0.9", "en"),
    ("de, hr;q=0.1", "hr"),
    ("x-klingon", "en"),
    # the wildcard
    ("*", "en"),
    ("de, *;q=0.5", "en"),
    ("en;q=0, *", "fil"),  # the first supported language not excluded
    ("en;q=0, fil;q=0, *;q=0.3", "su"),
    ("*;q=0.1, th;q=0.5", "th"),
    ("*;q=0", "en"),
    # malformed elements are ignored, the rest counts
    ("hr;q=2, th;q=0.4", "th"),
    ("hr;q=abc, sq", "sq"),
    ("1234, ;;, th", "th"),
    ("", "en"),
    (",,,", "en"),
    ("hr;q=0.1234, su", "su"),  # at most three decimals
    ("  sq ;  q = 0.7 , en;q=0.6 ", "sq"),
])
def test_accept_language(header: str, expected: str) -> None:
    assert negotiate(header) == expected


def test_no_header_is_english() -> None:
    assert negotiate(None) == "en" and negotiate(None, None) == "en"


@pytest.mark.parametrize(("lang", "header", "expected"), [
    ("hr", "th", "hr"), ("SQ", None, "sq"), ("th-TH", "hr", "th"), ("tl", None, "fil"),
    ("de", "su", "su"), ("", "su", "su"), ("zz-ZZ", None, "en"),
])
def test_lang_parameter_overrides_only_with_a_supported_language(lang: str, header: str | None,
                                                                 expected: str) -> None:
    assert negotiate(header, lang) == expected


def test_parse_keeps_order_and_qualities() -> None:
    assert parse_accept_language("da, en-gb;q=0.8, en;q=0.7") == [("da", 1.0), ("en-gb", 0.8), ("en", 0.7)]
    assert parse_accept_language("en;q=1.001, hr;q=1.000") == [("hr", 1.0)]


def test_lookup_never_ends_on_a_singleton() -> None:
    assert lookup("hr-x-private") == "hr" and lookup("x-hr") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_header_gives_a_supported_language(header: str) -> None:
    assert negotiate(header) in SUPPORTED_LANGUAGES
    assert negotiate(header, header) in SUPPORTED_LANGUAGES


def test_a_huge_header_is_cut_not_parsed_in_full() -> None:
    assert negotiate("de, " * 100_000 + "hr") == "en"
