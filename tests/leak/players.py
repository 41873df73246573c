"""Random players of the rulesets with hidden information, for the leak test: each plays one game
at a table (tests/leak/table.py) with random orders, refused ones included, planting a token in
everything hidden, and calls the table's checkpoints.

``PLAYERS`` names them by ruleset; a ruleset with nothing hidden is listed in
``NO_HIDDEN_INFORMATION`` with the reason (test_leak.py checks that every ruleset is in one of the
two, so a new game with a ``view``, ``concealable`` or ``hidden_fields`` joins the leak test, docs/testing.md)."""

from __future__ import annotations

import random
import secrets
import uuid
from typing import Callable

from domain import sealed as sealing, signatures
from domain.rulesets.freeform.rules import ORDER_KINDS
from tests.leak.table import Table

DICE = ("1d6", "2d6", "d66", "3d10", "d20")


# ================================================================================ freeform ====
def freeform_body(rng: random.Random, **options) -> dict:
    sides = rng.sample(["Blue", "Red", "Green", "Gold"], rng.choice([2, 2, 3]))
    return {"ruleset": "freeform", "options": {"sides": sides, "phases": rng.choice([["Turn"], ["Move", "Fight"]]),
                                               **options}}


def private_note(t: Table, seat: str, rng: random.Random) -> dict:
    """FF 7: a private note, its text (and sometimes one of its own fields) a token only its
    author may read."""
    order = {"kind": "note", "text": f"plan {t.plant(f'{seat} private note', seat)}", "private": True}
    if rng.random() < 0.4:
        order["fields"] = {"where": t.plant(f"{seat} private note field", seat)}
    return order


# Sealed rolls (spec34 section 3, FF 9), played once freeform takes them: their concealed fields'
# salts are among the values a seat's export withholds.
SEALED_ROLLS = "sealed" in next(k for k in ORDER_KINDS if k["kind"] == "roll")["fields"]


def public_order(seat: str, sides: list[str], rng: random.Random) -> dict:
    pick = rng.random()
    if pick < 0.3:
        return {"kind": "note", "text": "a public note"}
    if SEALED_ROLLS and pick < 0.4:
        return {"kind": "roll", "dice": rng.choice(DICE), "purpose": "refit", "sealed": True,
                "target": {"compare": ">=", "value": 4}}
    if pick < 0.75:
        order = {"kind": "roll", "dice": rng.choice(DICE), "purpose": "fire", "units": ["1st Bn"]}
        if rng.random() < 0.5:
            order["target"] = {"compare": ">=", "value": rng.randint(2, 9)}
        return order
    return {"kind": "vp", "side": rng.choice(sides), "delta": rng.choice([-1, 1, 2]), "reason": "objective"}


# Orders the rules refuse, some of them naming what others hid (a roll it replaces, a side).
FREEFORM_REFUSED = (
    {"kind": "peek", "at": "the other side's notes"},
    {"kind": "roll", "dice": "2d6", "purpose": "re-roll", "replaces": 999_999},
    {"kind": "vp", "side": "Nobody", "delta": 1, "reason": "nothing"},
    {"kind": "note", "text": "", "private": True},
    {"kind": "note", "text": "bad fields", "private": True, "fields": "not an object"},
)


