"""A Hypothesis state machine over the Game aggregate (domain/game.py): random freeform orders,
legal or not, repeated order ids, take-backs and their answers, client seed changes and
concessions, in any order. After every step:

- the chain verifies (domain/verify.py: links, hashes, the dice of every revealed epoch);
- versions are gapless, 1..version;
- no roll is recorded outside an open dice epoch, and each open epoch is revealed at most once;
- a refused command recorded nothing and changed nothing;
- an order id seen before records nothing and returns its first events; with another body it is
  refused.
At the end the events, replayed from nothing, rebuild the same aggregate.
"""

from __future__ import annotations

import copy
import hashlib

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from domain.errors import IdempotencyConflict, WarlogError
from domain.game import Game
from domain.verify import to_line, verify

SIDES = ["Blue", "Red", "Green"]
SEATS = SIDES + ["Nobody"]  # a seat the game does not have


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(b"machine-%d" % epoch).digest()


texts = st.text(alphabet="abc xyz", max_size=12)
orders = st.one_of(
    st.fixed_dictionaries({"kind": st.just("roll"),
                           "dice": st.sampled_from(["d6", "2d6", "d10", "d66", "3d20", "0d6", "d1", "x", 6]),
                           "purpose": st.sampled_from(["fire", "", "morale", None])},
                          optional={"target": st.sampled_from([{"compare": ">=", "value": 7}, {"compare": "?"}, 3]),
                                    "replaces": st.integers(0, 40), "units": st.sampled_from([["3 Bde"], "x"])}),
    st.fixed_dictionaries({"kind": st.just("vp"), "side": st.sampled_from(SIDES + ["Nobody"]),
                           "delta": st.integers(-3, 3), "reason": texts}),
    st.just({"kind": "advance"}),
    st.fixed_dictionaries({"kind": st.just("note"), "text": texts},
                          optional={"private": st.sampled_from([True, False, "yes"])}),
    st.fixed_dictionaries({"kind": st.just("end"), "winner": st.sampled_from(SIDES + [None, "Nobody"]),
                           "reason": texts}),
    st.fixed_dictionaries({"kind": st.sampled_from(["castle", None, 3])}),
)
# Orders the rules accept (mostly): drawn more often than the above, so games get long.
good_orders = st.one_of(
    st.fixed_dictionaries({"kind": st.just("roll"), "dice": st.sampled_from(["d6", "2d6", "d10", "d66", "3d20"]),
                           "purpose": st.sampled_from(["fire", "morale", "weather"])},
                          optional={"target": st.sampled_from([{"compare": ">=", "value": 7},
                                                                {"compare": "<", "value": 3, "modifiers": []}])}),
    st.fixed_dictionaries({"kind": st.just("vp"), "side": st.sampled_from(SIDES),
                           "delta": st.sampled_from([-2, 1, 3]), "reason": st.just("town")}),
    st.just({"kind": "advance"}),
    st.fixed_dictionaries({"kind": st.just("note"), "text": st.just("dug in"), "private": st.booleans()}),
)
order_ids = st.sampled_from([f"o{n}" for n in range(12)])

SNAPSHOT = ("version", "chain_head", "state", "dice", "orders", "seats", "take_back", "last_order", "ended")


class GameMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game = Game.create("freeform", options={"sides": SIDES, "phases": ["Move", "Fight"], "last_turn": 3},
                                seed_for=seed_for)
        for side in SIDES:
            self.game.join(side, side.lower(), f"cs-{side}", seed_for)
        self.sent: dict[str, tuple[str, dict, tuple[int, int]]] = {}  # order id -> (seat, order, seqs)
        self.refused = self.accepted = 0

    # ------------------------------------------------------------------------------ helpers --
    def _snapshot(self) -> dict:
        return {name: copy.deepcopy(getattr(self.game, name)) for name in SNAPSHOT} | {
            "events": len(self.game.pending_events)}

    def _attempt(self, command) -> bool:
        """Run a command; a refused one must leave the aggregate exactly as it was."""
        before = self._snapshot()
        try:
            command()
        except WarlogError:
            assert self._snapshot() == before, "a refused command changed the game"
            self.refused += 1
            return False
        self.accepted += 1
        return True

    # -------------------------------------------------------------------------------- rules --
    @rule(seat=st.sampled_from(SEATS), order=orders, order_id=order_ids)
    def submit(self, seat, order, order_id):
        known = self.sent.get(order_id)
        before = self.game.version
        result = []
        if self._attempt(lambda: result.append(self.game.submit(seat, order_id, order, seed_for))):
            first, last = result[0]
            if known is not None:  # a replay: the first result, nothing new
                assert (seat, order) == known[:2] and (first, last) == known[2]
                assert self.game.version == before
            else:
                assert first == before + 1 and last == self.game.version
                accepted = self.game.pending_events[first - 1]
                assert type(accepted).__name__ == "OrderAccepted" and accepted.order_id == order_id
                self.sent[order_id] = (seat, copy.deepcopy(order), (first, last))

    @rule(seat=st.sampled_from(SIDES), order=good_orders, n=st.integers(0, 10_000))
    def submit_a_good_order(self, seat, order, n):
        self.submit(seat, order, f"g{n}")

    @rule(seat=st.sampled_from(SIDES), order=good_orders, n=st.integers(0, 10_000))
    def submit_another_good_order(self, seat, order, n):
        self.submit(seat, order, f"h{n}")

    @precondition(lambda self: self.sent)
    @rule(data=st.data())
    def resend_a_known_order(self, data):
        order_id = data.draw(st.sampled_from(sorted(self.sent)))
        seat, order, seqs = self.sent[order_id]
        version = self.game.version
        assert self.game.submit(seat, order_id, copy.deepcopy(order), seed_for) == seqs
        assert self.game.version == version
        other = {**order, "kind": "note", "text": "something else"} if order.get("text") != "something else" \
            else {"kind": "advance"}
        before = self._snapshot()
        try:
            self.game.submit(seat, order_id, other, seed_for)
            raise AssertionError("the same order id with another body was accepted")
        except IdempotencyConflict:
            assert self._snapshot() == before

    @rule(data=st.data(), reason=texts)
    def request_take_back(self, data, reason):
        last = self.game.last_order
        likely = [last["seat"]] * 3 if last else []  # mostly the seat that may ask
        seat = data.draw(st.sampled_from(SEATS + likely))
        self._attempt(lambda: self.game.request_take_back(seat, reason))

    @rule(data=st.data(), accept=st.booleans())
    def answer_take_back(self, data, accept):
        waiting = self.game.take_back
        likely = [s for s in SIDES if waiting and s != waiting["seat"]] * 2  # mostly one who may answer
        seat = data.draw(st.sampled_from(SEATS + likely))
        self._attempt(lambda: self.game.answer_take_back(seat, accept))

    @rule(seat=st.sampled_from(SEATS), client_seed=st.one_of(texts, st.just(None), st.just("x" * 201)))
    def change_client_seed(self, seat, client_seed):
        self._attempt(lambda: self.game.change_client_seed(seat, client_seed))

    @rule(seat=st.sampled_from(SEATS), now=st.integers(0, 7))
    def concede(self, seat, now):
        if now == 0:  # rarely: a concession ends the game
            self._attempt(lambda: self.game.concede(seat, seed_for))

    # --------------------------------------------------------------------------- invariants --
    @invariant()
    def versions_are_gapless(self):
        versions = [e.originator_version for e in self.game.pending_events]
        assert versions == list(range(1, self.game.version + 1))

    @invariant()
    def the_chain_verifies(self):
        lines = [to_line(e) for e in self.game.pending_events]
        report = verify(lines)
        assert report.ok, report.summary()
        assert report.chain_head == self.game.chain_head

    @invariant()
    def every_roll_is_in_the_open_epoch(self):
        open_epoch, revealed = None, set()
        for event in self.game.pending_events:
            kind = type(event).__name__
            if kind == "DiceEpochOpened":
                assert open_epoch is None and event.epoch not in revealed
                open_epoch = event.epoch
            elif kind == "DiceEpochRevealed":
                assert event.epoch == open_epoch and event.epoch not in revealed
                revealed.add(event.epoch)
                open_epoch = None
            elif kind == "DiceRolled":
                assert event.epoch == open_epoch, f"a roll in epoch {event.epoch}, open: {open_epoch}"
        if self.game.is_ended:
            assert open_epoch is None, "an ended game keeps no epoch open"

    def teardown(self):
        rebuilt = None
        for event in self.game.pending_events:
            rebuilt = event.mutate(rebuilt)
        for name in SNAPSHOT:
            assert getattr(rebuilt, name) == getattr(self.game, name), name


GameMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=40, deadline=None,
                                         derandomize=True, database=None,
                                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_any_sequence_of_commands_keeps_the_game_sound = GameMachine.TestCase
