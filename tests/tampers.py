"""Real exports, and the tampered copies of them that every verifier must refuse.

One list for both verifiers: `warlog verify` (domain/verify.py; tests/unit/test_tampering.py) and
the browser's (api/static/verify/; tests/browser/test_browser_verify.py). Each case names the line
the check must name first and a part of its reason, as docs/dice.md states them, so the spec and
not one program is the authority: a case that one verifier refuses and the other takes is a bug
in one of them (or in the spec).

The games are played through the real service (``games(app)``): a freeform game with dice over
two epochs, a game whose Blue seat signs its orders (with a signed head kept), a sealed-orders
game with dice in its carried-out orders (Blue signing its seal and reveal), and Red's copy of a
game with Blue's private note.
``format1_exports()`` are the same games as format-1 files, kept in tests/data (games made now
are format 2; an old file must verify forever); tests/format2.py writes format-2 files from the
spec, with cases of their own below.
"""

from __future__ import annotations

import copy
import json
import random
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from domain import chain, sealed, signatures
from domain.verify import header_line

GENESIS = "0" * 64
FORMAT1_FILE = Path(__file__).resolve().parent / "data" / "format1_exports.json"


@dataclass
class Export:
    """An intact export: its text lines as the file holds them (the header line first when it has
    one), and what a player kept while playing: a head the server signed, and the server's key."""

    name: str
    text: list[str]
    head: dict | None = None
    server_key: str | None = None
    secret: dict = field(default_factory=dict)  # what a forger may hold: keys, salts (not in the file)

    @property
    def header(self) -> list[str]:
        return self.text[:1] if self.text and self.text[0].startswith('{"warlog_export"') else []

    def lines(self) -> list[dict]:
        """The event lines, parsed (a fresh copy to edit)."""
        return [json.loads(t) for t in self.text[len(self.header):]]


@dataclass
class Tampered:
    """A tampered copy of ``export``: the file's lines, the kept head it is checked against (None:
    none; text: the head's JSON as a player gives it to `warlog verify --head`), the line the
    verifier must name first and a part of its reason."""

    name: str
    export: str
    text: list[str]
    line: int
    why: str
    head: dict | str | None = None
    server_key: str | None = None


# ------------------------------------------------------------------------------- the games ----
DICE_ORDERS = [
    ("Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire at Hill 112"}),
    ("Red", {"kind": "roll", "dice": "d10", "purpose": "morale", "target": {"compare": "<=", "value": 7}}),
    ("Blue", {"kind": "note", "text": "Blue moves the Guards to Hill 112 — « é » 😀"}),
    ("Red", {"kind": "roll", "dice": "d66", "purpose": "random event"}),
    ("Blue", {"kind": "advance"}),  # Move -> Fight
    ("Red", {"kind": "advance"}),  # Fight -> turn 2: epoch 0 revealed, epoch 1 opened
    ("Blue", {"kind": "roll", "dice": "3d6", "purpose": "assault"}),
    ("Red", {"kind": "roll", "dice": "d20", "purpose": "weather"}),
]


def _started(app, **options) -> str:
    created = app.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"], **options})
    for side in ("Blue", "Red"):
        app.join(created.game_id, side, f"{side.lower()}-player", client_seed=f"seed-{side}")
    return created.game_id


def dice_game(app) -> Export:
    """Three rolls in epoch 0 (revealed by the turn's end), two in epoch 1 (still open)."""
    game_id = _started(app)
    for n, (seat, order) in enumerate(DICE_ORDERS):
        app.submit_order(game_id, seat, f"o{n}", order)
    return Export("dice", list(app.export(game_id)))


def signed_game(app) -> Export:
    """Blue registered a key and signs its orders (a roll, a note); Red plays unsigned; the server
    signed the head after Blue's last order, and the file names its key in the header line; Blue
    changes its client seed, signed (format 2: a CommandSigned); Red concedes, which reveals the dice."""
    created = app.create_game("freeform", options={"sides": ["Blue", "Red"]})
    game_id = created.game_id
    key, server = signatures.new_private_key(), signatures.new_private_key()
    app.join(game_id, "Blue", "blue", client_seed="b", public_key=signatures.public_key_of(key))
    head = joined = app.join(game_id, "Red", "red", client_seed="r").chain_head
    orders = [("o-1", {"kind": "roll", "dice": "2d6", "purpose": "barrage"}),
              ("o-2", {"kind": "note", "text": "signed, « é »", "fields": {"n": 1.5}})]
    for order_id, order in orders:
        result = app.submit_order(game_id, "Blue", order_id, order, head=head,
                                  signature=signatures.sign_order(key, game_id, order_id, order, head))
        head = result.chain_head
    kept = signatures.sign_head(server, game_id, result.version, result.chain_head)
    # Signed over the join's head, a line before the kept head: a rewrite at the kept head leaves it be.
    app.change_client_seed(game_id, "Blue", "b-2", signature=signatures.sign_command(
        key, game_id, "client_seed", "Blue", {"client_seed": "b-2"}, joined), head=joined)
    app.submit_order(game_id, "Red", "r-1", {"kind": "roll", "dice": "d6", "purpose": "reply"})
    app.concede(game_id, "Red")  # the end reveals the dice
    server_key = signatures.public_key_of(server)
    return Export("signed", [header_line(server_key)] + list(app.export(game_id)), head=kept,
                  server_key=server_key, secret={"key": key, "server": server, "orders": dict(orders)})


