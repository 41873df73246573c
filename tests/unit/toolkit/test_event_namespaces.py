"""Event type names live in namespaces: the generic events (domain/events.py) are every
ruleset's, and each ruleset's own events are its own. Two toy rulesets each define an event
``Foo`` and a step ``attack``; neither collides, and each game's lines decode to its own class.
A ruleset's event may not take a generic name, nor a generic event a ruleset's."""

from __future__ import annotations

import hashlib
import json

import pytest
from eventsourcing.utils import get_topic, resolve_topic

from domain import events as ev
from domain.game import Game
from domain.rulesets import Ruleset, Setup, core, register
from domain.rulesets.toolkit.engine import Ctx, Hooks, Steps, run
from domain.verify import to_line, verify
from projections.folds import to_event


def make_toy(name: str, foo: type) -> Ruleset:
    """A ruleset whose one order, "attack", runs its own step "attack", which emits its own Foo."""
    steps = Steps(name)

    @steps.step("attack")
    def attack(ctx, stack):
        stack.pop()
        ctx.emit(foo, **foo.EXAMPLE)

    class FooHooks(Hooks):
        def fold(self, state, event_name, fields, seq):
            if event_name == "Foo":
                return {**state, "foo": [*state.get("foo", []), fields]}
            return super().fold(state, event_name, fields, seq)

    hooks = FooHooks(steps)

    class Toy(Ruleset):
        prefix = name.upper()
        sequence_rule = end_rule = f"{prefix} 1"
        take_back_rule = None

        def setup(self, scenario, options):
            return Setup(seats=["Red", "Blue"], state=core.base_state(["Red", "Blue"], ["Play"]))

        def legal_orders(self, state, seat):
            return [{"kind": "attack"}]

        def decide(self, state, seat, order, dice):
            ctx = Ctx(state, dice, hooks)
            run(ctx, [{"step": "attack"}])
            return ctx.out

        def evolve(self, state, event):
            if type(event).__name__ == "GameCreated":
                return core.json_copy(event.setup)
            return hooks.fold(state, type(event).__name__, ev.event_data(event), event.originator_version)

    Toy.name = name
    return register(Toy())


class AlphaFoo:
    class Foo(ev.GameEvent):
        """Alpha's Foo: a blow of some strength."""

        RULESET = "ns-alpha"
        EXAMPLE = {"strength": 3}
        strength: int


class BetaFoo:
    class Foo(ev.GameEvent):
        """Beta's Foo: a note."""

        RULESET = "ns-beta"
        EXAMPLE = {"note": "feint", "rule": "NS-BETA 2"}
        note: str
        rule: str


ALPHA = make_toy("ns-alpha", AlphaFoo.Foo)
BETA = make_toy("ns-beta", BetaFoo.Foo)


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"ns-{epoch}".encode()).digest()


def played(ruleset: str) -> Game:
    game = Game.create(ruleset, seed_for=seed_for)
    game.join("Red", "ann", "", seed_for)
    game.join("Blue", "bob", "", seed_for)
    game.submit("Red", "o1", {"kind": "attack"}, seed_for)
    return game


def test_two_rulesets_each_have_an_event_foo_and_a_step_attack_without_collision():
    assert ev.event_class("Foo", "ns-alpha") is AlphaFoo.Foo
    assert ev.event_class("Foo", "ns-beta") is BetaFoo.Foo
    assert ev.event_class("Foo", "freeform") is None  # another ruleset's event is not freeform's
    assert ev.event_class("Foo") is None  # ambiguous without the game's ruleset
    assert ev.event_class("UnitMoved", "ns-alpha") is ev.UnitMoved  # the generic ones are shared


@pytest.mark.parametrize("ruleset, foo, fields", [
    ("ns-alpha", AlphaFoo.Foo, {"strength": 3}),
    ("ns-beta", BetaFoo.Foo, {"note": "feint", "rule": "NS-BETA 2"}),
])
def test_each_games_lines_decode_to_its_own_rulesets_event(ruleset, foo, fields):
    game = played(ruleset)
    assert game.state["foo"] == [fields]  # run with its own step "attack", folded by its own fold
    events = list(game.pending_events)
    lines = [json.loads(json.dumps(to_line(e))) for e in events]
    assert verify(lines).ok
    foo_lines = [line for line in lines if line["type"] == "Foo"]
    assert [line["data"] for line in foo_lines] == [fields]
    made = to_event(foo_lines[0], ruleset)
    assert type(made) is foo and vars(made) == vars(next(e for e in events if type(e) is foo))
    assert resolve_topic(get_topic(foo)) is foo  # as the store finds it again


def test_a_rulesets_event_may_not_take_a_generic_name():
    with pytest.raises(TypeError, match="ns-alpha: event type name 'UnitMoved' is a generic event's"):
        class UnitMoved(ev.GameEvent):
            RULESET = "ns-alpha"
            unit: str
    assert ev.event_class("UnitMoved", "ns-alpha") is ev.UnitMoved


def test_a_generic_event_may_not_take_a_rulesets_name():
    with pytest.raises(TypeError, match="generic event type name 'Foo' is already a ruleset's"):
        class Foo(ev.GameEvent):
            anything: str


def test_a_ruleset_may_not_define_one_name_twice():
    with pytest.raises(TypeError, match="event type name 'Foo' is already taken"):
        class Foo(ev.GameEvent):
            RULESET = "ns-beta"
            other: str
    assert ev.event_class("Foo", "ns-beta") is BetaFoo.Foo


MOVED_FROM_FALKLANDS = ("UnitEntered", "UnitEmbarked", "UnitDisembarked", "UnitRepaired", "UnitWithdrawn",
                        "BattleBegun", "EffectGained", "EffectSpent")


@pytest.mark.parametrize("name", MOVED_FROM_FALKLANDS)
def test_the_old_topic_of_an_event_moved_out_of_falklands_resolves_to_the_generic_class(name):
    cls = getattr(ev, name)
    assert cls.RULESET is None and ev.event_class(name, "falklands") is cls
    assert get_topic(cls) == f"domain.events:{name}"
    assert resolve_topic(f"domain.rulesets.falklands.events:{name}") is cls


def test_falklands_keeps_its_operations_as_its_own_actions():
    from domain.rulesets.falklands import events as fe

    assert fe.OperationBegun.RULESET == "falklands" and issubclass(fe.OperationBegun, ev.ActionBegun)
    assert issubclass(fe.OperationCompleted, ev.ActionCompleted)
    assert ev.event_class("OperationBegun", "falklands") is fe.OperationBegun
    assert ev.event_class("OperationBegun", "freeform") is None
    assert resolve_topic("domain.rulesets.falklands.events:OperationBegun") is fe.OperationBegun
