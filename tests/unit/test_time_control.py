"""Time control (issue 35, "Time"; domain/clock.py TC 1-5): deadlines, reminders, vacations,
timeouts, claims and passes, each an event of the log. The clock is a fixed ``now`` passed in,
never a sleep."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st

from domain import clock as clocks
from domain import events as ev
from domain.errors import InvalidOrder, InvalidSetup, RuleViolation
from domain.game import Game
from domain.rulesets import Ruleset, Setup, core, register
from workers.clock import due as sweep_due

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"time-{epoch}".encode()).digest()


class Turns(Ruleset):
    """TT 1 White and Black move in turn, one "move" each; TT 2 "end" ends the game. No pass."""

    name = "toy_turns"
    prefix = "TT"
    sequence_rule = "TT 1"
    end_rule = "TT 2"

    def setup(self, scenario, options):
        return Setup(seats=["White", "Black"], state={**core.base_state(["White", "Black"], ["Move"]),
                                                      "active": ["White"]})

    def legal_orders(self, state, seat):
        return [{"kind": "move"}]

    def decide(self, state, seat, order, dice):
        if order.get("kind") != "move":
            raise InvalidOrder("a move", rule="TT 1")
        return []

    def evolve(self, state, event):
        state = core.evolve(state, event)
        if isinstance(event, ev.OrderAccepted):
            state = {**state, "active": ["Black" if event.seat == "White" else "White"]}
        return state


register(Turns())


def started(ruleset="toy_turns", now=T0, phases=("Turn",), **control) -> Game:
    """A game with a time control, every seat joined at ``now`` (the service's keep_time run)."""
    options = {"sides": ["Blue", "Red"], "phases": list(phases)} if ruleset == "freeform" else None
    game = Game.create(ruleset, options=options, seed_for=seed_for, time_control={"days": 3, **control})
    for seat, handle in zip(game.human_seats(), ("ann", "bob")):
        game.join(seat, handle, "", seed_for)
    game.keep_time(now)
    return game


def types(game: Game, since: int) -> list[str]:
    return [type(e).__name__ for e in game.pending_events if e.originator_version > since]


def test_tc_the_time_control_is_recorded_right_after_the_creation_and_checked():
    game = Game.create("toy_turns", seed_for=seed_for, time_control={"days": 2, "vacation_days": 7})
    assert types(game, 0)[:2] == ["GameCreated", "TimeControlSet"]
    assert game.clock["control"] == {"days": 2, "per": "move", "reminders": [24], "vacation_days": 7,
                                     "on_timeout": "claim", "rule": "time"}
    for bad, word in [({"days": 0}, "days"), ({"days": 3, "per": "week"}, "per"),
                      ({"days": 1, "reminders": [24]}, "reminders"), ({"days": 3, "vacation_days": -1}, "vacation"),
                      ({"days": 3, "on_timeout": "resign"}, "on_timeout"), ({"days": 3, "speed": 1}, "speed"),
                      ({"days": 3, "on_timeout": "pass"}, "defines no pass")]:
        with pytest.raises(InvalidSetup, match=word):
            Game.create("toy_turns", seed_for=seed_for, time_control=bad)


def test_tc1_the_clock_starts_when_the_last_seat_joins_and_again_for_each_seat_to_move():
    game = started()
    assert game.clock["seats"] == ["White"]
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=3))
    seq = game.version
    game.submit("White", "w-1", {"kind": "move"}, seed_for)
    game.keep_time(T0 + timedelta(hours=5))
    assert types(game, seq)[-1] == "DeadlineSet"
    assert game.clock["seats"] == ["Black"]
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=3, hours=5))


def test_tc1_per_move_each_order_restarts_the_clock_per_turn_a_new_seat_to_move_or_turn():
    moves = started("freeform")  # every side may act at any time (FF 2): the seats to move never change
    turns = started("freeform", per="turn")
    for game in (moves, turns):
        game.submit("Blue", "n-1", {"kind": "note", "text": "x"}, seed_for)
        game.keep_time(T0 + timedelta(days=1))
    assert moves.clock["deadline"] == clocks.stamp(T0 + timedelta(days=4))
    assert turns.clock["deadline"] == clocks.stamp(T0 + timedelta(days=3))
    turns.submit("Red", "a-1", {"kind": "advance"}, seed_for)  # the one phase: the next turn
    turns.keep_time(T0 + timedelta(days=2))
    assert turns.clock["deadline"] == clocks.stamp(T0 + timedelta(days=5))