def sealed_game(app) -> Export:
    """One sealed-orders round (FF 8): both seats seal, then reveal; the orders roll dice; then Red
    concedes, which reveals the dice. Blue registered a key and signs its seal and reveal (format
    2; the format-1 file, made before, has no key)."""
    created = app.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"],
                                                  "sealed_orders": True})
    game_id, key = created.game_id, signatures.new_private_key()
    app.join(game_id, "Blue", "blue-player", client_seed="seed-Blue", public_key=signatures.public_key_of(key))
    head = app.join(game_id, "Red", "red-player", client_seed="seed-Red").chain_head
    orders = {"Blue": [{"kind": "roll", "dice": "d6", "purpose": "sealed fire"}, {"kind": "note", "text": "hold"}],
              "Red": [{"kind": "roll", "dice": "2d6", "purpose": "sealed counter"}]}
    salts = {seat: secrets.token_hex(16) for seat in orders}
    for seat in orders:
        commitment = sealed.commitment(game_id, seat, 1, orders[seat], salts[seat])
        signed = signatures.sign_seal(key, game_id, seat, 1, commitment, head) if seat == "Blue" else None
        head = app.seal(game_id, seat, commitment, signature=signed, head=head).chain_head
    for seat in orders:
        signed = signatures.sign_reveal(key, game_id, seat, 1, orders[seat], salts[seat], head) if seat == "Blue" else None
        app.reveal(game_id, seat, orders[seat], salts[seat], signature=signed, head=head)
    app.concede(game_id, "Red")  # the game ends: the epoch of the round's dice is revealed
    return Export("sealed", list(app.export(game_id)), secret={"orders": orders, "salts": salts, "key": key})


def seat_copy(app) -> Export:
    """Red's copy of a game where Blue wrote a private note (FF 7): that line is redacted."""
    from domain.rulesets import find_ruleset
    from domain.verify import dumps
    from domain.visibility import filter_lines

    game_id = _started(app)
    app.submit_order(game_id, "Blue", "n-1", {"kind": "note", "text": "the ford is mined", "private": True})
    app.submit_order(game_id, "Red", "r-1", {"kind": "roll", "dice": "d6", "purpose": "scout"})
    lines = filter_lines(find_ruleset("freeform"), app.lines(game_id), "Red")
    return Export("seat_copy", [dumps(line) for line in lines])


def games(app) -> dict[str, Export]:
    return {e.name: e for e in (dice_game(app), signed_game(app), sealed_game(app), seat_copy(app))}


def format1_exports() -> dict[str, Export]:
    """The games above as format 1 records them (tests/data/make_format1_exports.py)."""
    kept = json.loads(FORMAT1_FILE.read_text(encoding="utf-8"))["exports"]
    out = {}
    for name, x in kept.items():
        secret = dict(x["secret"])
        if "server" in secret:
            secret["server"] = signatures.private_key_from_text(secret["server"])
        out[name] = Export(name, x["text"], head=x["head"], server_key=x["server_key"], secret=secret)
    return out


def format_of(lines: list[dict]) -> int:
    return lines[0]["data"].get("format", 1)


# ------------------------------------------------------------------------------ a forger ----
def text_of(export: Export, lines: list[dict]) -> list[str]:
    return export.header + [json.dumps(line, ensure_ascii=False) for line in lines]


def rechain(lines: list[dict], start: int = 0) -> list[dict]:
    """What a careful forger does after an edit: renumber, relink and rehash from ``start`` on, as
    the game's format hashes (a line format 2 cannot hash keeps the hash it had)."""
    fmt = format_of(lines)
    prev = lines[start - 1]["hash"] if start else GENESIS
    for n in range(start, len(lines)):
        lines[n]["seq"] = n + 1
        lines[n]["prev_hash"] = prev
        try:
            lines[n]["hash"] = chain.line_hash(lines[n], fmt)
        except chain.Unhashable:
            pass
        prev = lines[n]["hash"]
    return lines


def at(lines: list[dict], type_: str, nth: int = 0, **data) -> int:
    """0-based index of the nth line of ``type_`` whose data has the given items."""
    found = [i for i, line in enumerate(lines) if line["type"] == type_
             and all(line["data"].get(k) == v for k, v in data.items())]
    return found[nth]


