"""Who plays together this hand: the engine's one answer (engine.contract.playing_together), read from the state
by the expert's playouts and from a seat's view by the bots' card play and inference."""

from __future__ import annotations

import pytest

from bots.expert import _teams
from bots.knowledge import team_of
from engine import view
from engine.contract import hand_teams, partners
from engine.rules import MISERE_BIDS, sides
from tests.bots.states import PLAYER_COUNTS, random_states


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_state_and_view_agree_on_who_plays_together(players: int | str) -> None:
    """From the state and from each seat's view, the same teams wherever the view shows the partners."""
    seen = 0
    for opts, state in random_states(players, games=30, seed=5, every=3):
        teams = hand_teams(state)
        assert {s: frozenset(t) for s, t in enumerate(teams)} == _teams(state)
        c = state.contract
        for seat in range(len(teams)):
            assert seat in teams[seat]
            v = view(state, seat)
            if c is not None and v.contract is not None and not v.contract.partners_known:
                continue
            assert team_of(v, seat) == teams[seat], (players, state.phase, seat)
            seen += 1
        if c is None:
            assert set(teams) == {tuple(m) for m in sides(opts)}
        else:
            contracting = {c.contractor, *partners(state)}
            assert c.bid not in MISERE_BIDS or contracting == {c.contractor}
            for seat, team in enumerate(teams):
                assert set(team) == (contracting if seat in contracting else
                                     set(range(len(teams))) - contracting)
    assert seen