def test_tc4_a_pass_per_turn_starts_the_clock_again_so_the_next_sweep_passes_nothing():
    game = started("freeform", per="turn", on_timeout="pass", phases=("Move", "Fight"))
    seq = game.version
    game.sweep(T0 + timedelta(days=3, minutes=1), seed_for)
    game.keep_time(T0 + timedelta(days=3, minutes=1))
    game.sweep(T0 + timedelta(days=3, minutes=2), seed_for)
    assert types(game, seq).count("TimedOut") == 1 and "TurnAdvanced" not in types(game, seq)
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=6, minutes=1))


def test_tc2_a_reminder_is_recorded_once_when_it_is_due():
    game = started(reminders=[24, 2])
    seq = game.version
    game.sweep(T0 + timedelta(days=1), seed_for)
    assert types(game, seq) == []  # two days left: nothing due
    game.sweep(T0 + timedelta(days=2, hours=1), seed_for)
    game.sweep(T0 + timedelta(days=2, hours=2), seed_for)
    assert types(game, seq) == ["DeadlineReminder"]
    assert game.pending_events[-1].hours == 24 and game.pending_events[-1].seats == ["White"]
    game.sweep(T0 + timedelta(days=2, hours=23), seed_for)
    assert types(game, seq) == ["DeadlineReminder", "DeadlineReminder"]
    assert game.pending_events[-1].hours == 2


def test_tc3_a_vacation_is_bounded_moves_the_deadline_on_and_is_public():
    game = started(vacation_days=5)
    seq = game.version
    game.take_vacation("White", 3, T0 + timedelta(days=1))
    assert types(game, seq) == ["VacationTaken", "DeadlineExtended"]
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=6))
    assert clocks.vacation_left(game.clock, "White") == 2
    with pytest.raises(RuleViolation, match="2 of its 5 vacation days left, not 3"):
        game.take_vacation("White", 3, T0 + timedelta(days=1))
    with pytest.raises(InvalidOrder):
        game.take_vacation("White", 0, T0)
    game.take_vacation("Black", 2, T0 + timedelta(days=1))  # Black is not to move: no extension
    assert types(game, seq)[-1] == "VacationTaken"
    # White moves while Black is away: Black's clock runs from the end of its vacation
    game.submit("White", "w-1", {"kind": "move"}, seed_for)
    game.keep_time(T0 + timedelta(days=1, hours=1))
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=6))
    assert clocks.status(game.clock, T0)["vacations"]["Black"] == {
        "used": 2, "until": clocks.stamp(T0 + timedelta(days=3)), "left": 3}


def test_tc3_no_vacation_without_an_allowance_or_after_the_deadline():
    with pytest.raises(RuleViolation, match="0 of its 0"):
        started().take_vacation("White", 1, T0)
    with pytest.raises(RuleViolation, match="has passed"):
        started(vacation_days=5).take_vacation("White", 1, T0 + timedelta(days=4))
    with pytest.raises(RuleViolation, match="no time control"):
        game = Game.create("toy_turns", seed_for=seed_for)
        game.join("White", "a", "", seed_for)
        game.take_vacation("White", 1, T0)


def test_tc4_a_claim_is_refused_before_the_deadline_and_accepted_after():
    game = started()
    with pytest.raises(RuleViolation, match="until .*claimed only after it"):
        game.claim_win("Black", T0 + timedelta(days=2, hours=23), seed_for)
    with pytest.raises(RuleViolation, match="only another seat"):
        game.claim_win("White", T0 + timedelta(days=4), seed_for)
    seq = game.version
    game.claim_win("Black", T0 + timedelta(days=3, seconds=1), seed_for)
    assert types(game, seq)[:3] == ["TimedOut", "WinClaimed", "GameEnded"]
    assert game.ended["winner"] == "Black" and game.ended["level"] == "timeout"


def test_tc4_the_sweep_flags_a_late_seat_and_a_late_move_lifts_the_flag():
    game = started()
    seq = game.version
    game.sweep(T0 + timedelta(days=3, minutes=1), seed_for)
    assert types(game, seq) == ["TimedOut"]
    game.sweep(T0 + timedelta(days=3, minutes=2), seed_for)
    assert types(game, seq) == ["TimedOut"]  # once
    game.submit("White", "w-1", {"kind": "move"}, seed_for)  # late, but before any claim
    game.keep_time(T0 + timedelta(days=3, minutes=3))
    assert game.clock["seats"] == ["Black"] and not game.clock["timed_out"]
    with pytest.raises(RuleViolation, match="claimed only after"):
        game.claim_win("White", T0 + timedelta(days=3, minutes=3), seed_for)