# ------------------------------------------------------------------------------- the cases ----
CASES: list[tuple[str, str, Callable[[Export], Tampered]]] = []


def case(export: str):
    """Register a tampering of the export named ``export``; the function returns (text lines, line,
    why), a Tampered (when it keeps a head), or None when the change is no tampering in the file's
    format."""
    def register(make):
        def build(x: Export) -> Tampered | None:
            made = make(x)
            if made is None or isinstance(made, Tampered):
                return made
            text, line, why = made
            return Tampered(make.__name__, export, text, line, why)
        CASES.append((make.__name__, export, build))
        return make
    return register


@case("dice")
def edited_line(x):
    lines = x.lines()
    i = at(lines, "DiceRolled")
    lines[i]["data"]["purpose"] = "fire at Hill 113"  # hash left as it was
    return text_of(x, lines), i + 1, "hash does not match the line's content (DiceRolled was altered)"


@case("dice")
def edited_die_value(x):
    lines = x.lines()
    i = at(lines, "DiceRolled")
    die = lines[i]["data"]["dice"][0]
    die["value"] = die["value"] % 6 + 1
    return text_of(x, lines), i + 1, "hash does not match"


@case("dice")
def deleted_line(x):
    lines = x.lines()
    i = at(lines, "OrderAccepted", 2)
    del lines[i]
    return text_of(x, lines), i + 1, f"seq {i + 2} where {i + 1} was expected"


@case("dice")
def inserted_line(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1)
    lines.insert(i + 1, copy.deepcopy(lines[i]))  # a second copy of a roll, right after the original
    return text_of(x, lines), i + 2, f"seq {i + 1} where {i + 2} was expected"


@case("dice")
def swapped_lines(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return text_of(x, lines), i + 1, "where"


@case("dice")
def altered_die_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1)  # Red's d10, revealed with epoch 0
    die = lines[i]["data"]["dice"][0]
    die["value"] = die["value"] % 10 + 1
    return text_of(x, rechain(lines)), i + 1, "but the revealed seed gives"


@case("dice")
def die_nonce_written_as_a_float_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1)  # Red's d10, revealed with epoch 0
    die = lines[i]["data"]["dice"][0]
    die["nonce"] = float(die["nonce"])  # the same number to ==, another text in the die's message
    return text_of(x, rechain(lines)), i + 1, f"die nonce {die['nonce']} of a d10 is not written as whole numbers"


@case("dice")
def altered_seed_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceEpochRevealed")
    lines[i]["data"]["seed"] = secrets.token_hex(32)
    return text_of(x, rechain(lines)), i + 1, "the seed of dice epoch 0 does not match its commitment"


@case("signed")
def last_epoch_never_revealed_rechained(x):
    lines = x.lines()
    ended = at(lines, "GameEnded")
    assert lines[ended + 1]["type"] == "DiceEpochRevealed"
    del lines[ended + 1]  # the server keeps the seed of the game's last epoch (Red conceded)
    return text_of(x, rechain(lines)), ended + 1, "the game ended here, but dice epoch 0 was never revealed"


@case("dice")
def altered_entropy_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceEpochOpened")
    lines[i]["data"]["client_entropy"] = "seed-Blue|seed-Rex"
    if lines[0]["data"].get("format", 1) == 2:  # scheme 2: the entropy is recomputed from the file
        return text_of(x, rechain(lines)), i + 1, "client entropy of dice epoch"
    first_roll = at(lines, "DiceRolled")
    return text_of(x, rechain(lines)), first_roll + 1, "but the revealed seed gives"


@case("dice")
def dropped_roll_rechained(x):
    lines = x.lines()
    del lines[at(lines, "DiceRolled", 1)]  # its order stays: the next roll of the epoch skips nonces
    nxt = at(lines, "DiceRolled", 1)
    return text_of(x, rechain(lines)), nxt + 1, "die nonce 3 where 2 was expected"


@case("dice")
def skipped_nonce_in_open_epoch(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1, epoch=1)
    for die in lines[i]["data"]["dice"]:
        die["nonce"] += 1
    return text_of(x, rechain(lines)), i + 1, "where 3 was expected (a roll is missing or was repeated)"


