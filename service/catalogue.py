"""``GET /v1/rules``: the rules catalogue a front end builds its rules screen and bid box from."""

from __future__ import annotations

import typing
from functools import lru_cache
from typing import Annotated

import msgspec
from litestar import Controller, get
from litestar.params import Parameter

from engine import (
    DECISIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    RULES_VERSION,
    Move,
    OptionsError,
    kitty_size,
    option_catalogue,
    pack_for,
    resolve_options,
    score_table_rows,
    sides,
)
from engine.reasons import Reason
from service.codes import ProblemCode
from service.examples import response_spec
from service.openapi import problem_responses
from service.problems import Problem
from service.schemas import (
    Decision,
    LadderRung,
    MoveTypeInfo,
    OptionInfo,
    OptionOverrides,
    PresetInfo,
    PresetName,
    ProblemCodeInfo,
    ReasonInfo,
    RulesCatalogue,
    ScoreTableRow,
    resolved,
)


def move_types() -> list[MoveTypeInfo]:
    """Every kind of move, from the engine's tagged union itself (tag, fields, docstring)."""
    out = []
    for struct in typing.get_args(Move):
        info = msgspec.inspect.type_info(struct)
        assert isinstance(info, msgspec.inspect.StructType)
        doc = " ".join((struct.__doc__ or "").split())
        out.append(MoveTypeInfo(type=str(info.tag), fields=[f.encode_name for f in info.fields],
                                description=doc))
    return out


@lru_cache(maxsize=32)
def rules_catalogue(players: int, preset: str | None) -> RulesCatalogue:
    """The catalogue for ``players`` and ``preset`` (cached: it is a pure function of them)."""
    try:
        opts = resolve_options(players, preset, {})
    except OptionsError as exc:
        raise Problem(400, "INVALID_OPTIONS", str(exc)) from None
    table = msgspec.convert(score_table_rows(opts), list[ScoreTableRow])  # in ladder order
    return RulesCatalogue(
        rules_version=RULES_VERSION,
        players=players,
        preset=preset,
        resolved_options=resolved(opts),
        options=msgspec.convert(option_catalogue(), list[OptionInfo]),
        presets=[PresetInfo(name=typing.cast("PresetName", name), description=PRESET_DESCRIPTIONS[name],
                            options=msgspec.convert(overrides, OptionOverrides))
                 for name, overrides in PRESETS.items()],
        ladder=[LadderRung(bid=row.bid, rung=row.rung, value=row.value) for row in table],
        score_table=table,
        cards=list(pack_for(opts)),
        kitty_size=kitty_size(opts),
        sides=[list(side) for side in sides(opts)],
        move_types=move_types(),
        decisions=msgspec.convert(DECISIONS, list[Decision]),
        reasons=[ReasonInfo(reason=r, kind=r.kind, meaning=r.meaning) for r in Reason],
        problem_codes=[ProblemCodeInfo(code=c, status=c.status, meaning=c.meaning) for c in ProblemCode],
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
    def rules(self,
              players: Annotated[int, Parameter(ge=2, le=6, description="Number of players, 2 to 6.")] = 4,
              preset: Annotated[PresetName | None, Parameter(description="A preset to apply.")] = None,
              ) -> RulesCatalogue:
        return rules_catalogue(players, preset)