def test_tc4_FF_2_with_pass_the_server_gives_freeforms_pass_an_advance_for_the_late_seat():
    game = started("freeform", on_timeout="pass")
    turn = game.state["turn"]
    seq = game.version
    game.sweep(T0 + timedelta(days=3, minutes=1), seed_for)
    assert types(game, seq)[:2] == ["TimedOut", "OrderAccepted"]
    passed = next(e for e in game.pending_events if isinstance(e, ev.OrderAccepted) and e.originator_version > seq)
    assert passed.order == {"kind": "advance"} and passed.order_id.startswith("timeout:")
    assert game.state["turn"] == turn + 1  # the one phase advanced: the next turn
    game.keep_time(T0 + timedelta(days=3, minutes=1))
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=6, minutes=1))
    with pytest.raises(InvalidOrder, match="server's"):
        game.submit("Blue", "timeout:99", {"kind": "note", "text": "x"}, seed_for)


def test_tc_the_clock_stops_when_the_game_ends():
    game = started()
    game.concede("White", seed_for)
    seq = game.version
    game.keep_time(T0 + timedelta(days=10))
    game.sweep(T0 + timedelta(days=10), seed_for)
    assert types(game, seq) == [] and game.clock["deadline"] is None


def test_tc5_an_extension_is_given_by_a_seat_not_to_move_and_lifts_the_flag():
    game = started()
    with pytest.raises(RuleViolation, match="to move itself"):
        game.grant_extension("White", 1, T0)
    with pytest.raises(InvalidOrder):
        game.grant_extension("Black", 0, T0)
    seq = game.version
    game.grant_extension("Black", 2, T0 + timedelta(days=1))
    assert types(game, seq) == ["ExtensionGranted", "DeadlineExtended"]
    assert game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=5))
    game.sweep(T0 + timedelta(days=5, hours=1), seed_for)
    assert game.clock["timed_out"]
    game.grant_extension("Black", 1, T0 + timedelta(days=5, hours=1))  # from now: the flag is lifted
    assert not game.clock["timed_out"] and game.clock["deadline"] == clocks.stamp(T0 + timedelta(days=6, hours=1))
    with pytest.raises(RuleViolation, match="claimed only after"):
        game.claim_win("Black", T0 + timedelta(days=5, hours=2), seed_for)


# ==================================================== when the sweep next has work (next_due) ====
def test_next_due_is_the_earliest_reminder_not_sent_then_the_deadline_and_none_once_flagged_or_ended():
    game = started(reminders=[24, 2], vacation_days=5)
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=2))  # 24 h before the deadline
    game.sweep(T0 + timedelta(days=2, hours=1), seed_for)
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=2, hours=22))  # the 2 h one
    game.take_vacation("White", 1, T0 + timedelta(days=2, hours=2))  # TC 3: the deadline moves on a day
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=3))  # its reminders come again
    game.sweep(T0 + timedelta(days=3, hours=23), seed_for)
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=4))  # both sent: the deadline
    game.sweep(T0 + timedelta(days=4, seconds=1), seed_for)
    assert game.clock["timed_out"] and clocks.next_due(game.clock) is None  # flagged: a claim comes next
    game.grant_extension("Black", 1, T0 + timedelta(days=4, hours=1))  # TC 5: from now, the flag lifted
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=4, hours=1))  # the 24 h one at once
    game.submit("White", "w-1", {"kind": "move"}, seed_for)
    game.keep_time(T0 + timedelta(days=4, hours=2))  # TC 1: Black's clock, a new deadline
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=6, hours=2))
    game.concede("Black", seed_for)
    assert clocks.next_due(game.clock) is None  # ended
    assert clocks.next_due(None) is None and clocks.next_due(Game.create("toy_turns", seed_for=seed_for).clock) is None
    assert clocks.next_due(Game.create("toy_turns", seed_for=seed_for, time_control={"days": 3}).clock) is None


def test_next_due_per_turn_and_a_pass_on_timeout_follow_the_clock_the_game_keeps():
    game = started("freeform", per="turn", on_timeout="pass", reminders=[])
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=3))
    game.submit("Blue", "n-1", {"kind": "note", "text": "x"}, seed_for)
    game.keep_time(T0 + timedelta(days=1))  # per turn: an order does not start the clock again
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=3))
    game.sweep(T0 + timedelta(days=3, minutes=1), seed_for)  # TC 4: the server's pass, the next turn
    game.keep_time(T0 + timedelta(days=3, minutes=1))
    assert clocks.next_due(game.clock) == clocks.stamp(T0 + timedelta(days=6, minutes=1))