@case("dice")
def roll_outside_its_epoch(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", 1, epoch=1)
    lines[i]["data"]["epoch"] = 0
    return text_of(x, rechain(lines)), i + 1, "roll in dice epoch 0, which is not open"


@case("dice")
def key_added(x):
    lines = x.lines()
    i = at(lines, "DiceRolled")
    lines[i]["umpire_note"] = "Red rolled this twice"
    return text_of(x, lines), i + 1, "unexpected keys umpire_note"


@case("dice")
def key_added_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceRolled")
    lines[i]["umpire_note"] = "Red rolled this twice"
    return text_of(x, rechain(lines)), i + 1, "unexpected keys umpire_note"


@case("dice")
def die_of_more_than_2_64_sides(x):
    lines = x.lines()
    i = at(lines, "DiceRolled")
    lines[i]["data"]["dice"][0].update(sides=2**64 + 1, value=1)
    # format 2 (RFC 8785) has no encoding for such a number: the line cannot even be hashed
    why = "a d18446744073709551617 is not a die (2 to 2**64 sides)" if format_of(lines) == 1 else "cannot be hashed"
    return text_of(x, rechain(lines)), i + 1, why


@case("dice")
def float_written_for_an_int(x):
    lines = x.lines()
    if format_of(lines) != 1:
        return None  # RFC 8785 writes 0.0 as 0: format 2 hashes the same bytes, the same value
    i = at(lines, "DiceRolled")
    text = text_of(x, lines)
    text[i] = text[i].replace('"epoch": 0', '"epoch": 0.0', 1)  # the same number to Python's ==, not to the hash
    assert text[i] != text_of(x, lines)[i]
    return text, i + 1, "hash does not match"


@case("dice")
def line_of_another_game(x):
    lines = x.lines()
    i = at(lines, "OrderAccepted", 1)
    lines[i]["game_id"] = "00000000-0000-4000-8000-000000000000"
    return text_of(x, rechain(lines)), i + 1, "belongs to game 00000000-0000-4000-8000-000000000000"


@case("dice")
def not_json(x):
    text = list(x.text)
    text[3] = text[3][:-1]
    return text, 4, "not JSON"


@case("dice")
def empty_line(x):
    text = list(x.text)
    text.insert(2, "   ")
    return text, 3, "empty line"


@case("dice")
def not_an_object(x):
    text = list(x.text)
    text[1] = "[1, 2]"
    return text, 2, "not a JSON object"


@case("dice")
def key_written_twice_with_a_forged_value_first(x):
    text, lines = list(x.text), x.lines()
    i = at(lines, "DiceRolled", 1)  # Red's d10; its hash is over the last value, the real one
    forged = lines[i]["data"]["dice"][0]["value"] % 10 + 1
    text[i + len(x.header)] = re.sub(r'"dice": ?\[\{', lambda m: f'{m[0]}"value":{forged},', text[i + len(x.header)],
                                     count=1)
    return text, i + 1, "the key 'value' is written twice in one object"


@case("dice")
def line_key_written_twice(x):
    text = list(x.text)
    i = at(x.lines(), "OrderAccepted", 1)
    text[i + len(x.header)] = '{"type": "OrderRejected", ' + text[i + len(x.header)][1:]
    return text, i + 1, "the key 'type' is written twice in one object"


@case("signed")
def header_key_written_twice(x):
    text = list(x.text)
    other = signatures.public_key_of(signatures.new_private_key())
    # a reader taking the first server key would check the signatures against another key
    text[0] = re.sub(r'^\{"warlog_export": ?\{', lambda m: f'{m[0]}"server_key":"{other}",', text[0])
    return text, 1, "the key 'server_key' is written twice in one object"


@case("signed")
def signed_order_altered_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="o-1")
    lines[i]["data"]["order"]["purpose"] = "a purpose Blue never gave"
    return text_of(x, rechain(lines, i)), i + 1, "is not seat Blue's of order 'o-1' as recorded here"


def _server_signs_for_red(x, lines: list[dict], i: int, key) -> list[dict]:
    """The server's forgery from line ``i`` on: Red's order r-1 and (format 2) its concession signed
    with ``key`` over the head of the line before ``i``, as if Red held it."""
    game_id, head = lines[0]["game_id"], lines[i - 1]["hash"]
    like = lines[at(lines, "OrderSigned")]
    j = at(lines, "OrderAccepted", order_id="r-1")
    signed = {"order_id": "r-1", "seat": "Red", "head": head,
              "signature": signatures.sign_order(key, game_id, "r-1", lines[j]["data"]["order"], head)}
    lines.insert(j + 1, {**copy.deepcopy(like), "data": signed})
    if format_of(lines) == 2:  # a keyed seat's concession is signed too
        k = at(lines, "Conceded")
        command = copy.deepcopy(lines[at(lines, "CommandSigned")])
        command["data"] = {**command["data"], "kind": "concede", "seat": "Red", "head": head,
                           "signature": signatures.sign_command(key, game_id, "concede", "Red", {}, head)}
        lines.insert(k + 1, command)
    return lines


@case("signed")
def key_registered_for_a_seat_long_after_its_join(x):
    lines = x.lines()
    forger = signatures.new_private_key()  # the server's: Red registered no key
    i = at(lines, "OrderAccepted", order_id="r-1")
    lines.insert(i, {**copy.deepcopy(lines[at(lines, "SeatKeyRegistered")]),
                     "data": {"seat": "Red", "public_key": signatures.public_key_of(forger)}})
    lines = _server_signs_for_red(x, lines, i + 1, forger)
    return text_of(x, rechain(lines)), i + 1, "Red's key is not registered right after its SeatJoined"


