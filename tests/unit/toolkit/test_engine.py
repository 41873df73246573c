"""The toolkit's step engine (domain/rulesets/toolkit/engine.py), with toy rulesets: a step
registry per ruleset, any dice through ``Ctx.roll``, pending decisions that resume where they
asked, and VP with sudden death as a ruleset's hook."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.game import Roll
from domain.rulesets import core
from domain.rulesets.toolkit.engine import Ctx, Hooks, Steps, answer, flag, ids, known_fields, need, run, text


class Dice:
    """Dice that come up with the faces given, in order (a test double of the aggregate's roller)."""

    def __init__(self, *faces: int):
        self.faces = list(faces)
        self.calls: list[dict] = []
        self.epochs_closed = 0

    def roll(self, count, sides, *, seat, purpose, rule=None, units=(), replaces=None, notation=None):
        faces = [{"nonce": n, "sides": sides, "value": self.faces.pop(0)} for n in range(count)]
        assert all(1 <= f["value"] <= sides for f in faces)
        self.calls.append({"count": count, "sides": sides, "notation": notation})
        return Roll(0, faces, seat, purpose, rule, list(units), replaces, notation or f"{count}d{sides}")

    def close_epoch(self):
        self.epochs_closed += 1


def fresh(sides=("Red", "Blue")) -> dict:
    return core.base_state(list(sides), ["Play"])


def kinds(ctx: Ctx) -> list[str]:
    return ["Roll" if isinstance(o, Roll) else o[0].__name__ for o in ctx.out]


# ----------------------------------------------------------------------- step registries ---
def test_each_ruleset_has_its_own_step_registry_so_names_may_repeat_across_rulesets():
    red, blue = Steps("red-game"), Steps("blue-game")

    @red.step("attack")
    def red_attack(ctx, stack):
        stack.pop()
        ctx.emit(ev.MarkerGained, side="Red", marker="red attacked", rule="RED 1")

    @blue.step("attack")
    def blue_attack(ctx, stack):
        stack.pop()
        ctx.emit(ev.MarkerGained, side="Blue", marker="blue attacked", rule="BLUE 1")

    for steps, side in ((red, "Red"), (blue, "Blue")):
        ctx = Ctx(fresh(), Dice(), Hooks(steps))
        run(ctx, [{"step": "attack"}])
        assert ctx.out == [(ev.MarkerGained, {"side": side, "marker": f"{side.lower()} attacked",
                                              "rule": f"{side.upper()} 1"})]
        assert ctx.state["markers"][side] == [f"{side.lower()} attacked"]  # the default hooks fold generic events


def test_a_step_registered_twice_in_one_ruleset_is_refused():
    steps = Steps("red-game")
    steps.step("attack")(lambda ctx, stack: stack.pop())
    with pytest.raises(ValueError, match="red-game: step 'attack' is registered twice"):
        steps.step("attack")(lambda ctx, stack: stack.pop())


def test_run_names_the_ruleset_of_an_unknown_step():
    ctx = Ctx(fresh(), Dice(), Hooks(Steps("red-game")))
    with pytest.raises(KeyError, match="red-game: no step 'retreat'"):
        run(ctx, [{"step": "retreat"}])


def test_run_carries_frames_from_the_top_of_the_stack_and_stops_at_the_end_of_the_game():
    steps = Steps("red-game")
    seen = []

    @steps.step("say")
    def say(ctx, stack):
        seen.append(stack.pop()["word"])

    @steps.step("end")
    def end(ctx, stack):
        stack.pop()
        ctx.emit(ev.GameEnded, winner="Red", level="decisive", reason="said enough", rule="RED 9")

    ctx = Ctx(fresh(), Dice(), Hooks(steps))
    run(ctx, [{"step": "say", "word": "never"}, {"step": "end"}, {"step": "say", "word": "first"}])
    assert seen == ["first"] and ctx.state["ended"]["winner"] == "Red"
    ctx.emit(ev.MarkerGained, side="Red", marker="late", rule="RED 1")
    assert kinds(ctx) == ["GameEnded"]  # nothing is recorded after the end


def test_a_step_that_asks_stops_the_run_and_the_answer_resumes_it_in_the_same_frame():
    steps = Steps("red-game")

    @steps.step("ambush")
    def ambush(ctx, stack):
        f = stack[-1]
        if "answer" not in f:
            ctx.ask(stack, "Blue", "ambush", "RED 4", "Blue: spring the ambush?", ["spring", "wait"])
            return
        stack.pop()
        ctx.emit(ev.MarkerGained, side="Blue", marker=f"ambush: {f['answer']}", rule="RED 4")

    ctx = Ctx(fresh(), Dice(), Hooks(steps))
    run(ctx, [{"step": "ambush"}])
    assert ctx.waiting and kinds(ctx) == ["DecisionPending"]
    decision = ctx.out[0][1]["decision"]
    assert decision["id"] == "ambush-1" and decision["seat"] == "Blue" and ctx.state["pending"] == [decision]

    later = Ctx(ctx.state, Dice(), Hooks(steps))
    stack = decision["context"]["stack"]
    answer(stack, "spring")
    run(later, stack)
    assert later.out == [(ev.MarkerGained, {"side": "Blue", "marker": "ambush: spring", "rule": "RED 4"})]


# ------------------------------------------------------------------------------ the dice ---
def test_ctx_roll_rolls_two_d10_and_records_a_target_and_outcome_made_from_the_faces():
    """Goose Green reads two d10; the outcome depends on the faces, so it may be a function of them."""
    ctx = Ctx(fresh(), Dice(7, 3), Hooks(Steps("gg")))
    made = ctx.roll(2, 10, seat="Red", purpose="initiative", rule="GG 3.1",
                    target=lambda values: {"compare": ">=", "value": 10, "result": sum(values)},
                    outcome=lambda values: "success" if sum(values) >= 10 else "failure")
    assert made.values == [7, 3] and made.notation == "2d10"
    assert made.target == {"compare": ">=", "value": 10, "result": 10} and made.outcome == "success"
    assert ctx.out == [made]
    assert ctx.state["last_roll"] == {"seq": None, "seat": "Red", "epoch": 0}  # folded as DiceRolled


def test_ctx_roll_rolls_a_d3_with_its_notation_and_no_target():
    ctx = Ctx(fresh(), Dice(2), Hooks(Steps("stf")))
    made = ctx.roll(1, 3, seat="system", purpose="task force size", rule="STF 2", units=["tf1"])
    assert made.values == [2] and made.notation == "d3" and made.units == ["tf1"]
    assert made.target is None and made.outcome is None


def test_ctx_roll_passes_a_given_notation_and_the_roll_it_replaces():
    dice = Dice(4, 1)
    ctx = Ctx(fresh(), dice, Hooks(Steps("fs")))
    made = ctx.roll(2, 6, seat="Red", purpose="events", rule="X 1", notation="d66", replaces=12)
    assert made.notation == "d66" and made.replaces == 12 and dice.calls[0]["notation"] == "d66"


def test_a_turn_advanced_outcome_closes_the_dice_epoch():
    dice = Dice()
    ctx = Ctx(fresh(), dice, Hooks(Steps("red-game")))
    ctx.emit(ev.TurnAdvanced, turn=2, phase="Play", rule="RED 2")
    assert dice.epochs_closed == 1 and ctx.state["turn"] == 2


# --------------------------------------------------------------------- VP through hooks ---
class SuddenDeath(Hooks):
    """A toy game with one VP track per side: ten VP wins at once (TOY 4.5)."""

    def on_vp(self, ctx, track, total):
        if total >= 10:
            ctx.emit(ev.GameEnded, winner=track, level="sudden death", reason=f"{track} reached {total} VP",
                     rule="TOY 4.5")


def test_vp_moves_one_sides_track_and_the_rulesets_hook_ends_the_game_by_sudden_death():
    ctx = Ctx(fresh(), Dice(), SuddenDeath(Steps("toy-vp")))
    ctx.vp("Red", 6, "took the bridge", "TOY 4.1")
    ctx.vp("Blue", 9, "took the hill", "TOY 4.1")
    assert ctx.state["vp"] == {"Red": 6, "Blue": 9} and not ctx.state["ended"]
    ctx.vp("Red", 0, "nothing", "TOY 4.1")
    assert kinds(ctx) == ["VPScored", "VPScored"]  # a zero change is no event
    ctx.vp("Red", 4, "took the town", "TOY 4.1")
    assert ctx.out[-2] == (ev.VPScored, {"side": "Red", "delta": 4, "total": 10, "reason": "took the town",
                                         "rule": "TOY 4.1"})
    assert ctx.out[-1][0] is ev.GameEnded and ctx.state["ended"]["winner"] == "Red"
    assert ctx.state["ended"]["rule"] == "TOY 4.5"


def test_vp_on_one_signed_track():
    state = core.base_state(["UK", "AR"], ["Play"], vp_sides=["VP"])
    ctx = Ctx(state, Dice(), Hooks(Steps("signed")))
    ctx.vp("VP", -3, "a ship sunk", "TOY 4.4")
    assert ctx.state["vp"] == {"VP": -3}


# -------------------------------------------------------------------------- input checks ---
def test_the_input_checks_name_the_rule_and_the_field():
    need(True, "X 1", "fine")
    with pytest.raises(RuleViolation, match="X 1: not now"):
        need(False, "X 1", "not now")
    assert ids({"units": ["a", "b"]}, "units", "X 2") == ["a", "b"]
    with pytest.raises(InvalidOrder) as err:
        ids({"units": ["a", "a"]}, "units", "X 2")
    assert err.value.rule == "X 2" and err.value.field == "units"
    with pytest.raises(RuleViolation, match="at most 1 units"):
        ids({"units": ["a", "b"]}, "units", "X 2", most=1)
    assert text({}, "area", "X 3", required=False) is None
    with pytest.raises(InvalidOrder):
        text({"area": ""}, "area", "X 3")
    assert flag({"attack": True}, "attack", "X 4") is True
    with pytest.raises(InvalidOrder):
        flag({"attack": "yes"}, "attack", "X 4")


def test_known_fields_refuses_a_field_the_kind_lacks_and_a_word_that_is_not_text():
    order = {"kind": "fire", "units": ["a"], "title": "Fire!"}
    known_fields(order, ["units"], "X 5", "fire")
    with pytest.raises(InvalidOrder, match=r"'unit' is not a field of fire \(its fields: units\)") as err:
        known_fields({"kind": "fire", "unit": "a"}, ["units"], "X 5", "fire")
    assert (err.value.rule, err.value.field) == ("X 5", "unit")
    with pytest.raises(InvalidOrder, match="'title' is text") as err:
        known_fields({**order, "title": 7}, ["units"], "X 5", "fire")
    assert (err.value.rule, err.value.field) == ("X 5", "title")


def test_known_fields_takes_fields_it_accepts_unlisted_and_leaves_their_checks_to_the_kind():
    """Freeform's "private" (FF 7) is taken by every kind and is true or false, not text."""
    order = {"kind": "note", "text": "t", "private": True}
    known_fields(order, ["text"], "FF 2", "note", words=(), accepted=("kind", "private"))
    with pytest.raises(InvalidOrder, match=r"'privat' is not a field of note \(its fields: text\)"):
        known_fields({**order, "privat": True}, ["text"], "FF 2", "note", words=(), accepted=("kind", "private"))