def freeform_notes(t: Table, rng: random.Random) -> None:
    """FF 7 private notes among public orders, take-backs (of private notes too), refused orders."""
    steps = rng.randint(14, 24)
    private: list[tuple[str, str, dict]] = []  # (seat, order id, order) of the private notes recorded
    sealed: list[tuple[str, int]] = []  # (seat, seq) of the sealed rolls made and not yet shown
    for step in range(steps):
        seat = rng.choice(t.seats)
        pick = rng.random()
        if pick < 0.3:
            order, order_id = private_note(t, seat, rng), f"note-{step}"
            if t.order(seat, order, order_id).status_code == 201:
                private.append((seat, order_id, order))
        elif private and pick < 0.35:  # another seat sends a hidden note's id: refused; its author: the note again
            author, order_id, order = rng.choice(private)
            t.order(rng.choice([s for s in t.seats if s != author]), {"kind": "note", "text": "a guess"}, order_id)
            t.order(author, order, order_id)
        elif pick < 0.65:
            order = public_order(seat, t.seats, rng)
            if SEALED_ROLLS and rng.random() < 0.3:  # sealed rolls more often here, so that some are shown
                order = {"kind": "roll", "dice": rng.choice(DICE), "purpose": "hidden draw", "sealed": True}
            r = t.order(seat, order)
            if r.status_code == 201:
                sealed += [(seat, e["seq"]) for e in r.json["events"] if e["type"] == "SealedDiceRolled"]
        elif sealed and pick < 0.68:
            show(t, rng, sealed)
        elif pick < 0.72:
            t.order(seat, {"kind": "advance"})
        elif pick < 0.78:
            annotation(t, seat, rng)
        elif pick < 0.87:
            if t.call(seat, "POST", "/take-backs", {"reason": "misclick"}).status_code == 201:
                other = rng.choice([s for s in t.seats if s != seat])
                t.call(other, "POST", "/take-backs/answer", {"accept": rng.random() < 0.6})
        else:
            t.order(seat, rng.choice(FREEFORM_REFUSED))
            t.call(seat, "POST", "/take-backs/answer", {"accept": True})  # nothing waits: refused
        if step == steps // 2:
            if SEALED_ROLLS:  # a sealed roll shown before the mid-game reads, one made first if none is there
                if not sealed:
                    r = t.order(seat, {"kind": "roll", "dice": rng.choice(DICE), "purpose": "hidden draw", "sealed": True})
                    sealed += [(seat, e["seq"]) for e in r.json.get("events", []) if e["type"] == "SealedDiceRolled"]
                if sealed:
                    show(t, rng, sealed)
            t.check("mid-game")
    end(t, rng)


def show(t: Table, rng: random.Random, sealed: list[tuple[str, int]]) -> None:
    """FF 9: a seat shows one of its sealed rolls to everyone; the others stay sealed."""
    roller, seq = sealed.pop(rng.randrange(len(sealed)))
    if t.order(roller, {"kind": "show", "roll": seq}).status_code == 201:
        t.shown += 1


def annotation(t: Table, seat: str, rng: random.Random) -> None:
    """A seat's annotation on a random event: private (a token only the seat may read) or public;
    sometimes another seat sends a private one's id again with a guess (refused, naming no text)."""
    version = t.service.get_game(t.game_id).version
    about = rng.randint(1, version)
    private = rng.random() < 0.6
    text = f"note {t.plant(f'{seat} private annotation', seat)}" if private else "a public annotation"
    r = t.annotate(seat, about, text, private, annotation_id := uuid.uuid4().hex)
    if r.status_code >= 300:  # about an annotation's line: refused, so no secret
        for token in [k for k in t.secrets.items if k in text]:
            t.secrets.forget(token)
    elif private and len(t.seats) > 1 and rng.random() < 0.3:
        t.annotate(rng.choice([s for s in t.seats if s != seat]), about, "a guess", True, annotation_id)