@case("signed")
def key_registered_a_second_time_for_a_seat(x):
    lines = x.lines()
    game_id, forger = lines[0]["game_id"], signatures.new_private_key()
    j = at(lines, "OrderAccepted", order_id="o-2")  # the server's key for Blue, before Blue's second order
    lines.insert(j, {**copy.deepcopy(lines[at(lines, "SeatKeyRegistered")]),
                     "data": {"seat": "Blue", "public_key": signatures.public_key_of(forger)}})
    signed = lines[j + 2]["data"]
    signed["signature"] = signatures.sign_order(forger, game_id, "o-2", lines[j + 1]["data"]["order"], signed["head"])
    if format_of(lines) == 2:  # Blue's signed change of client seed, signed again by the server
        command = lines[at(lines, "CommandSigned", seat="Blue")]["data"]
        command["signature"] = signatures.sign_command(forger, game_id, "client_seed", "Blue", {"client_seed": "b-2"},
                                                       command["head"])
    return text_of(x, rechain(lines)), j + 1, "Blue's key is registered a second time"


@case("signed")
def signed_order_replayed(x):
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="o-2")  # Blue's signed note, recorded a second time
    lines[i + 2:i + 2] = copy.deepcopy(lines[i:i + 2])
    return text_of(x, rechain(lines)), i + 3, "order 'o-2' was accepted before, on line"


@case("signed")
def signature_dropped_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="o-2")
    del lines[i + 1]
    return text_of(x, rechain(lines, i)), i + 1, "who registered a key, is not followed by its signature"


@case("signed")
def signature_forged_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderSigned", order_id="o-1")
    data = lines[i]["data"]
    forger = signatures.new_private_key()  # the server's own forgery: not Blue's key
    data["signature"] = signatures.sign_order(forger, lines[0]["game_id"], "o-1", x.secret["orders"]["o-1"], data["head"])
    return text_of(x, rechain(lines, i)), i, "the signature on line"


@case("signed")
def signature_moved_to_another_order(x):
    lines = x.lines()
    first, second = at(lines, "OrderSigned", order_id="o-1"), at(lines, "OrderSigned", order_id="o-2")
    lines[second]["data"]["signature"] = lines[first]["data"]["signature"]
    return text_of(x, rechain(lines, first)), second, "is not seat Blue's of order 'o-2'"


@case("signed")
def head_after_the_order(x):
    lines = x.lines()
    i = at(lines, "OrderSigned", order_id="o-1")
    lines[i]["data"]["head"] = lines[i - 1]["hash"]  # the order's own line: not a head the seat could have seen
    return text_of(x, rechain(lines, i)), i, "the signature on line"


@case("signed")
def key_swapped_rechained(x):
    lines = x.lines()
    i = at(lines, "SeatKeyRegistered")
    lines[i]["data"]["public_key"] = signatures.public_key_of(signatures.new_private_key())
    first = at(lines, "OrderAccepted", order_id="o-1")
    return text_of(x, rechain(lines, i)), first + 1, "is not seat Blue's of order 'o-1'"


@case("signed")
def one_key_for_two_seats_order_moved(x):
    """Red registered Blue's public key at its join (a public key is public), and the server records
    Blue's signed note as Red's: an order's signed bytes do not name its seat, so Blue's signature
    verifies as Red's. The file is cut after it, as a game still being played is exported. Blue
    signs over heads that include Red's join (format 1's file keeps no key of Blue's to sign with)."""
    if "key" not in x.secret:
        return None
    lines = x.lines()
    game_id, blue = lines[0]["game_id"], lines[at(lines, "SeatKeyRegistered", seat="Blue")]
    i = at(lines, "SeatJoined", seat="Red") + 1
    lines.insert(i, {**copy.deepcopy(blue), "data": {"seat": "Red", "public_key": blue["data"]["public_key"]}})
    j = at(lines, "OrderAccepted", order_id="o-2")
    lines = lines[:j + 2]
    lines[j]["data"]["seat"] = lines[j + 1]["data"]["seat"] = "Red"
    for k in (at(lines, "OrderSigned", order_id="o-1"), j + 1):  # Blue signs each over the line before its order
        rechain(lines)
        signed = lines[k]["data"]
        signed["head"] = lines[k - 2]["hash"]
        signed["signature"] = signatures.sign_order(x.secret["key"], game_id, signed["order_id"],
                                                    lines[k - 1]["data"]["order"], signed["head"])
    return text_of(x, rechain(lines)), i + 1, "seat Red's key is the key seat Blue registered on line"


