"""Choosing the language of a response: ``Accept-Language`` (RFC 9110 section 12.5.4) and the ``lang`` override.

Decisions, where the RFCs leave a choice to the server:

- Ranges are matched by *lookup* (RFC 4647 section 3.4): a range that names no supported language is
  shortened from the end (``hr-HR`` → ``hr``, ``sq-Latn-AL`` → ``sq-Latn`` → ``sq``) before it is tried.
  Matching is case-insensitive. ``tl`` (Tagalog, the tag many systems send for Filipino) counts as ``fil``.
- The supported language of the highest quality wins; among equal qualities, the one listed first.
- ``*`` stands for every supported language the header does not name; it selects ``en`` unless ``en`` is
  excluded, else the first supported language not excluded. ``q=0`` excludes a range ("not acceptable").
- An element that does not parse (a bad range or quality) is ignored, not an error: the header is advisory.
- When nothing acceptable is supported, the answer is in ``en`` rather than a 406 (RFC 9110 allows either;
  an error body in a language the client did not ask for is more useful than no body).
- ``lang=<tag>`` in the query overrides the header when it names a supported language (by the same lookup);
  an unsupported ``lang`` is ignored and the header decides.

>>> negotiate("fr-CH, fr;q=0.9, hr;q=0.8, *;q=0.5")
'hr'
>>> negotiate("th-TH", lang="sq")
'sq'
>>> negotiate("de, *;q=0.1"), negotiate("en;q=0, *"), negotiate(None)
('en', 'fil', 'en')
"""

from __future__ import annotations

import re
from functools import lru_cache

DEFAULT_LANGUAGE = "en"
#: The languages of the service's texts: English and the five languages the rules were written up in.
SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "fil", "su", "sq", "th", "hr")
#: Tags that name a supported language under another code.
ALIASES = {"tl": "fil"}

_RANGE = re.compile(r"^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$")
_QVALUE = re.compile(r"^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$")
#: Longer headers are cut here: no real client sends more, and parsing stays cheap for any input.
MAX_HEADER_LENGTH = 1024


def lookup(tag: str) -> str | None:
    """The supported language ``tag`` names, shortening it from the end (RFC 4647 lookup), or ``None``.

    >>> lookup("HR-hr"), lookup("tl-PH"), lookup("de"), lookup("fil-Latn-PH")
    ('hr', 'fil', None, 'fil')
    """
    subtags = tag.lower().split("-")
    while subtags:
        candidate = "-".join(subtags)
        candidate = ALIASES.get(candidate, candidate)
        if candidate in SUPPORTED_LANGUAGES:
            return candidate
        subtags.pop()
        while subtags and len(subtags[-1]) == 1:  # never end on a singleton such as "x" (RFC 4647 3.4)
            subtags.pop()
    return None


def parse_accept_language(header: str) -> list[tuple[str, float]]:
    """The header's ``(range, quality)`` pairs in the order given; elements that do not parse are left out.

    >>> parse_accept_language("da, en-GB;q=0.8, en;q=0.7, bad range, *;q=x")
    [('da', 1.0), ('en-GB', 0.8), ('en', 0.7)]
    """
    out: list[tuple[str, float]] = []
    for element in header[:MAX_HEADER_LENGTH].split(","):
        parts = [part.strip() for part in element.split(";")]
        language_range = parts[0]
        if not language_range or not _RANGE.match(language_range):
            continue
        quality: float | None = 1.0
        for param in parts[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                quality = float(value) if _QVALUE.match(value) else None
        if quality is not None:
            out.append((language_range, quality))
    return out


@lru_cache(maxsize=1024)  # clients send the same few headers again and again
def negotiate(accept_language: str | None, lang: str | None = None) -> str:
    """The language to answer in (see the module docstring for the rules)."""
    if lang and (chosen := lookup(lang[:MAX_HEADER_LENGTH])) is not None:
        return chosen
    if not accept_language:
        return DEFAULT_LANGUAGE
    ranges = parse_accept_language(accept_language)
    quality: dict[str, float] = {}  # supported language -> quality of the first range naming it
    order: dict[str, float] = {}
    wildcard: float | None = None
    for position, (language_range, q) in enumerate(ranges):
        if language_range == "*":
            if wildcard is None:
                wildcard = q
            continue
        language = lookup(language_range)
        if language is not None and language not in quality:
            quality[language] = q
            order[language] = position
    if wildcard is not None:
        # "*" matches every supported language the header does not name; the default first.
        position = next(i for i, (r, _) in enumerate(ranges) if r == "*")
        for index, language in enumerate(SUPPORTED_LANGUAGES):
            if language not in quality:
                quality[language] = wildcard
                order[language] = position + index / 100
    acceptable = [language for language, q in quality.items() if q > 0]
    if not acceptable:
        return DEFAULT_LANGUAGE
    return max(acceptable, key=lambda language: (quality[language], -order[language]))


__all__ = ["ALIASES", "DEFAULT_LANGUAGE", "SUPPORTED_LANGUAGES", "lookup", "negotiate", "parse_accept_language"]
