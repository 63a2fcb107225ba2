"""Wording the service's texts in a language: refusals, problems, and the names of cards, suits, bids and moves.

Parameters come as machine values (seat numbers, card/bid/suit tokens, counts, move tags) and are worded here:
numbers with Babel's number formatting for the language, cards, suits, bids, phases and moves by their names in
the language's catalogue, lists with Babel's list patterns. A token the game does not know (an unknown card
named by a client) is quoted as sent. Machine fields (codes, reasons, tokens, option names) are never
translated: only the human sentences around them.

English is worded like every other language, from its catalogue ``en.po`` (the source text for translators,
and what other languages are checked against): a refusal reads "Seat 1 must follow Clubs: play one of 10 of
clubs, 8 of clubs, 7 of clubs, or 5 of clubs.", never the engine's terse ``detail`` (a log line for
developers), and every problem's title is the catalogue's. Other English problem details are the service's own
sentences, which name the exact field, value or limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from babel.lists import format_list
from babel.numbers import format_decimal

from engine.cards import ALL_CARDS, HONOURS, JOKERS, SUITS, rank_of, suit_of
from engine.rules import ALL_BIDS, MISERE_BIDS, bid_level, bid_strain
from service.i18n.catalogues import CATALOGUES, MessageCatalogue
from service.i18n.negotiation import DEFAULT_LANGUAGE

#: How each parameter of a refusal or problem is worded (anything not listed: numbers as numbers, else as is).
PARAM_KINDS: dict[str, str] = {
    "card": "card", "cards": "cards",
    "suit": "suit", "suits": "suits",
    "bid": "bid", "high_bid": "bid",
    "move": "move", "moves": "moves",
    "phase": "phase",
    "versions": "numbers",
}


def catalogue(language: str) -> MessageCatalogue:
    return CATALOGUES.get(language) or CATALOGUES[DEFAULT_LANGUAGE]


def text(language: str, key: str, **params: Any) -> str:
    """The text of ``key`` in ``language`` with ``params`` worded for it (English if the language lacks it)."""
    cat = catalogue(language)
    if not cat.has(key):
        cat = CATALOGUES[DEFAULT_LANGUAGE]
    count = params.get("count")
    template = cat.template(key, count if isinstance(count, int) else None)
    return template.format(**{name: word(cat, name, value) for name, value in params.items()})


def has_text(key: str) -> bool:
    return CATALOGUES[DEFAULT_LANGUAGE].has(key)


# ------------------------------------------------------------------------------------------------ names


def suit_name(cat: MessageCatalogue, suit: str) -> str:
    return cat.template(f"suit.{suit}") if suit in SUITS else repr(suit)


def strain_name(cat: MessageCatalogue, strain: str) -> str:
    return cat.template("strain.NT") if strain == "NT" else suit_name(cat, strain)


def card_name(cat: MessageCatalogue, card: object) -> str:
    """``"QH"`` → ``"queen of hearts"`` (``"dama srce"`` …); an unknown token is quoted as sent."""
    return _card_name(cat, card) if isinstance(card, str) else repr(card)


@lru_cache(maxsize=4096)
def _card_name(cat: MessageCatalogue, card: str) -> str:
    """A card token's words; which tokens are cards, and their rank and suit, are the engine's (engine.cards)."""
    if card not in ALL_CARDS:
        return repr(card)
    if card in JOKERS:
        return cat.template(f"card.{card}")
    rank, suit = rank_of(card), suit_of(card)
    rank_word = cat.template(f"rank.{rank}") if rank in HONOURS else rank
    return cat.template("card.pattern").format(rank=rank_word, suit=cat.template(f"card.suit.{suit}"))


def bid_name(cat: MessageCatalogue, bid: object) -> str:
    """``"7H"`` → ``"7 Hearts"``, ``"OPEN_MISERE"`` → ``"Open Misère"``; an unknown token is quoted as sent."""
    return _bid_name(cat, bid) if isinstance(bid, str) else repr(bid)


@lru_cache(maxsize=4096)
def _bid_name(cat: MessageCatalogue, bid: str) -> str:
    """A bid token's words; which tokens are bids, and their level and strain, are the engine's (engine.rules)."""
    if bid not in ALL_BIDS:
        return repr(bid)
    if bid in MISERE_BIDS:
        return cat.template(f"bid.{bid}")
    return cat.template("bid.pattern").format(level=format_decimal(bid_level(bid), locale=cat.locale),
                                              strain=strain_name(cat, bid_strain(bid)))


def _named(cat: MessageCatalogue, prefix: str, value: object) -> str:
    key = f"{prefix}.{value}"
    return cat.template(key) if isinstance(value, str) and cat.has(key) else str(value)


def word(cat: MessageCatalogue, name: str, value: Any) -> str:
    """One parameter worded for ``cat``'s language."""
    kind = PARAM_KINDS.get(name)
    if kind == "card":
        return card_name(cat, value)
    if kind == "suit":
        return suit_name(cat, value) if isinstance(value, str) else repr(value)
    if kind == "bid":
        return bid_name(cat, value)
    if kind in ("move", "phase"):
        return _named(cat, kind, value)
    if kind == "numbers" and isinstance(value, list | tuple):
        return format_list([word(cat, "", item) for item in value], style="or", locale=cat.locale)
    if kind in ("cards", "suits", "moves") and isinstance(value, list | tuple):
        single = kind[:-1]
        items = [word(cat, single, item) for item in value]
        return format_list(items, style="or", locale=cat.locale) if items else "—"
    if isinstance(value, bool) or value is None:
        return str(value).lower() if isinstance(value, bool) else "null"
    if isinstance(value, int):
        # Babel's decimal context cannot quantize numbers of 28 digits or more (a fuzzed seat number can be).
        return format_decimal(value, locale=cat.locale) if abs(value) < 10**15 else str(value)
    return str(value)