@case("signed")
def order_of_a_seat_the_game_lacks_rechained(x):
    """After the kept head (which covers no line after it), the server records an order under the name
    "Blue" with a zero-width space after it, shown as Blue: no seat of the game has that name, so none
    has a key to sign with, and the unsigned order verified as if a seat without a key had given it."""
    lines = x.lines()
    i = at(lines, "Conceded")
    forged = copy.deepcopy(lines[at(lines, "OrderAccepted", seat="Red")])
    forged["data"].update(order_id="x-1", seat="Blue\u200b", order={"kind": "note", "text": "Blue offers a draw"})
    lines.insert(i, forged)
    return text_of(x, rechain(lines)), i + 1, "names seat 'Blue\\u200b', which is not a seat of this game"


@case("sealed")
def sealed_order_carried_out_changed_rechained(x):
    """The server carries out another order than the one Blue revealed (and signed): a note "retreat"
    under the id of Blue's revealed note "hold". The reveal verified against its commitment and its
    signature, and the order carried out under its id was never held against it."""
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="sealed:1:Blue:1")
    lines[i]["data"]["order"] = {"kind": "note", "text": "retreat"}
    return text_of(x, rechain(lines)), i + 1, "is not order 1 of the orders Blue revealed for round 1"


@case("sealed")
def sealed_order_moved_to_another_seat_rechained(x):
    """Red's revealed roll carried out as Blue's, under its own id."""
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="sealed:1:Red:0")
    lines[i]["data"]["seat"] = "Blue"
    return text_of(x, rechain(lines)), i + 1, "is not order 0 of the orders Red revealed for round 1"


@case("sealed")
def sealed_order_never_revealed_rechained(x):
    """An order carried out as Blue's third sealed order of round 1, though Blue revealed two."""
    lines = x.lines()
    i = at(lines, "OrderAccepted", order_id="sealed:1:Blue:1")
    forged = copy.deepcopy(lines[i])
    forged["data"].update(order_id="sealed:1:Blue:2", order={"kind": "note", "text": "surrender the ford"})
    lines.insert(i + 1, forged)
    return text_of(x, rechain(lines)), i + 2, "'sealed:1:Blue:2' carries out no order revealed before it"


@case("signed")
def order_of_a_keyed_seat_as_a_timeout_pass_rechained(x):
    """After the kept head, the server records an order as Blue's under a "timeout:" id, the ids of the
    passes it gives a late seat (TC 4), which are unsigned: in a game with no time control, with no
    TimedOut before it, any order of a keyed seat could be written so."""
    lines = x.lines()
    i = at(lines, "Conceded")
    forged = copy.deepcopy(lines[at(lines, "OrderAccepted", seat="Red")])
    forged["data"].update(order_id=f"timeout:{i + 1}", seat="Blue", order={"kind": "note", "text": "Blue offers a draw"})
    lines.insert(i, forged)
    return text_of(x, rechain(lines)), i + 1, "is recorded as the server's pass for seat Blue at a timeout"


@case("signed")
def keyed_seat_joined_again_with_a_chosen_seed_rechained(x):
    """Blue's client seed can change only by its ClientSeedChanged, which Blue signs; a second
    SeatJoined of Blue, unsigned, set it all the same (and with it the next epoch's client entropy,
    which a server trying seed after seed could so choose). Added after every line Blue signed."""
    lines = x.lines()
    i = at(lines, "Conceded")
    forged = copy.deepcopy(lines[at(lines, "SeatJoined", seat="Blue")])
    forged["data"]["client_seed"] = "chosen by the server"
    lines.insert(i, forged)
    return text_of(x, rechain(lines)), i + 1, "seat Blue joined before, on line"


def signed_commands(lines: list[dict]) -> bool:
    """Whether Blue's client-seed change is signed (format 2; the format-1 file's is not)."""
    return any(line["type"] == "CommandSigned" for line in lines)


@case("signed")
def command_signature_dropped_rechained(x):
    lines = x.lines()
    if not signed_commands(lines):
        return None
    i = at(lines, "ClientSeedChanged", seat="Blue")
    del lines[i + 1]
    return (text_of(x, rechain(lines, i)), i + 1, "the client seed command (ClientSeedChanged) of seat Blue, who "
                                                  "registered a key, is not followed by its signature (CommandSigned)")


@case("signed")
def signed_command_altered_rechained(x):
    lines = x.lines()
    if not signed_commands(lines):
        return None
    i = at(lines, "ClientSeedChanged", seat="Blue")
    lines[i]["data"]["client_seed"] = "a seed the server chose"
    return text_of(x, rechain(lines, i)), i + 1, "is not seat Blue's of its client_seed command as recorded here"


@case("signed")
def command_signature_relabelled_rechained(x):
    lines = x.lines()
    if not signed_commands(lines):
        return None
    i = at(lines, "CommandSigned", seat="Blue")
    lines[i]["data"]["kind"] = "concede"  # the same signature passed off as a concession's
    return (text_of(x, rechain(lines, i)), i + 1,
            "CommandSigned names the concede command of Blue, not the client_seed command (ClientSeedChanged)")


