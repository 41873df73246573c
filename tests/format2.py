"""Format-2 exports written from the spec (issue 34's spec34.md, docs/dice.md "Format 2"), for
checking verifiers against it while the aggregate that records format 2 in full is being built.

A real game is played on the aggregate alone (``domain.game.Game``, seeds known here), then its
lines are made into what a format-2 game records, as the spec states it, with only the spec's
shared functions (``chain.line_hash(line, 2)``, ``chain.field_commitment``, ``dice.face2``,
``dice.client_entropy_v2``):

- the open stream's seeds committed one epoch ahead (``DiceCommitted{stream: "open"}``: epoch 0
  right after GameCreated, epoch N+1 right after ``DiceEpochOpened{N}``), the sealed stream's at
  creation (``DiceCommitted{stream: "sealed", epoch: 0}``);
- each epoch's client entropy H(JCS({orders, seeds})) of the orders accepted since the epoch
  before and the seats' client seeds; each die by scheme 2 (its input: the id of the last order
  accepted before its roll);
- a sealed roll (``SealedDiceRolled``) after Blue's second order, its dice, outcome and target
  concealed, revealed by ``SealedDiceRevealed`` after the last epoch's reveal at the game's end;
- Blue registered a key and signs its orders: each OrderSigned's head is the hash of the line
  before its order (rewritten with the hashes) and its signature made again over it; the private
  note's signature is concealed with the note;
- Blue's private note with its ``order`` concealed;
- the header line ``{"warlog_export": {"version": 2, "server_key": …}}``.

``full`` is the umpire's copy (every salt there); ``seat`` is Red's copy, where Blue's sealed
roll and private note hold their commitments and no salt (and still hash the same).
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid

from domain import chain, dice, signatures
from domain.game import Game
from domain.verify import dumps
from tests.tampers import Export

GAME_ID = uuid.UUID("3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b")
SEALED_SEED = hashlib.sha256(b"warlog format 2 sealed stream").digest()


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"warlog format 2 epoch {epoch}".encode()).digest()


BLUE_KEY = signatures.private_key_from_text(signatures.b64url(hashlib.sha256(b"warlog format 2 Blue").digest()))


def salt(name: str) -> str:
    return hashlib.sha256(f"salt of {name}".encode()).hexdigest()


ORDERS = [
    ("Blue", "b-1", {"kind": "roll", "dice": "2d6", "purpose": "barrage"}),
    ("Blue", "b-2", {"kind": "note", "text": "the ford is mined", "private": True}),
    ("Red", "r-1", {"kind": "roll", "dice": "d10", "purpose": "morale", "target": {"compare": "<=", "value": 7}}),
    ("Blue", "b-3", {"kind": "advance"}),
    ("Red", "r-2", {"kind": "advance"}),  # the turn ends: epoch 0 revealed, epoch 1 opened
    ("Red", "r-3", {"kind": "roll", "dice": "3d6", "purpose": "assault"}),
    ("Blue", "b-4", {"kind": "roll", "dice": "d66", "purpose": "event"}),
]
SEALED_AFTER = "b-2"  # the sealed roll follows this order
PRIVATE = "b-2"  # the order whose body is concealed


def played() -> list[dict]:
    """The game on the aggregate, as export lines (its own format's hashes: rewritten below)."""
    from domain.verify import to_line

    game = Game.create("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}, game_id=GAME_ID,
                       seed_for=seed_for)
    game.join("Blue", "blue-player", "seed-Blue", seed_for, public_key=signatures.public_key_of(BLUE_KEY))
    game.join("Red", "red-player", "seed-Red", seed_for)
    for seat, order_id, order in ORDERS:
        signed = None
        if seat == "Blue":
            head = game.chain_head
            signed = (signatures.sign_order(BLUE_KEY, str(GAME_ID), order_id, order, head), head, lambda h: True)
        game.submit(seat, order_id, order, seed_for, signed)
    game.concede("Red", seed_for)
    return [to_line(e) for e in game.pending_events]


def line(type_: str, data: dict, like: dict) -> dict:
    return {"game_id": like["game_id"], "seq": 0, "type": type_, "timestamp": like["timestamp"], "data": data,
            "prev_hash": "", "hash": ""}


def rechain(lines: list[dict]) -> list[dict]:
    """Number, link and hash the lines as format 2; each OrderSigned signed again over the hash of
    the line before its order (Blue signs what it saw)."""
    prev = chain.GENESIS
    for n, one in enumerate(lines, start=1):
        if one["type"] == "OrderSigned":
            order, seen = lines[n - 2]["data"], lines[n - 3]["hash"]
            one["data"]["head"] = seen
            one["data"]["signature"] = signatures.sign_order(BLUE_KEY, one["game_id"], order["order_id"], order["order"], seen)
        one["seq"], one["prev_hash"] = n, prev
        one["hash"] = prev = chain.line_hash(one, 2)
    return lines


def full_lines() -> list[dict]:
    """The umpire's copy: every line as format 2 records it, every salt there."""
    out: list[dict] = []
    seeds = {"Blue": "", "Red": ""}
    orders: list[str] = []
    last_order = ""
    entropy: dict[int, str] = {}
    sealed_nonce = 0
    for one in played():
        if one["type"] in ("DiceCommitted", "SealedDiceRevealed"):
            continue  # the aggregate records them too now: written below as the spec states them
        data = one["data"]
        out.append(one)
        if one["type"] == "GameCreated":
            data["format"] = 2
            out.append(line("DiceCommitted", {"stream": "open", "epoch": 0,
                                              "commitment": dice.commitment(seed_for(0))}, one))
            out.append(line("DiceCommitted", {"stream": "sealed", "epoch": 0,
                                              "commitment": dice.commitment(SEALED_SEED)}, one))
        elif one["type"] in ("SeatJoined", "ClientSeedChanged"):
            seeds[data["seat"]] = data["client_seed"]
        elif one["type"] == "OrderAccepted":
            orders.append(data["order_id"])
            last_order = data["order_id"]
            if last_order == PRIVATE:
                data["concealed"] = {"order": salt("order")}
        elif one["type"] == "OrderSigned" and data["order_id"] == PRIVATE:
            data["concealed"] = {"signature": salt("signature")}
        elif one["type"] == "DiceEpochOpened":
            n = data["epoch"]
            data["client_entropy"] = entropy[n] = dice.client_entropy_v2(orders, seeds)
            orders = []
            out.append(line("DiceCommitted", {"stream": "open", "epoch": n + 1,
                                              "commitment": dice.commitment(seed_for(n + 1))}, one))
        elif one["type"] == "DiceRolled":
            n = data["epoch"]
            for die in data["dice"]:
                die["value"] = dice.face2(seed_for(n), one["game_id"], n, entropy[n], last_order, die["nonce"], die["sides"])
        if one["type"] == "OrderSigned" and last_order == SEALED_AFTER:
            open_epoch = max(entropy)
            faces = [{"nonce": sealed_nonce, "sides": 6,
                      "value": dice.face2(SEALED_SEED, one["game_id"], open_epoch, entropy[open_epoch], last_order,
                                          sealed_nonce, 6)}]
            sealed_nonce += 1
            out.append(line("SealedDiceRolled", {
                "epoch": open_epoch, "dice": faces, "notation": "1d6", "seat": "Blue", "purpose": "hidden refit",
                "rule": "FF 9", "units": [], "target": {"compare": ">=", "value": 4},
                "outcome": "success" if faces[0]["value"] >= 4 else "failure", "replaces": None,
                "concealed": {"dice": salt("dice"), "outcome": salt("outcome"), "target": salt("target")}}, one))
    out.append(line("SealedDiceRevealed", {"seed": SEALED_SEED.hex()}, out[-1]))
    return rechain(out)


def seat_copy(full: list[dict], hide=("SealedDiceRolled", "OrderAccepted", "OrderSigned")) -> list[dict]:
    """Red's copy: each concealed field of Blue's hidden lines replaced by its commitment, its salt
    by null; nothing else changes, so every hash still matches."""
    out = copy.deepcopy(full)
    for one in out:
        salts = one["data"].get("concealed")
        if one["type"] in hide and salts:
            for name, s in salts.items():
                one["data"][name] = chain.field_commitment(name, s, one["data"][name])
                salts[name] = None
    return out


def exports() -> dict[str, Export]:
    server = signatures.private_key_from_text(signatures.b64url(hashlib.sha256(b"warlog format 2 server").digest()))
    key = signatures.public_key_of(server)
    header = dumps({"warlog_export": {"version": 2, "server_key": key}})
    full = full_lines()
    last = full[-1]
    head = signatures.sign_head(server, last["game_id"], last["seq"], last["hash"])
    made = {}
    for name, lines in (("f2_full", full), ("f2_seat", seat_copy(full))):
        made[name] = Export(name, [header] + [dumps(one) for one in lines], head=head, server_key=key,
                            secret={"server": server})
    return made


def lines_of(x: Export) -> list[dict]:
    return [json.loads(t) for t in x.text[1:]]


# ------------------------------------------------------------------------- tampered copies ----
# Each case: a change to a format-2 export, the line a verifier must name first and a part of the
# browser verifier's reason (domain/verify.py words its own; the lines must agree). The forger
# here holds every key and rewrites every hash after its change (``rechain``), so only the dice,
# the commitments and the client entropy can give it away.
CASES: list = []


def case(export: str):
    def register(make):
        def build(x: Export):
            from tests.tampers import Tampered

            text, line_no, why = make(x)
            return Tampered(make.__name__, export, text, line_no, why)
        CASES.append((make.__name__, export, build))
        return make
    return register


def text_of(x: Export, lines: list[dict]) -> list[str]:
    return x.text[:1] + [dumps(one) for one in lines]


def index(lines: list[dict], type_: str, nth: int = 0, **data) -> int:
    found = [i for i, one in enumerate(lines) if one["type"] == type_
             and all(one["data"].get(k) == v for k, v in data.items())]
    return found[nth]


@case("f2_full")
def open_die_altered(x):
    lines = lines_of(x)
    i = index(lines, "DiceRolled", seat="Red")
    lines[i]["data"]["dice"][0]["value"] = lines[i]["data"]["dice"][0]["value"] % 10 + 1
    return text_of(x, rechain(lines)), i + 1, "but the revealed seed gives"


@case("f2_full")
def roll_under_another_input(x):
    lines = lines_of(x)
    i = index(lines, "OrderAccepted", order_id="r-3")
    lines[i]["data"]["order_id"] = "r-9"  # the roll after it was made with another input
    return text_of(x, rechain(lines)), i + 2, "but the revealed seed gives"


@case("f2_full")
def client_entropy_altered(x):
    lines = lines_of(x)
    i = index(lines, "DiceEpochOpened", epoch=1)
    lines[i]["data"]["client_entropy"] = hashlib.sha256(b"ground").hexdigest()
    return text_of(x, rechain(lines)), i + 1, "the client entropy of dice epoch 1 is not the hash"


@case("f2_full")
def client_seed_altered(x):
    lines = lines_of(x)
    lines[index(lines, "SeatJoined", seat="Red")]["data"]["client_seed"] = "seed-Rex"
    return text_of(x, rechain(lines)), index(lines, "DiceEpochOpened", epoch=0) + 1, "the client entropy of dice epoch 0"


@case("f2_full")
def order_left_out_of_the_client_entropy(x):
    lines = lines_of(x)
    i = index(lines, "DiceEpochOpened", epoch=1)
    orders = [one["data"]["order_id"] for one in lines[:i] if one["type"] == "OrderAccepted"]
    lines[i]["data"]["client_entropy"] = dice.client_entropy_v2(orders[1:], {"Blue": "seed-Blue", "Red": "seed-Red"})
    return text_of(x, rechain(lines)), i + 1, "the client entropy of dice epoch 1"


@case("f2_full")
def commitment_recorded_after_an_input(x):
    lines = lines_of(x)
    i = index(lines, "DiceCommitted", stream="open", epoch=1)
    moved = lines.pop(i)
    j = index(lines, "OrderAccepted", order_id="r-1")
    lines.insert(j + 1, moved)  # committed once Blue's orders of the epoch were known
    return text_of(x, rechain(lines)), j + 2, "was recorded after line"  # reported at the commitment


@case("f2_full")
def commitment_recorded_after_every_input_for_an_epoch_numbered_past_the_next(x):
    lines = lines_of(x)
    # The server skips epoch 1 (committed before its inputs) and opens "epoch 7" instead, whose
    # seed it committed to only once every order of the epoch before was known.
    for one in lines:
        if one["type"] in ("DiceEpochOpened", "DiceRolled", "DiceEpochRevealed") and one["data"]["epoch"] == 1:
            one["data"]["epoch"] = 7
    i = index(lines, "DiceEpochOpened", epoch=7)
    entropy, last_order = lines[i]["data"]["client_entropy"], ""
    for one in lines[i:]:
        if one["type"] == "OrderAccepted":
            last_order = one["data"]["order_id"]
        elif one["type"] == "DiceRolled":
            for die in one["data"]["dice"]:
                die["value"] = dice.face2(seed_for(1), one["game_id"], 7, entropy, last_order, die["nonce"], die["sides"])
    j = index(lines, "TurnAdvanced")
    lines.insert(j + 1, line("DiceCommitted", {"stream": "open", "epoch": 7, "commitment": dice.commitment(seed_for(1))},
                             lines[j]))
    return text_of(x, rechain(lines)), j + 2, "was recorded after line"  # reported at the commitment


def _faces_of(lines: list[dict], epoch, nonce=lambda nonce: nonce, sides=lambda sides: sides) -> list[dict]:
    """Each die of open epoch 1 made again as the spec derives it with ``epoch``, its nonce written
    as ``nonce(nonce)`` and its sides as ``sides(sides)`` (the same value to RFC 8785: 3.0 is 3)."""
    entropy, last_order = lines[index(lines, "DiceEpochOpened", epoch=1)]["data"]["client_entropy"], ""
    for one in lines:
        if one["type"] == "OrderAccepted":
            last_order = one["data"]["order_id"]
        elif one["type"] == "DiceRolled" and one["data"]["epoch"] == 1:
            for die in one["data"]["dice"]:
                die["nonce"], die["sides"] = nonce(die["nonce"]), sides(die["sides"])
                die["value"] = int(dice.EpochDice(seed_for(1), one["game_id"], epoch, entropy).face(
                    die["nonce"], die["sides"], last_order))
    return lines


def _other_faces(x, lines: list[dict]) -> bool:
    """Whether the dice of epoch 1 differ from the faces the export holds (the spelling chose them)."""
    return [one["data"]["dice"] for one in lines if one["type"] == "DiceRolled"] != [
        one["data"]["dice"] for one in lines_of(x) if one["type"] == "DiceRolled"]


def _first_roll_of_epoch_1(lines: list[dict]) -> int:
    return next(n for n, one in enumerate(lines, start=1) if one["type"] == "DiceRolled" and one["data"]["epoch"] == 1)


@case("f2_full")
def die_nonces_written_as_floats_for_faces_of_the_servers_choice(x):
    lines = _faces_of(lines_of(x), 1, nonce=float)  # "…|3.0|0" is another message than "…|3|0"
    assert _other_faces(x, lines)
    return text_of(x, rechain(lines)), _first_roll_of_epoch_1(lines), "not written as whole numbers"


@case("f2_full")
def die_sides_written_as_floats_for_faces_of_the_servers_choice(x):
    lines = _faces_of(lines_of(x), 1, sides=float)  # 2**64 % 6.0 is float arithmetic: other faces
    return text_of(x, rechain(lines)), _first_roll_of_epoch_1(lines), "not written as whole numbers"


@case("f2_full")
def epoch_revealed_as_a_float_for_faces_of_the_servers_choice(x):
    lines = _faces_of(lines_of(x), 1.0)
    assert _other_faces(x, lines)
    lines[index(lines, "DiceEpochRevealed", epoch=1)]["data"]["epoch"] = 1.0
    return (text_of(x, rechain(lines)), index(lines, "DiceEpochRevealed", epoch=1) + 1,
            "is not written as a whole number")


@case("f2_full")
def sealed_roll_in_an_epoch_written_as_a_float_for_faces_of_the_servers_choice(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRolled")
    roll = lines[i]["data"]
    entropy = lines[index(lines, "DiceEpochOpened", epoch=0)]["data"]["client_entropy"]
    roll["epoch"] = 0.0  # "…|0.0|…" is another message than "…|0|…"
    for die in roll["dice"]:
        die["value"] = dice.EpochDice(SEALED_SEED, lines[i]["game_id"], 0.0, entropy).face(die["nonce"], die["sides"], "b-2")
    roll["outcome"] = "success" if roll["dice"][0]["value"] >= 4 else "failure"
    assert roll["dice"] != lines_of(x)[i]["data"]["dice"]
    return text_of(x, rechain(lines)), i + 1, "which is not written as a whole number"


@case("f2_full")
def sealed_dice_never_revealed_at_the_end(x):
    lines = lines_of(x)
    del lines[index(lines, "SealedDiceRevealed")]  # the server keeps the sealed seed
    return text_of(x, rechain(lines)), index(lines, "GameEnded") + 1, "the sealed dice were never revealed"


@case("f2_full")
def signature_held_as_a_commitment_beside_a_forged_order(x):
    lines = lines_of(x)
    i = index(lines, "OrderAccepted", order_id="b-4")  # Blue's last: no signature of Blue's is over a line after it
    lines[i]["data"]["order"] = {**lines[i]["data"]["order"], "purpose": "a purpose Blue never gave"}
    signed = lines[i + 1]["data"]  # no signature of Blue's could match: the server shows none
    signed["signature"], signed["concealed"] = hashlib.sha256(b"no signature").hexdigest(), {"signature": None}
    return text_of(x, relinked(lines)), i + 2, "held as a commitment, but what it signs is shown"


@case("f2_full")
def sealed_dice_committed_once_the_first_sealed_rolls_input_was_known(x):
    lines = lines_of(x)
    moved = lines.pop(index(lines, "DiceCommitted", stream="sealed"))
    i = index(lines, "SealedDiceRolled")
    lines.insert(i, moved)  # after every join and order before the roll: the seed could be ground
    return text_of(x, rechain(lines)), i + 1, "the sealed dice are committed after line"


@case("f2_full")
def sealed_dice_committed_as_another_epoch(x):
    lines = lines_of(x)
    i = index(lines, "DiceCommitted", stream="sealed")
    lines[i]["data"]["epoch"] = 1  # one seed per game, committed as epoch 0 (docs/dice.md, "Sealed rolls")
    return text_of(x, rechain(lines)), i + 1, "the sealed dice are committed as epoch 1, not 0"


def rederive(lines: list[dict], seeds: dict[str, str]) -> list[dict]:
    """Each client entropy and die made again as the spec derives them, the client seeds taken
    from ``seeds`` and every SeatJoined or ClientSeedChanged after (whatever its seat)."""
    orders: list[str] = []
    entropy: dict = {}
    last_order, open_epoch = "", None
    for one in lines:
        data = one["data"]
        if one["type"] in ("SeatJoined", "ClientSeedChanged"):
            seeds[data["seat"]] = data["client_seed"]
        elif one["type"] == "OrderAccepted":
            orders.append(data["order_id"])
            last_order = data["order_id"]
        elif one["type"] == "DiceEpochOpened":
            open_epoch = data["epoch"]
            data["client_entropy"] = entropy[open_epoch] = dice.client_entropy_v2(orders, seeds)
            orders = []
        elif one["type"] in ("DiceRolled", "SealedDiceRolled"):
            key = seed_for(data["epoch"]) if one["type"] == "DiceRolled" else SEALED_SEED
            for die in data["dice"]:
                die["value"] = dice.face2(key, one["game_id"], data["epoch"], entropy[data["epoch"]], last_order,
                                          die["nonce"], die["sides"])
            if one["type"] == "SealedDiceRolled":
                data["outcome"] = "success" if data["dice"][0]["value"] >= 4 else "failure"
    return lines


@case("f2_full")
def client_seed_of_a_seat_the_game_does_not_have(x):
    lines = lines_of(x)
    i = index(lines, "SeatJoined", seat="Red")
    # The server's own "Green", a seat of no GameCreated: its client seed, chosen after the commitment, is no input
    lines.insert(i + 1, line("SeatJoined", {"seat": "Green", "handle": "green", "client_seed": "ground"}, lines[i]))
    lines = rederive(lines, {"Blue": "", "Red": ""})
    return text_of(x, rechain(lines)), index(lines, "DiceEpochOpened", epoch=0) + 1, "the client entropy of dice epoch 0"


@case("f2_full")
def game_created_again_further_down(x):
    lines = lines_of(x)
    i = index(lines, "Conceded")
    lines.insert(i, copy.deepcopy(lines[0]))  # replayed on import, it would make the game anew from here
    return text_of(x, rechain(lines)), i + 1, "a game is created once, on line 1"


@case("f2_full")
def commitment_missing(x):
    lines = lines_of(x)
    del lines[index(lines, "DiceCommitted", stream="open", epoch=1)]
    return text_of(x, rechain(lines)), index(lines, "DiceEpochOpened", epoch=1) + 1, "no commitment to its seed"


@case("f2_full")
def commitment_not_repeated(x):
    lines = lines_of(x)
    i = index(lines, "DiceCommitted", stream="open", epoch=1)
    lines[i]["data"]["commitment"] = dice.commitment(b"another seed")
    return text_of(x, rechain(lines)), index(lines, "DiceEpochOpened", epoch=1) + 1, "another commitment than the one recorded on line"


@case("f2_full")
def sealed_die_altered(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRolled")
    lines[i]["data"]["dice"][0]["value"] = lines[i]["data"]["dice"][0]["value"] % 6 + 1
    return text_of(x, rechain(lines)), i + 1, "but the revealed sealed seed gives"


@case("f2_full")
def sealed_nonce_skipped(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRolled")
    lines[i]["data"]["dice"][0]["nonce"] = 1
    return text_of(x, rechain(lines)), i + 1, "sealed die nonce 1 where 0 was expected"


@case("f2_full")
def sealed_seed_altered(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRevealed")
    lines[i]["data"]["seed"] = hashlib.sha256(b"another sealed seed").hexdigest()
    return text_of(x, rechain(lines)), i + 1, "the sealed stream's seed does not match its commitment"


@case("f2_full")
def sealed_stream_never_committed(x):
    lines = lines_of(x)
    del lines[index(lines, "DiceCommitted", stream="sealed")]
    return text_of(x, rechain(lines)), index(lines, "SealedDiceRolled") + 1, "no commitment to the sealed stream's seed"


@case("f2_full")
def opened_value_altered(x):
    lines = lines_of(x)
    i = index(lines, "OrderAccepted", order_id=PRIVATE)
    lines[i]["data"]["order"]["text"] = "the ford is clear"  # its commitment changes with it: the hash does not match
    return text_of(x, lines), i + 1, "hash does not match"


@case("f2_seat")
def commitment_altered_in_a_seats_copy(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRolled")
    lines[i]["data"]["dice"] = hashlib.sha256(b"another roll").hexdigest()
    return text_of(x, lines), i + 1, "hash does not match"


@case("f2_seat")
def concealed_field_without_commitment(x):
    lines = lines_of(x)
    i = index(lines, "SealedDiceRolled")
    lines[i]["data"]["outcome"] = "success"  # no salt, no commitment: a value nobody can check
    return text_of(x, relinked(lines)), i + 1, "the concealed field outcome holds no commitment"


@case("f2_full")
def header_names_another_version(x):
    header = json.loads(x.text[0])
    header["warlog_export"]["version"] = 1
    return [dumps(header)] + x.text[1:], 1, "the header line says export version 1, but the game is of format 2"


@case("f2_full")
def signed_order_altered(x):
    lines = lines_of(x)
    i = index(lines, "OrderAccepted", order_id="b-4")
    lines[i]["data"]["order"]["purpose"] = "not what Blue sent"
    signature = lines[i + 1]["data"]["signature"]
    rechain(lines)
    lines[i + 1]["data"]["signature"] = signature  # the server cannot sign again as Blue
    return text_of(x, relinked(lines)), i + 1, "is not seat Blue's of order 'b-4'"


def relinked(lines: list[dict]) -> list[dict]:
    """Link and hash again without signing anything (a forger without the seat's key)."""
    prev = chain.GENESIS
    for n, one in enumerate(lines, start=1):
        one["seq"], one["prev_hash"] = n, prev
        one["hash"] = prev = chain.line_hash(one, 2)
    return lines


def order_id_concealed(x: Export) -> tuple[list[str], int]:
    """The full export with order r-3's id held as a commitment (no copy of a game whose ruleset
    shows every order is so made) and the die of Red's roll under it changed: the text, and the
    line of that roll. A server may write it so; the verifiers cannot check that roll."""
    lines = lines_of(x)
    i = index(lines, "OrderAccepted", order_id="r-3")
    data = lines[i]["data"]
    data["order_id"], data["concealed"] = chain.field_commitment("order_id", salt("order_id"), "r-3"), {"order_id": None}
    die = lines[i + 1]["data"]["dice"][0]
    die["value"] = die["value"] % 6 + 1
    return text_of(x, rechain(lines)), i + 2