CLOCK_EVENTS = ("DeadlineSet", "DeadlineExtended", "DeadlineReminder", "TimedOut", "VacationTaken",
                "OrderAccepted", "TimeoutPass", "TurnAdvanced", "GameEnded")


@st.composite
def clocks_at(draw):
    """A clock folded from a random run of the clock's events (clock.apply, as the game and the map
    view fold it), and instants around each moment that matters to it."""
    days = draw(st.integers(1, 4))
    reminders = draw(st.lists(st.integers(1, days * 24 - 1), max_size=clocks.MAX_REMINDERS, unique=True)) \
        if days > 1 else []
    control = {"days": days, "per": draw(st.sampled_from(clocks.PER)), "reminders": sorted(reminders, reverse=True),
               "vacation_days": 5, "on_timeout": draw(st.sampled_from(clocks.ON_TIMEOUT)), "rule": clocks.RULE}
    clock = clocks.apply(None, "TimeControlSet", control, 2)
    moments = [T0]
    for seq in range(3, 3 + draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(CLOCK_EVENTS))
        at = T0 + timedelta(minutes=draw(st.integers(0, 6 * 24 * 60)))
        data: dict = {"seat": draw(st.sampled_from(["White", "Black"]))}
        if kind in ("DeadlineSet", "DeadlineExtended"):
            data.update(seats=[data["seat"]], deadline=clocks.stamp(at))
        elif kind == "DeadlineReminder":
            if not control["reminders"]:
                continue
            data["hours"] = draw(st.sampled_from(control["reminders"]))
        elif kind == "VacationTaken":
            data.update(used=1, until=clocks.stamp(at))
        elif kind in ("OrderAccepted", "TimeoutPass"):
            kind, data["order_id"] = "OrderAccepted", ("timeout:9" if kind == "TimeoutPass" else "o-1")
        clock = clocks.apply(clock, kind, data, seq)
        moments.append(at)
    if clock["deadline"] is not None:
        deadline = clocks.parse(clock["deadline"])
        moments += [deadline - timedelta(hours=h) for h in control["reminders"]] + [deadline]
    found = clocks.next_due(clock)
    if found is not None:
        moments.append(clocks.parse(found))
    offset = draw(st.sampled_from([timedelta(0), timedelta(seconds=-1), timedelta(seconds=1),
                                   timedelta(microseconds=-1), timedelta(microseconds=500_000)]))
    return clock, draw(st.sampled_from(moments)) + offset


@given(clocks_at())
@settings(max_examples=400, deadline=None)
def test_something_is_due_exactly_when_next_due_is_at_or_before_now(case):
    """The games index's ``next_due`` (text, compared in SQL with the sweep's ``stamp(now)``) and the
    sweep's ``due`` (the game's own reminder_due / timed_out) never disagree."""
    clock, now = case
    found = clocks.next_due(clock)
    due = clocks.timed_out(clock, now) or clocks.reminder_due(clock, now) is not None
    assert due == (found is not None and found <= clocks.stamp(now))
    assert due == (found is not None and clocks.parse(found) <= now)
    assert sweep_due({"clock": clock}, now) == due


class TurnsWithPass(Turns):
    """As toy_turns, and TT 3: a late seat's pass is a move."""

    name = "toy_turns_pass"
    pass_rule = "TT 3"

    def timeout_pass(self, state, seat):
        return {"kind": "move"}


register(TurnsWithPass())


def test_tc4_with_pass_a_claim_is_refused_saying_the_server_gives_the_pass_and_records_nothing():
    game = started("toy_turns_pass", on_timeout="pass")
    seq = game.version
    with pytest.raises(RuleViolation, match="the server gives the late seat's pass, at its next sweep") as refused:
        game.claim_win("Black", T0 + timedelta(days=3, seconds=1), seed_for)
    assert refused.value.rule == clocks.RULE
    game = started("toy_turns_pass", on_timeout="pass")  # the refused claim's events are never saved
    game.sweep(T0 + timedelta(days=3, seconds=2), seed_for)
    assert types(game, seq)[:2] == ["TimedOut", "OrderAccepted"] and not game.is_ended
    assert game.state["active"] == ["Black"]
