"""Properties of any stream of orders, legal or not, on the Game aggregate (Hypothesis)."""

from __future__ import annotations

import hashlib

from hypothesis import HealthCheck, given, settings, strategies as st

from domain.errors import WarlogError
from domain.game import Game
from domain.verify import to_line, verify

SIDES = ["Blue", "Red"]


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(b"prop-%d" % epoch).digest()


orders = st.one_of(
    st.fixed_dictionaries({"kind": st.just("roll"),
                           "dice": st.sampled_from(["d6", "2d6", "d10", "d66", "3d20", "0d6", "d1", "x"]),
                           "purpose": st.sampled_from(["fire", "", "morale"])}),
    st.fixed_dictionaries({"kind": st.just("vp"), "side": st.sampled_from(SIDES + ["Green"]),
                           "delta": st.integers(-3, 3), "reason": st.just("r")}),
    st.just({"kind": "advance"}),
    st.fixed_dictionaries({"kind": st.just("note"), "text": st.text(max_size=20)}),
    st.fixed_dictionaries({"kind": st.just("end"), "winner": st.sampled_from(SIDES + [None]),
                           "reason": st.just("done")}),
    st.fixed_dictionaries({"kind": st.sampled_from(["castle", None, 3])}),
)
steps = st.lists(st.tuples(st.sampled_from(["order", "take_back", "accept", "decline", "concede"]),
                           st.sampled_from(SIDES), orders, st.integers(0, 5)), max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_any_order_stream_keeps_the_log_sound(stream):
    game = Game.create("freeform", options={"sides": SIDES, "phases": ["A", "B"], "last_turn": 4}, seed_for=seed_for)
    for side in SIDES:
        game.join(side, side, "", seed_for)
    for kind, seat, order, oid in stream:
        before = (game.version, game.chain_head)
        try:
            if kind == "order":
                game.submit(seat, f"o{oid}", order, seed_for)
            elif kind == "take_back":
                game.request_take_back(seat)
            elif kind in ("accept", "decline"):
                game.answer_take_back(seat, kind == "accept")
            else:
                game.concede(seat, seed_for)
        except WarlogError:
            # A refused command records nothing.
            assert (game.version, game.chain_head) == before
    events = list(game.pending_events)
    assert [e.originator_version for e in events] == list(range(1, game.version + 1))
    report = verify([to_line(e) for e in events])
    assert report.ok, report.summary()
    rebuilt = None
    for event in events:
        rebuilt = event.mutate(rebuilt)
    for attr in ("state", "dice", "orders", "seats", "chain_head", "take_back", "last_order", "ended"):
        assert getattr(rebuilt, attr) == getattr(game, attr), attr
