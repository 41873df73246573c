"""legal-orders gives forms (docs/pages.md): every answer offered for a pending decision is
accepted as it stands, and an operation filled from its fields' first choices is well formed
(the rules may still refuse it, naming the rule, but never as malformed)."""

from __future__ import annotations

import hashlib
import random

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game
from domain.rulesets.falklands import play


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"tmpl-{epoch}".encode()).digest()


def from_fields(template: dict) -> dict | None:
    order = {"kind": template["kind"]}
    for name, spec in template["fields"].items():
        if isinstance(spec, list):
            order[name] = spec[0]
        elif spec.get("optional"):
            continue
        elif spec.get("choices") is not None:
            order[name] = spec["choices"][:1] if spec.get("multiple") else spec["choices"][0]
        else:
            return None  # a JSON field with no ready-made value (Op #12 moves, Op #23 loads)
    return order


def test_every_offered_decision_answer_is_accepted_and_every_form_is_well_formed():
    answered = formed = 0
    for n in range(12):
        rng = random.Random(1000 + n)
        g = Game.create("falklands", seed_for=seed_for)
        g.join("UK", "uk", "", seed_for)
        g.join("AR", "ar", "", seed_for)
        for i in range(400):
            if g.is_ended:
                break
            seat = g.whose_move()[0]
            legal = g.legal_orders(seat)
            for t in legal:
                if t["kind"] == "decide":
                    for choice in t["fields"]["choice"]:
                        # decide is pure: each answer is tried on the rules alone, nothing recorded
                        g.rules.decide(g.state, seat, {"kind": "decide", "decision": t["decision"], "choice": choice},
                                       _Dice())
                        answered += 1
                elif t["kind"] == "operation":
                    order = from_fields(t)
                    if order is None:
                        continue
                    assert order["op"] == t["op"]
                    try:
                        g.rules.decide(g.state, seat, order, _Dice())
                    except RuleViolation:
                        pass
                    except InvalidOrder as malformed:
                        raise AssertionError(f"form of Op #{t['op']} gave a malformed order {order}: {malformed}")
                    formed += 1
            for order in play.candidates(g.rules, g.state, seat, rng):
                try:
                    g.submit(seat, f"o{i}", order, seed_for)
                    break
                except (RuleViolation, InvalidOrder):
                    continue
    assert answered >= 20 and formed >= 200, (answered, formed)


class _Dice:
    """Dice for trying an order without recording it: every die shows 3."""

    def roll(self, count, sides, **kw):
        from domain.game import Roll

        return Roll(0, [{"nonce": i, "sides": sides, "value": 3} for i in range(count)], kw["seat"], kw["purpose"],
                    kw.get("rule"), kw.get("units", ()), kw.get("replaces"), kw.get("notation") or f"{count}d{sides}")

    def close_epoch(self):
        pass