# ------------------------------------------------------------------------------------- refusals, problems


def rejection_key(reason: str, params: Mapping[str, Any]) -> str:
    """The catalogue key of a refusal: ``reason.<REASON>``, or ``reason.<REASON>.<case>`` for a variant."""
    case = params.get("case")
    return f"reason.{reason}.{case}" if isinstance(case, str) else f"reason.{reason}"


def rejection_text(language: str, reason: str, detail: str, params: Mapping[str, Any]) -> str:
    """A refusal's explanation in ``language``, English included (the engine's ``detail`` only for a reason
    without a text)."""
    key = rejection_key(reason, params)
    if not has_text(key):
        return detail
    return text(language, key, **{k: v for k, v in params.items() if k != "case"})


#: Problems whose English detail stays the service's own: a request that does not decode, in the decoder's exact
#: words (``Expected `int` <= 6 - at `$.players```).
EXACT_ENGLISH_KEYS = frozenset({"problem.detail.invalid_field", "problem.detail.invalid_parameter",
                                "problem.MALFORMED_REQUEST.detail",
                                # which of the webhook rules the URL breaks, in the policy's own words
                                "problem.MALFORMED_REQUEST.detail.webhook_url"})


def problem_texts(language: str, code: str, title: str, detail: str,
                 message: tuple[str, Mapping[str, Any]] | None, kind: str | None = None) -> tuple[str, str]:
    """``(title, detail)`` of a problem in ``language``.

    Every language, English included, gets the code's title from its catalogue, and the detail from the
    problem's own message (``message``: a key and its parameters) when it has one. Without one, English keeps
    the problem's own detail, and so it does for a body that does not decode (:data:`EXACT_ENGLISH_KEYS`: the
    decoder's own words name the field and what was expected more exactly); other languages get the code's
    general explanation. A code without texts keeps the English ones. A problem of its own ``kind`` within the
    code has its own title (``problem.type.<kind>.title``).
    """
    title_key = f"problem.{code}.title" if kind is None else f"problem.type.{kind}.title"
    localized_title = text(language, title_key) if has_text(title_key) else title
    if message is not None and has_text(message[0]):
        key, params = message
        if key.startswith("reason."):
            return localized_title, text(language, key, **{k: v for k, v in params.items() if k != "case"})
        if language != DEFAULT_LANGUAGE or key not in EXACT_ENGLISH_KEYS:
            return localized_title, text(language, key, **params)
    if language == DEFAULT_LANGUAGE:
        return localized_title, detail
    detail_key = f"problem.{code}.detail"
    if has_text(detail_key) and "{" not in catalogue(DEFAULT_LANGUAGE).template(detail_key):
        return localized_title, text(language, detail_key)
    return localized_title, detail


__all__ = ["EXACT_ENGLISH_KEYS", "PARAM_KINDS", "bid_name", "card_name", "catalogue", "has_text", "problem_texts",
           "rejection_key", "rejection_text", "strain_name", "suit_name", "text", "word"]