@case("signed")
def truncated_before_the_kept_head(x):
    # The header and the lines before Blue's last order (the head is its OrderSigned): a sound chain.
    text = x.text[:x.head["seq"] - 1]
    return Tampered("truncated_before_the_kept_head", "signed", text, x.head["seq"],
                    "the log was cut short", head=x.head)


@case("signed")
def rewritten_at_the_kept_head(x):
    lines = x.lines()
    n = x.head["seq"]
    lines[n - 1]["timestamp"] = "2020-01-01T00:00:00+00:00"
    return Tampered("rewritten_at_the_kept_head", "signed", text_of(x, rechain(lines, n - 1)), n,
                    "the log was rewritten", head=x.head)


@case("signed")
def forged_kept_head(x):
    return Tampered("forged_kept_head", "signed", list(x.text), 0, "kept head: the head's signature is not the server key's",
                    head={**x.head, "hash": "b" * 64})


@case("signed")
def kept_head_of_another_game(x):
    other = signatures.sign_head(x.secret["server"], "another-game", x.head["seq"], x.head["hash"])
    return Tampered("kept_head_of_another_game", "signed", list(x.text), 0, "the kept head is of game another-game",
                    head=other)


@case("signed")
def kept_head_naming_a_key_twice(x):
    # Read as json.loads reads it (the last value), the head is the one the server signed; a reader
    # taking the first value reads a head the server never signed.
    text = '{"hash":"' + "b" * 64 + '",' + json.dumps(x.head)[1:]
    return Tampered("kept_head_naming_a_key_twice", "signed", list(x.text), 0,
                    "kept head: the key 'hash' is written twice in one object", head=text)


@case("signed")
def kept_head_without_a_server_key(x):
    return Tampered("kept_head_without_a_server_key", "signed", x.text[1:], 0, "names no server key", head=x.head)


@case("signed")
def header_names_another_server_key(x):
    text = [header_line(signatures.public_key_of(signatures.new_private_key()))] + x.text[1:]
    return Tampered("header_names_another_server_key", "signed", text, 0, "not the server key's", head=x.head)


@case("sealed")
def sealed_reveal_altered_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderRevealed", seat="Red")
    lines[i]["data"]["orders"][0]["dice"] = "3d6"
    return text_of(x, rechain(lines)), i + 1, "the orders Red revealed for round 1 do not match its commitment"


@case("sealed")
def sealed_salt_altered_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderRevealed", seat="Blue")
    lines[i]["data"]["salt"] = "0" * 32
    return text_of(x, rechain(lines)), i + 1, "the orders Blue revealed for round 1 do not match its commitment"


@case("sealed")
def sealed_commitment_dropped_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderSealed", seat="Blue")
    del lines[i:i + (2 if lines[i + 1]["type"] == "SealedOrdersSigned" else 1)]  # with its signature, if signed
    i = at(lines, "OrderRevealed", seat="Blue")
    return text_of(x, rechain(lines)), i + 1, "Blue revealed orders for round 1 without a commitment before them"


@case("sealed")
def sealed_reveal_replayed_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderRevealed", seat="Blue")
    signed = lines[i + 1]["type"] == "SealedOrdersSigned"  # format 2: with its signature, still over a line before
    j = len(lines) - 2  # replayed near the end, before the game's last lines
    lines[j:j] = copy.deepcopy(lines[i:i + (2 if signed else 1)])
    return text_of(x, rechain(lines)), j + 1, "Blue revealed its orders for round 1 twice"


@case("sealed")
def sealed_twice_rechained(x):
    lines = x.lines()
    i = at(lines, "OrderSealed", seat="Red")
    lines.insert(i + 1, copy.deepcopy(lines[i]))
    return text_of(x, rechain(lines)), i + 2, "Red sealed its orders for round 1 twice"


def signed_sealed(lines: list[dict]) -> bool:
    """Whether Blue's seal and reveal are signed (format 2; the format-1 file has no key)."""
    return any(line["type"] == "SealedOrdersSigned" for line in lines)


@case("sealed")
def seal_signature_dropped_rechained(x):
    lines = x.lines()
    if not signed_sealed(lines):
        return None
    i = at(lines, "OrderSealed", seat="Blue")
    del lines[i + 1]
    return (text_of(x, rechain(lines, i)), i + 1,
            "the seal of seat Blue, who registered a key, for round 1 is not followed by its signature")


@case("sealed")
def reveal_signature_forged_rechained(x):
    lines = x.lines()
    if not signed_sealed(lines):
        return None
    i = at(lines, "SealedOrdersSigned", kind="reveal")
    data = lines[i]["data"]
    forger = signatures.new_private_key()  # the server's own forgery: not Blue's key
    data["signature"] = signatures.sign_reveal(forger, lines[0]["game_id"], "Blue", 1, x.secret["orders"]["Blue"],
                                               x.secret["salts"]["Blue"], data["head"])
    return text_of(x, rechain(lines, i)), i, "is not seat Blue's of its reveal for round 1"