def end(t: Table, rng: random.Random) -> None:
    """The end (the rules may refuse it), then after-action annotations: each seat's (some private)
    and a spectator's, with a spectator token the admin issues."""
    seat = rng.choice(t.seats)
    if rng.random() < 0.5:
        t.call(seat, "POST", "/concede")
    else:
        t.order(seat, {"kind": "end", "winner": rng.choice([*t.seats, None]), "reason": "time"})
    for seat in t.seats:
        annotation(t, seat, rng)
    r = t.client.post(f"/api/v1/games/{t.game_id}/spectator-tokens", json={"name": "Sam"}, headers=t.admin)
    assert r.status_code == 201, r.json
    r = t.client.post(f"/api/v1/games/{t.game_id}/annotations", json={"about_seq": 1, "text": "well played"},
                      headers={"Authorization": f"Bearer {r.json['token']}", "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == (201 if t.ended else 422), r.json  # a spectator writes once the game has ended


def sealed_order(t: Table, seat: str, rng: random.Random, public: list[str]) -> dict:
    """One order to seal; a token in each, hidden until the seat reveals (then public, listed in
    ``public``), except a private note's, hidden from the others for ever (FF 7)."""
    pick = rng.random()
    if pick < 0.35:
        order = private_note(t, seat, rng)
        if rng.random() < 0.2:  # a private note the rules refuse when it is carried out (FF 8)
            if isinstance(order.get("fields"), dict):
                t.secrets.forget(order["fields"]["where"])  # a token no longer in the order
            order["fields"] = "not an object"
        return order
    token = t.plant(f"{seat} sealed order", seat)
    public.append(token)
    if pick < 0.55:
        return {"kind": "note", "text": f"sealed {token}"}
    if pick < 0.8:
        return {"kind": "roll", "dice": rng.choice(DICE), "purpose": f"barrage {token}"}
    return {"kind": "vp", "side": rng.choice(t.seats), "delta": 1, "reason": f"held {token}"}


def freeform_sealed(t: Table, rng: random.Random) -> None:
    """FF 8: rounds of sealed orders; checked once every seat has sealed and after each reveal."""
    rounds = rng.randint(1, 3)
    for round_no in range(1, rounds + 1):
        public: dict[str, list[str]] = {seat: [] for seat in t.seats}
        plans = {seat: [sealed_order(t, seat, rng, public[seat]) for _ in range(rng.randint(0, 3))]
                 for seat in t.seats}
        if round_no == rounds and rng.random() < 0.6:
            ender = rng.choice(t.seats)
            plans[ender].insert(rng.randint(0, len(plans[ender])), {"kind": "end", "winner": None, "reason": "dusk"})
        salts = {seat: secrets.token_hex(16) for seat in t.seats}
        for seat in rng.sample(t.seats, len(t.seats)):
            commitment = sealing.commitment(t.game_id, seat, round_no, plans[seat], salts[seat])
            signed = t.signed(seat, lambda key, head: signatures.sign_seal(key, t.game_id, seat, round_no,
                                                                          commitment, head))
            assert t.call(seat, "POST", "/sealed", {"commitment": commitment}, headers=signed).status_code == 201
        t.check(f"round {round_no}: every seat sealed")
        order = rng.sample(t.seats, len(t.seats))
        for n, seat in enumerate(order):
            t.order(rng.choice(t.seats), {"kind": "advance"})  # refused: the round's orders are sealed
            signed = t.signed(seat, lambda key, head: signatures.sign_reveal(key, t.game_id, seat, round_no,
                                                                            plans[seat], salts[seat], head))
            r = t.call(seat, "POST", "/sealed/reveal", {"orders": plans[seat], "salt": salts[seat]}, headers=signed)
            assert r.status_code == 201, r.json
            for token in public[seat]:
                t.secrets.disclose(token, at=r.json["events"][0]["seq"])
            if n < len(order) - 1:
                t.check(f"round {round_no}: {seat} revealed")
        if t.ended:
            return
    end(t, rng)


# ================================================================================= proving ====
HEXES = ("K5", "K6", "L7", "M7", "B2", "C3")


def proving(t: Table, rng: random.Random) -> None:
    """PG 7.3 face-down markers and PG 5.4 standing orders (Blue's, named by a token), among the
    other mechanisms' orders, with refused orders and a sandbox forked by a seat."""
    standing: list[str] = []
    if t.state().get("scenario") == "muster":
        for seat in rng.sample(t.seats, 2):
            t.order(seat, {"kind": "muster"})
    elif rng.random() < 0.7:  # a seat forks a sandbox where only its own marker is hidden: allowed
        seat = rng.choice(t.seats)
        t.order(seat, {"kind": "take_marker", "marker": t.plant(f"{seat} face-down marker", seat)})
        fork(t, seat)
    steps = rng.randint(14, 24)
    for step in range(steps):
        pending = t.state().get("pending") or []
        if pending:
            d = pending[0]
            if d["kind"] == "opportunity_fire":
                t.order(d["seat"], {"kind": "decide", "decision": d["id"], "choice": rng.choice(["fire", "hold"])})
            else:
                t.order(d["seat"], {"kind": "declare", "decision": d["id"], "value": rng.randint(0, 3)})
            continue
        seat = rng.choice(t.seats)
        pick = rng.random()
        if pick < 0.25:
            t.order(seat, {"kind": "take_marker", "marker": t.plant(f"{seat} face-down marker", seat)})
        elif pick < 0.4:
            t.order("Red", {"kind": "advance", "hex": rng.choice(HEXES)})
        elif pick < 0.5:
            policy_id = t.plant("Blue standing order's name", "Blue")
            # In the form PG 5.4 records it (hexes sorted): a keyed Blue signs the policy as recorded.
            policy = {"fire": rng.choice(["always", "never"]), "ask_at": sorted(rng.sample(HEXES, 2))}
            for old in standing:  # one standing order per decision kind: the old one goes first
                t.call("Blue", "DELETE", f"/standing-orders/{old}")
            standing.clear()
            if t.call("Blue", "PUT", f"/standing-orders/{policy_id}",
                      {"decision_kind": "opportunity_fire", "policy": policy}).status_code == 200:
                standing.append(policy_id)
        elif pick < 0.75:
            t.order(seat, rng.choice([{"kind": "roll_score"}, {"kind": "search", "search_value": rng.randint(1, 10)},
                                      {"kind": "chart"}, {"kind": "turn_end"},
                                      {"kind": "fire", "odds": "1:1", "cover": rng.random() < 0.5}]))
        elif pick < 0.85:
            t.order(seat, rng.choice([{"kind": "decide", "decision": "opportunity_fire-K5", "choice": "fire"},
                                      {"kind": "declare", "decision": "nothing", "value": 1},
                                      {"kind": "take_marker", "marker": ""}, {"kind": "peek"}]))
            t.call("Red", "PUT", "/standing-orders/red-order", {"decision_kind": "opportunity_fire",
                                                                 "policy": {"fire": "always"}})
            t.call(seat, "DELETE", "/standing-orders/none-such")
        else:
            fork(t, seat)
        if step == steps // 2:
            t.check("mid-game")
    t.call(rng.choice(t.seats), "POST", "/concede")


def fork(t: Table, seat: str) -> None:
    """``seat`` forks a public sandbox at the current event: refused where the state hides
    something from it (its answer a text it reads), else a game the spectators read too."""
    version = t.service.get_game(t.game_id).version
    r = t.call(seat, "POST", "/sandbox", {"at": version, "public": True})
    if r.status_code == 201:
        t.sandboxes.append({"game_id": r.json["game_id"], "admin": {"Authorization": f"Bearer {r.json['admin_token']}"}})


def proving_body(rng: random.Random) -> dict:
    return {"ruleset": "proving", **({"scenario": "muster"} if rng.random() < 0.3 else {})}


# ================================================================================ registry ====
# ruleset -> [(what is hidden, the create request of a game, its player)]
Player = tuple[str, Callable[[random.Random], dict], Callable[[Table, random.Random], None]]
PLAYERS: dict[str, list[Player]] = {
    "freeform": [("private notes (FF 7)", freeform_body, freeform_notes),
                 ("sealed orders (FF 8)", lambda rng: freeform_body(rng, sealed_orders=True), freeform_sealed)],
    "proving": [("face-down markers (PG 7.3) and standing orders (PG 5.4)", proving_body, proving)],
}

# Rulesets whose games hide nothing, and why (test_leak.py checks they override no hiding hook).
NO_HIDDEN_INFORMATION = {
    "falklands": "both players see the whole map; FS 4.7's bids are given together at creation",
    "stf": "no hidden units yet (STF 6.1's searches are rolled in the open)",
}
