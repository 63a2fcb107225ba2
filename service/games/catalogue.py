"""``GET /v1/rules``: the rules catalogue a front end builds its rules screen and bid box from."""

from __future__ import annotations

import typing
from functools import lru_cache
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get
from litestar.params import Parameter

from engine import (
    DECISIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    RULES_VERSION,
    Move,
    kitty_size,
    option_catalogue,
    pack_for,
    resolve_options,
    score_table_rows,
    sides,
)
from engine.model import Phase
from engine.reasons import Reason
from service.games.schemas import (
    CatalogueNames,
    Decision,
    LadderRung,
    LanguageInfo,
    MoveTypeInfo,
    OptionInfo,
    PresetInfo,
    ProblemCodeInfo,
    ReasonInfo,
    RulesCatalogue,
    ScoreTableRow,
)
from service.i18n import SUPPORTED_LANGUAGES, request_language, text
from service.i18n.catalogues import CATALOGUES
from service.i18n.texts import bid_name, card_name, catalogue, suit_name
from service.referee.errors import engine_errors
from service.referee.schemas import OptionOverrides, PresetName, resolved
from service.web.codes import ProblemCode
from service.web.openapi import problem_responses, response_spec


def move_types(language: str = "en") -> list[MoveTypeInfo]:
    """Every kind of move, from the engine's tagged union itself (tag, fields, docstring, or its translation)."""
    out = []
    for struct in typing.get_args(Move):
        info = msgspec.inspect.type_info(struct)
        assert isinstance(info, msgspec.inspect.StructType)
        doc = " ".join((struct.__doc__ or "").split())
        if language != "en":
            doc = text(language, f"move.{info.tag}.description")
        out.append(MoveTypeInfo(type=str(info.tag), fields=[f.encode_name for f in info.fields],
                                description=doc))
    return out


def languages() -> list[LanguageInfo]:
    """The languages of the service's texts, each named in itself and in English (Babel's CLDR names)."""
    out = []
    for tag in SUPPORTED_LANGUAGES:
        locale = CATALOGUES[tag].locale
        out.append(LanguageInfo(tag=tag, name=locale.get_display_name(locale) or tag,
                                english_name=locale.get_display_name("en") or tag))
    return out


def _move_tags() -> list[str]:
    return [str(getattr(msgspec.inspect.type_info(struct), "tag", "")) for struct in typing.get_args(Move)]


def names(language: str, cards: list[str], bids: list[str]) -> CatalogueNames:
    cat = catalogue(language)
    return CatalogueNames(
        suits={suit: suit_name(cat, suit) for suit in ("S", "C", "D", "H")} | {"NT": cat.template("strain.NT")},
        cards={card: card_name(cat, card) for card in cards},
        bids={bid: bid_name(cat, bid) for bid in bids},
        phases={phase: cat.template(f"phase.{phase}") for phase in typing.get_args(Phase)},
        moves={tag: cat.template(f"move.{tag}") for tag in _move_tags()},
        terms={key.removeprefix("term."): cat.template(key) for key in sorted(CATALOGUES["en"].keys)
               if key.startswith("term.")},
    )


@lru_cache(maxsize=128)
def rules_catalogue(players: int, preset: str | None, language: str = "en") -> RulesCatalogue:
    """The catalogue for ``players`` and ``preset`` in ``language`` (cached: a pure function of them)."""
    with engine_errors():
        opts = resolve_options(players, preset, {})
    table = msgspec.convert(score_table_rows(opts), list[ScoreTableRow])  # in ladder order
    options = msgspec.convert(option_catalogue(), list[OptionInfo])
    if language != "en":
        options = [msgspec.structs.replace(o, description=text(language, f"option.{o.name}")) for o in options]
    cards = list(pack_for(opts))
    return RulesCatalogue(
        rules_version=RULES_VERSION,
        players=players,
        preset=preset,
        resolved_options=resolved(opts),
        options=options,
        presets=[PresetInfo(name=typing.cast("PresetName", name), options=msgspec.convert(overrides, OptionOverrides),
                            description=PRESET_DESCRIPTIONS[name] if language == "en"
                            else text(language, f"preset.{name}"))
                 for name, overrides in PRESETS.items()],
        ladder=[LadderRung(bid=row.bid, rung=row.rung, value=row.value) for row in table],
        score_table=table,
        cards=cards,
        kitty_size=kitty_size(opts),
        sides=[list(side) for side in sides(opts)],
        move_types=move_types(language),
        decisions=msgspec.convert(DECISIONS, list[Decision]),
        reasons=[ReasonInfo(reason=r, kind=r.kind, meaning=r.meaning) for r in Reason],
        problem_codes=[ProblemCodeInfo(code=c, status=c.status, meaning=c.meaning) for c in ProblemCode],
        language=language,
        languages=languages(),
        names=names(language, cards, [row.bid for row in table]),
    )


def _example() -> tuple[str, object]:
    return ("Four players, Australian rules", msgspec.to_builtins(rules_catalogue(4, None)))


class RulesController(Controller):
    path = "/v1/rules"
    tags = ["rules"]

    @get("", operation_id="getRules", summary="The rules catalogue", sync_to_thread=False,
         description="Every option (type, default, allowed values, meaning), the presets, and for the "
         "given player count and preset: the bid ladder, the score table, the pack's card tokens, the sides "
         "and the move types; and every reason a move may be refused for and every problem code, each with "
         "its meaning.",
         responses={200: response_spec(RulesCatalogue, "The catalogue.", _example()),
                    **problem_responses("MALFORMED_REQUEST")})
    def rules(self, request: Request[Any, Any, Any],
              players: Annotated[int, Parameter(ge=2, le=6, description="Number of players, 2 to 6.")] = 4,
              preset: Annotated[PresetName | None, Parameter(description="A preset to apply.")] = None,
              ) -> RulesCatalogue:
        return rules_catalogue(players, preset, request_language(request.scope))