@case("sealed")
def seal_signature_replayed_as_the_reveals(x):
    lines = x.lines()
    if not signed_sealed(lines):
        return None
    seal, reveal = at(lines, "SealedOrdersSigned", kind="seal"), at(lines, "SealedOrdersSigned", kind="reveal")
    lines[reveal]["data"].update(head=lines[seal]["data"]["head"], signature=lines[seal]["data"]["signature"])
    return text_of(x, rechain(lines, reveal)), reveal, "is not seat Blue's of its reveal for round 1"


@case("sealed")
def seal_signature_moved_after_the_reveal(x):
    lines = x.lines()
    if not signed_sealed(lines):
        return None
    seal, reveal = at(lines, "SealedOrdersSigned", kind="seal"), at(lines, "SealedOrdersSigned", kind="reveal")
    lines[reveal]["data"] = copy.deepcopy(lines[seal]["data"])
    return (text_of(x, rechain(lines, reveal)), reveal + 1,
            f"SealedOrdersSigned names the seal of Blue for round 1, not the reveal of Blue for round 1 on line {reveal}")


@case("sealed")
def sealed_commitment_rewritten_rechained(x):
    lines = x.lines()
    if not signed_sealed(lines):
        return None
    i = at(lines, "OrderSealed", seat="Blue")
    lines[i]["data"]["commitment"] = sealed.commitment(lines[0]["game_id"], "Blue", 1, [], x.secret["salts"]["Blue"])
    return text_of(x, rechain(lines, i)), i + 1, "is not seat Blue's of its seal for round 1"


@case("sealed")
def sealed_roll_altered_rechained(x):
    lines = x.lines()
    i = at(lines, "DiceRolled", seat="Red")
    lines[i]["data"]["dice"][0]["value"] = lines[i]["data"]["dice"][0]["value"] % 6 + 1
    return text_of(x, rechain(lines)), i + 1, "but the revealed seed gives"


@case("seat_copy")
def seat_copy_with_a_redacted_line(x):
    """Not tampered: a seat's copy of a format-1 game with hidden information fails by design (a
    format-2 copy holds commitments instead, and verifies: tests/unit/test_concealed.py)."""
    lines = x.lines()
    i = next((n for n, line in enumerate(lines) if line.get("redacted")), None)
    if i is None:
        return None
    return list(x.text), i + 1, "redacted"


def tampered(exports: dict[str, Export]) -> list[Tampered]:
    return [build(exports[export]) for _, export, build in CASES]


def case_ids() -> list[str]:
    return [name for name, _, _ in CASES]


# ------------------------------------------------------------------------ random tampering ----
# Values a careless or hostile editor might put anywhere: wrong types, edge numbers (2**64 + 1 is
# no die; 1.0 equals 1 but hashes otherwise), ids that look like the real ones.
ODD_VALUES = [None, True, False, 0, 1, -1, 1.0, 2.5, -0.0, 1e20, 2**64, 2**64 + 1, 3, 6, 7, "", "x", "0" * 64,
              "sealed:1:Blue:0", "Blue", "Red", [], {}, [1], {"a": 1}]


def _mutate(value, rng: random.Random) -> None:
    """Change one thing somewhere inside ``value``: drop a key or item, or put an odd value there."""
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    if not keys:
        return
    k = rng.choice(keys)
    roll = rng.random()
    if roll < 0.15:
        del value[k]
    elif roll < 0.6 and isinstance(value[k], (dict, list)) and value[k]:
        _mutate(value[k], rng)
    else:
        value[k] = copy.deepcopy(rng.choice(ODD_VALUES))


def random_tampers(exports: dict[str, Export], seed: int, count: int) -> list[Tampered]:
    """``count`` files each changed in one to three places at random (seeded), most of them with
    every hash recomputed after (so the checks behind the chain's are reached), half of them
    checked against the kept head. What either verifier says of them is not stated here: they are
    for comparing the two (tests/browser/test_browser_verify.py)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        x = exports[rng.choice(["dice", "signed", "sealed"])]
        lines = x.lines()
        for _ in range(rng.randint(1, 3)):
            line = rng.choice(lines)
            _mutate(line["data"] if rng.random() < 0.8 and isinstance(line.get("data"), dict) else line, rng)
        if rng.random() < 0.7:
            try:
                rechain(lines)
            except (KeyError, TypeError):
                continue  # a line with no hash to recompute: left for the cases above
        out.append(Tampered(f"random-{seed}-{len(out)}", x.name, text_of(x, lines), 0, "",
                            head=x.head if rng.random() < 0.5 else None))
    return out
