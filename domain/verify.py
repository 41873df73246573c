"""Offline verification of an exported game: the hash chain and every die of every revealed epoch.

Works from export lines alone (docs/dice.md), so an umpire can check a game without the server.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from domain import chain, dice, sealed, signatures
from domain.events import event_data

LINE_KEYS = ("game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash")
_LINE_KEY_SET = frozenset(LINE_KEYS)
_TWO_64 = 2**64
# The events _Dice reads: the dice of both schemes, and what scheme 2 mixes into them.
_DICE_EVENTS = ("DiceRolled", "DiceEpochOpened", "DiceEpochRevealed", "DiceCommitted", "GameCreated",
                "SeatJoined", "ClientSeedChanged", "OrderAccepted", "OrderSealed")
_SYSTEM = "system"  # the seat the server plays: no client seed (docs/dice.md)
# The optional first line of an export that names the server's key (docs/dice.md, section 5).
HEADER_KEY = "warlog_export"


def to_line(event: Any) -> dict:
    """An event as one export line (docs/dice.md), hash included."""
    return {
        "game_id": str(event.originator_id),
        "seq": event.originator_version,
        "type": type(event).__name__,
        "timestamp": event.timestamp.isoformat(),
        "data": event_data(event),
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def dumps(line: dict) -> str:
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Report:
    game_id: str | None = None
    events: int = 0
    chain_head: str = chain.GENESIS
    epochs_revealed: int = 0
    epochs_unrevealed: int = 0
    rolls_verified: int = 0
    dice_verified: int = 0
    rolls_unrevealed: int = 0
    # format 2: rolls, and client entropies, derived from an order id this copy holds as a commitment
    rolls_unchecked: int = 0
    entropies_unchecked: int = 0
    reveals_verified: int = 0  # sealed-orders reveals checked against their commitments
    # The sealed dice stream (docs/dice.md, "Sealed rolls"): rolls whose every die was checked
    # against the revealed sealed seed, rolls shown but not yet checkable (the seed is revealed when
    # the game ends), and rolls whose dice this copy does not show ("sealed, not opened").
    sealed_rolls_verified: int = 0
    sealed_dice_verified: int = 0
    sealed_rolls_unrevealed: int = 0
    sealed_rolls_unopened: int = 0
    sealed_rolls_shown: int = 0  # sealed rolls made public before the end, checked against their roll
    signatures_verified: int = 0
    format: int = 1  # the game's format, from GameCreated (docs/dice.md, section 5)
    fields_opened: int = 0  # format 2: concealed fields whose value and salt give the commitment hashed
    fields_concealed: int = 0  # format 2: concealed fields this copy holds as commitments only
    sealed_signatures_verified: int = 0  # signed seals and reveals of sealed orders (format 2)
    command_signatures_verified: int = 0  # signed other commands of keyed seats (format 2): CommandSigned
    server_key: str | None = None  # from the file's header line, when it has one
    hashes: list[str] = field(default_factory=list)  # each event's hash, by position
    failures: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, line: int, message: str) -> None:
        self.failures.append((line, message))

    def summary(self) -> str:
        head = (f"game {self.game_id}: {self.events} events, chain head {self.chain_head}; "
                f"{self.epochs_revealed} dice epochs revealed, {self.rolls_verified} rolls "
                f"({self.dice_verified} dice) verified; {self.epochs_unrevealed} epoch(s) not yet "
                f"revealed holding {self.rolls_unrevealed} roll(s); {self.signatures_verified} "
                f"signed order(s) verified")
        if self.rolls_unchecked or self.entropies_unchecked:
            head += (f"; NOT CHECKED in this copy: {self.rolls_unchecked} roll(s) and {self.entropies_unchecked} "
                     "client entropy(ies) derived from an order id it holds as a commitment (the full export checks them)")
        if self.reveals_verified:
            head += f"; {self.reveals_verified} sealed-orders reveal(s) verified against their commitments"
        if self.fields_opened or self.fields_concealed:
            head += f"; {self.fields_opened} concealed field(s) opened, {self.fields_concealed} still concealed"
        if self.sealed_signatures_verified:
            head += f"; {self.sealed_signatures_verified} signed seal(s) and reveal(s) verified"
        if self.command_signatures_verified:
            head += f"; {self.command_signatures_verified} signed command(s) verified"
        if self.sealed_rolls_verified or self.sealed_rolls_unrevealed or self.sealed_rolls_unopened:
            head += (f"; {self.sealed_rolls_verified} sealed roll(s) ({self.sealed_dice_verified} dice) verified, "
                     f"{self.sealed_rolls_unrevealed} not yet revealed, {self.sealed_rolls_unopened} not opened in this copy")
        if self.sealed_rolls_shown:
            head += f"; {self.sealed_rolls_shown} sealed roll(s) shown before the end"
        if self.ok:
            return "OK " + head
        lines = [f"FAILED {head}"] + [f"  line {n}: {m}" for n, m in self.failures]
        return "\n".join(lines)


class DuplicateKey(ValueError):
    """A JSON object that names a key twice (docs/dice.md, section 6)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"the key {key!r} is written twice in one object: a reader that takes the first value "
                         "(json.loads takes the last) would read another line than the one checked")


def _unique(pairs: list[tuple[str, Any]]) -> dict:
    """json.loads's object_pairs_hook: a dict, or DuplicateKey when a key comes twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def loads(raw: str) -> Any:
    """A line's JSON as json.loads reads it, refusing an object that names a key twice."""
    return json.loads(raw, object_pairs_hook=_unique)


def parse_lines(text_lines: Iterable[str], report: Report) -> list[dict | None]:
    """JSON-decode export lines; a line that is not a JSON object, or names a key twice, is a
    failure naming it and stays in the list as None, so later failures keep the file's line numbers."""
    parsed = []
    for n, raw in enumerate(text_lines, start=1):
        if not raw.strip():
            # Kept as a placeholder so every failure is numbered by its line in the file.
            report.fail(n, "empty line")
            parsed.append(None)
            continue
        try:
            obj = loads(raw)
        except DuplicateKey as exc:
            report.fail(n, str(exc))
            parsed.append(None)
            continue
        except json.JSONDecodeError as exc:
            report.fail(n, f"not JSON: {exc}")
            parsed.append(None)
            continue
        except (ValueError, RecursionError) as exc:  # the decoder's limits, said without its internals
            why = "nested too deep" if isinstance(exc, RecursionError) else "a number of more than 4300 digits"
            report.fail(n, f"not JSON this reader can take: {why}")
            parsed.append(None)
            continue
        if not isinstance(obj, dict):
            report.fail(n, "not a JSON object")
            obj = None
        parsed.append(obj)
    return parsed


def verify(lines: list[dict], report: Report | None = None) -> Report:
    """Check the chain (order, links, hashes) and the dice of every revealed epoch."""
    report = report or Report()
    prev = chain.GENESIS
    rolled = _Dice()
    commitments: dict[tuple, str] = {}  # (seat, round) -> the commitment an OrderSealed recorded
    revealed: dict[tuple, tuple] = {}  # (seat, round) of each OrderRevealed -> (its line, its orders; None: hidden here)
    signed = _Signed()
    sealed_dice = _SealedDice()
    fmt = 1
    ended: int | None = None  # the line of the game's GameEnded
    for n, line in enumerate(lines, start=1):
        report.hashes.append(line.get("hash") if isinstance(line, dict) else None)
        if line is None:
            continue  # reported by parse_lines
        odd_keys = line.keys() != _LINE_KEY_SET  # the usual line has exactly LINE_KEYS
        if odd_keys:
            missing = [k for k in LINE_KEYS if k not in line]
            if missing:
                report.fail(n, f"missing {', '.join(missing)}")
                continue
        if not isinstance(line["hash"], str):  # it could not even name the line after it
            report.fail(n, "hash is not text (64 hex characters)")
            line = {**line, "hash": ""}
        report.events += 1
        if n == 1 and line["type"] == "GameCreated" and isinstance(line["data"], dict):
            fmt = report.format = line["data"].get("format", 1)  # how its lines hash, how its dice roll
            rolled.scheme2 = fmt == 2
        if report.game_id is None:
            report.game_id = line["game_id"]
        elif line["game_id"] != report.game_id:
            report.fail(n, f"belongs to game {line['game_id']}, not {report.game_id}")
        for message in _link_problems(line, n, prev):
            report.fail(n, message)
        if (line["type"] == "GameCreated") != (n == 1):  # replayed, a second one would make the game anew
            report.fail(n, _NOT_FIRST if n == 1 else "a second GameCreated: a game is created once, on line 1")
        if odd_keys:
            report.fail(n, f"unexpected keys {', '.join(sorted(set(line) - _LINE_KEY_SET))}")
        opened = _concealment(line, n, report) if fmt == 2 else (0, 0)
        altered = _hash_problem(line, fmt)
        if altered:
            report.fail(n, altered)
        elif opened:
            report.fields_opened += opened[0]
            report.fields_concealed += opened[1]
        try:
            signed.step(line, n, report)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            report.fail(n, f"malformed {line['type']} data: {exc!r}")
        signed.seen.add(line["hash"])
        prev = line["hash"]
        type_ = line["type"]
        if type_ == "GameEnded" and ended is None:
            ended = n
        if type_ in _SEALED_DICE_EVENTS:
            try:
                sealed_dice.step(line, n, rolled.epochs, rolled.open_epoch, report, rolled.any_input)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                report.fail(n, f"malformed {type_} data: {exc!r}")
        if type_ in _SEALED_EVENTS:
            _sealed_step(line, n, commitments, report, revealed)
        elif type_ == "OrderAccepted":
            _carried_out(line, n, revealed, report)
        if type_ not in _DICE_EVENTS:  # a tuple: compared with ==, so any JSON value may be looked up
            continue
        data = line["data"] if isinstance(line["data"], dict) else {}
        try:
            rolled.step(type_, data, n, line["game_id"], report)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            report.fail(n, f"malformed {type_} data: {exc!r}")
    signed.finish(report)
    sealed_dice.finish(report)
    if ended is not None and rolled.open_epoch is not None:  # a server keeping the seed of the last epoch
        report.fail(ended, f"the game ended here, but dice epoch {rolled.open_epoch} was never revealed: its seed "
                           "is revealed right after GameEnded (docs/dice.md section 1), and no die of it can be checked")
    if ended is not None and sealed_dice.made and not sealed_dice.revealed:
        report.fail(ended, "the game ended here, but the sealed dice were never revealed: their seed is revealed "
                           "right after the last epoch's (docs/dice.md, \"Sealed rolls\"), and no sealed die can be checked")
    report.chain_head = prev
    for number, epoch in rolled.epochs.items():
        if not epoch["revealed"]:
            report.epochs_unrevealed += 1
            report.rolls_unrevealed += len(epoch["rolls"])
    return report


_NOT_FIRST = "the first event is not the game's GameCreated: a game is created once, on line 1"


def _concealment(line: dict, n: int, report: Report) -> tuple[int, int]:
    """A format-2 line's concealed fields (docs/dice.md, "Concealed fields"): each is a field of
    its data, with a salt (64 hex) or, withheld in a seat's copy, a commitment in place of its
    value. Returns (fields opened, fields held as commitments); the hash check then covers each
    opening, since the line hashes the commitment its value and salt give."""
    data = line["data"]
    if not isinstance(data, dict) or chain.CONCEALED not in data:
        return 0, 0
    concealed = data[chain.CONCEALED]
    if not isinstance(concealed, dict) or not concealed:
        report.fail(n, "'concealed' is not an object naming the line's concealed fields and their salts")
        return 0, 0
    opened = still = 0
    for name, salt in concealed.items():
        if name == chain.CONCEALED or name not in data:
            report.fail(n, f"concealed field {name!r} is not a field of this {line['type']}")
        elif salt is None:
            if chain.is_commitment(data[name]):
                still += 1
            else:
                report.fail(n, f"field {name!r} is concealed in this copy (its salt withheld), but it holds "
                               "no commitment (64 lowercase hex characters)")
        elif chain.is_commitment(salt):
            opened += 1
        else:
            report.fail(n, f"the salt of concealed field {name!r} is not 64 lowercase hex characters")
    return opened, still


def _withheld(line: dict, name: str) -> bool:
    """Whether this copy of ``line`` does not show field ``name``: redacted (format 1) or held as
    a commitment (format 2). What depends on it cannot be checked here, and is not a failure."""
    return line.get("redacted") is True or name in chain.withheld(line["data"])


_SEALED_EVENTS = ("OrderSealed", "OrderRevealed")


def _sealed_step(line: dict, n: int, commitments: dict, report: Report, revealed: dict) -> None:
    """A sealed-orders commitment is noted; a reveal must hash to it (docs/dice.md, "Sealed
    orders"). A reveal redacted for this copy (a private order hidden) cannot be checked here."""
    data = line["data"] if isinstance(line["data"], dict) else {}
    try:
        key = (data["seat"], data["round"])
        if line["type"] == "OrderSealed":
            if key in commitments:
                report.fail(n, f"{key[0]} sealed its orders for round {key[1]} twice")
            commitments[key] = data["commitment"]
            return
        if key not in commitments:
            report.fail(n, f"{key[0]} revealed orders for round {key[1]} without a commitment before them")
            return
        if key in revealed:  # a seat reveals once a round (Game.reveal_sealed): a replay carries it out again
            report.fail(n, f"{key[0]} revealed its orders for round {key[1]} twice")
            return
        hidden = _withheld(line, "orders") or _withheld(line, "salt")
        revealed[key] = (n, None if hidden else data["orders"])
        if hidden:
            return
        if sealed.commitment(line["game_id"], key[0], key[1], data["orders"], data["salt"]) != commitments[key]:
            report.fail(n, f"the orders {key[0]} revealed for round {key[1]} do not match its commitment")
            return
        report.reveals_verified += 1
    except (KeyError, TypeError, ValueError) as exc:
        report.fail(n, f"malformed {line['type']} data: {exc!r}")


_INDEX = re.compile(r"0|[1-9][0-9]*")


def _carried_out(line: dict, n: int, revealed: dict, report: Report) -> None:
    """An order carried out under a sealed id (``sealed:ROUND:SEAT:INDEX``, docs/dice.md section 8)
    is order INDEX of SEAT's reveal for ROUND before it, as that seat's: the reveal is what the seat
    signed, and its orders are carried out unsigned one by one, so the server could otherwise carry
    out another order than the one revealed, or one never revealed."""
    data = line["data"]
    if not isinstance(data, dict) or _withheld(line, "order_id"):
        return
    order_id = data.get("order_id")
    if not isinstance(order_id, str) or not order_id.startswith(_SEALED_PREFIX):
        return
    for (seat, round_no), (at, orders) in revealed.items():
        prefix = f"{_SEALED_PREFIX}{round_no}:{seat}:"
        if not (order_id.startswith(prefix) and _INDEX.fullmatch(order_id[len(prefix):])):
            continue
        index = int(order_id[len(prefix):])
        if orders is None or _withheld(line, "order") or _withheld(line, "seat"):
            return  # hidden in this copy: not checked here
        if not isinstance(orders, list) or index >= len(orders):
            break
        if data.get("seat") != seat or data.get("order") != orders[index]:
            report.fail(n, f"order {order_id!r} is not order {index} of the orders {seat} revealed for round "
                           f"{round_no} on line {at}, as {seat}'s: the reveal binds the orders carried out under it")
        return
    report.fail(n, f"order {order_id!r} carries out no order revealed before it: a sealed order's id names a "
                   "seat's reveal of a round and an order of it")


_SEALED_PREFIX = "sealed:"  # the ids of revealed sealed orders (domain/sealed.py order_id)
_TIMEOUT_PREFIX = "timeout:"  # the ids of the passes the server gives at a timeout (domain/clock.py)
_SEALED_DICE_EVENTS = ("OrderAccepted", "DiceCommitted", "SealedDiceRolled", "SealedRollShown", "SealedDiceRevealed")


class _SealedDice:
    """The sealed dice stream (docs/dice.md, "Sealed rolls"): one commitment (DiceCommitted of
    stream "sealed"), rolls in the open epoch whose nonces run 0, 1, 2, … across the game, and,
    once SealedDiceRevealed shows the seed, the seed checked against the commitment and every
    sealed die against ``dice.face2`` with its epoch's client entropy and its input (the order id
    of the latest OrderAccepted before it). A SealedRollShown must open every concealed field of
    an earlier sealed roll of its seat: the values and salts it gives are the roll's, or (a copy
    that holds the roll as commitments) give its commitments; the dice it opens are checked at the
    reveal like any others."""

    def __init__(self) -> None:
        self.commitment: str | None = None
        self.revealed = False
        self.input = ""
        self.next_nonce = 0  # the next nonce; only a lower bound after a roll this copy hides
        self.exact = True
        self.rolls: list[tuple[int, list, int, str]] = []  # (line, dice, epoch, input) shown in this copy
        self.made: dict[int, dict] = {}  # seq -> {line, data, epoch, input, shown} of each sealed roll

    def step(self, line: dict, n: int, epochs: dict, open_epoch: int | None, report: Report,
             first_input: int | None = None) -> None:
        type_, data = line["type"], line["data"]
        if type_ == "OrderAccepted":
            if "order_id" in data:  # a line without one is reported by the dice checks (format 2)
                self.input = data["order_id"]
        elif type_ == "DiceCommitted":
            if data["stream"] != "sealed":
                return
            if self.commitment is not None:
                report.fail(n, "the sealed dice are committed twice")
            elif data["epoch"] != 0:
                report.fail(n, f"the sealed dice are committed as epoch {data['epoch']}, not 0 (one seed per game)")
            elif first_input is not None:  # committed when the game is created, before any seat joins
                report.fail(n, f"the sealed dice are committed after line {first_input}, an input mixed with their "
                               "seed: the server could have chosen the seed knowing it")
            self.commitment = data["commitment"]
        elif type_ == "SealedDiceRolled":
            self.made[line["seq"]] = {"line": n, "data": data, "epoch": data["epoch"], "input": self.input,
                                      "shown": False}
            self._rolled(data, n, epochs, open_epoch, report)
        elif type_ == "SealedRollShown":
            self._shown(data, n, report)
        elif self.commitment is None:
            report.fail(n, "sealed dice revealed, but none were committed")
        elif self.revealed:
            report.fail(n, "the sealed dice are revealed twice")
        else:
            self._revealed(bytes.fromhex(data["seed"]), line["game_id"], n, epochs, report)

    def _rolled(self, data: dict, n: int, epochs: dict, open_epoch: int | None, report: Report) -> None:
        if self.commitment is None:
            report.fail(n, "sealed roll without a commitment to the sealed dice before it")
        elif self.revealed:
            report.fail(n, "sealed roll after the sealed dice were revealed (its faces were known in advance)")
        number = data["epoch"]
        if number != open_epoch or number not in epochs:
            report.fail(n, f"sealed roll in dice epoch {number}, which is not open")
        elif not _whole(number):
            report.fail(n, f"sealed roll in dice epoch {number}, which is not written as a whole number (a JSON "
                           "integer): the faces are derived from its text, so its spelling would choose them")
        faces = data["dice"]
        if not isinstance(faces, list):  # hidden in this copy: how many nonces it took is not known
            report.sealed_rolls_unopened += 1
            self.next_nonce += 1
            self.exact = False
            return
        for die in faces:
            nonce, sides = die["nonce"], die["sides"]
            if nonce != self.next_nonce and (self.exact or nonce < self.next_nonce):
                report.fail(n, f"sealed die nonce {nonce} where {self.next_nonce} was expected "
                               "(a sealed roll is missing or was repeated)")
            if not 2 <= sides <= _TWO_64:
                report.fail(n, f"a d{sides} is not a die (2 to 2**64 sides)")
            elif not 1 <= die["value"] <= sides:
                report.fail(n, f"die value {die['value']} is not a face of a d{sides}")
            self.next_nonce, self.exact = nonce + 1, True
        self.rolls.append((n, faces, number, self.input))

    def _shown(self, data: dict, n: int, report: Report) -> None:
        roll = self.made.get(data["roll"])
        if roll is None:
            report.fail(n, f"shows seq {data['roll']!r}, which is not a sealed roll before it")
            return
        if roll["shown"]:
            report.fail(n, f"the sealed roll at seq {data['roll']} is shown twice")
            return
        roll["shown"] = True
        made, opened = roll["data"], data["fields"]
        salts = made.get(chain.CONCEALED)
        salts = salts if isinstance(salts, dict) else {}
        if data["seat"] != made["seat"]:
            report.fail(n, f"shows {made['seat']}'s sealed roll at seq {data['roll']} as {data['seat']}'s")
        if not isinstance(opened, dict) or sorted(opened) != sorted(salts):
            report.fail(n, f"shows fields {sorted(opened) if isinstance(opened, dict) else opened!r} of the sealed "
                           f"roll at seq {data['roll']}, whose concealed fields are {sorted(salts)}")
            return
        for name in sorted(opened):
            value, salt = opened[name]["value"], opened[name]["salt"]
            if not chain.is_commitment(salt):
                report.fail(n, f"the salt shown for field {name!r} is not 64 lowercase hex characters")
            elif salts[name] is None:  # this copy holds the roll's commitment: the opening must give it
                if chain.field_commitment(name, salt, value) != made[name]:
                    report.fail(n, f"the {name} shown do not open the commitment of the sealed roll at seq {data['roll']}")
            elif value != made[name] or salt != salts[name]:
                report.fail(n, f"the {name} shown differ from those of the sealed roll at seq {data['roll']}")
        report.sealed_rolls_shown += 1
        faces = opened["dice"]["value"] if "dice" in opened else None
        if salts.get("dice", 0) is None and isinstance(faces, list):  # opened here: its dice checked at the reveal
            report.sealed_rolls_unopened -= 1
            self.rolls.append((roll["line"], faces, roll["epoch"], roll["input"]))

    def _revealed(self, seed: bytes, game_id: str, n: int, epochs: dict, report: Report) -> None:
        self.revealed = True
        if dice.commitment(seed) != self.commitment:
            report.fail(n, "the sealed dice's seed does not match their commitment")
            return
        for at, faces, number, input_ in self.rolls:
            entropy = epochs[number]["entropy"] if number in epochs else None
            for die in faces:
                if entropy is None or not 2 <= die["sides"] <= _TWO_64:
                    continue  # already reported at the roll
                if not _whole(die["nonce"], die["sides"]):
                    report.fail(at, _NOT_WHOLE.format(word="sealed die", nonce=die["nonce"], sides=die["sides"]))
                    continue
                want = dice.face2(seed, game_id, number, entropy, input_, die["nonce"], die["sides"])
                if want != die["value"]:
                    report.fail(at, f"sealed die nonce {die['nonce']} shows {die['value']} but the revealed "
                                    f"sealed seed gives {want}")
            report.sealed_rolls_verified += 1
            report.sealed_dice_verified += len(faces)
        self.rolls = []

    def finish(self, report: Report) -> None:
        report.sealed_rolls_unrevealed += len(self.rolls)


class _Signed:
    """The signatures of keyed seats (docs/dice.md, "Signed orders and heads"): each OrderAccepted
    of a seat that registered a key is followed by its OrderSigned, whose signature covers the
    game, the order id, the order as recorded and a head: the hash of a line before the order. In
    a format-2 game each OrderSealed and OrderRevealed of such a seat is followed by its
    SealedOrdersSigned, whose signature covers the game, its kind, seat and round, the commitment
    or the orders and salt as recorded, and a head."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}
        self.key_seats: dict[str, tuple[Any, int]] = {}  # each key registered: the first seat to register it, its line
        self.key_shared: set = set()  # each seat whose key another seat registered too
        self.verified_orders: list = []  # the seat of each order whose signature verified
        self.seen: set[str] = set()  # hashes of the lines before the current one
        self.command_signatures: dict[str, int] = {}  # each CommandSigned's signature (but annotations'): its line
        self.unknown_order = False  # the line before is an order whose seat or id this copy does not show
        self.previous: tuple = (None, None)  # the type and data of the line before
        self.accepted: dict[str, int] = {}  # each order id accepted: its line
        self.fmt: Any = 1  # the game's format, from line 1 (format 1 leaves seals and reveals unsigned)
        self.seats: list[str] | None = None  # GameCreated's seats (None: not a list of names)
        self.passes = False  # the game's time control gives a pass at a timeout (TimeControlSet on_timeout "pass")
        self.joined: dict[str, int] = {}  # each seat joined: its SeatJoined's line
        # (line, type, data of the line to be signed, its hash, redacted) of the line waiting for its signature
        self.waiting: tuple[int, str, dict, str, bool] | None = None

    def step(self, line: dict, n: int, report: Report) -> None:
        type_, data = line["type"], line["data"]
        if self.waiting is not None and type_ != _SIGNED_BY[self.waiting[1]]:
            self._unsigned(report)
        unknown_order, self.unknown_order = self.unknown_order, False
        previous, self.previous = self.previous, (type_, data)
        if type_ == "OrderAccepted" and isinstance(data, dict) and isinstance(data.get("order_id"), str) \
                and "order_id" not in chain.withheld(data):
            self._once(data["order_id"], n, report)
        if n == 1 and type_ == "GameCreated" and isinstance(data, dict):
            self.fmt = data.get("format", 1)  # as verify reads it
            seats = data.get("seats")
            self.seats = seats if isinstance(seats, list) and all(isinstance(s, str) for s in seats) else None
        self._seat_of_game(line, type_, data, n, report)
        if type_ == "TimeControlSet" and isinstance(data, dict):
            self.passes = data.get("on_timeout") == "pass"
        if type_ == "OrderAccepted" and isinstance(data, dict) and str(data.get("order_id")).startswith(_TIMEOUT_PREFIX) \
                and not (_withheld(line, "order_id") or _withheld(line, "seat")):
            self._timeout_pass(data, previous, n, report)
        if type_ == "SeatJoined" and isinstance(data, dict) and isinstance(data.get("seat"), str) \
                and not _withheld(line, "seat"):
            first = self.joined.setdefault(data["seat"], n)
            if first != n:  # Game.join: "already taken"
                report.fail(n, f"seat {data['seat']} joined before, on line {first}: a seat joins once (a second "
                               "join would set its client seed unsigned, which only its ClientSeedChanged may change)")
        if type_ == "SeatKeyRegistered":
            found = signatures.public_key_problem(data["public_key"])
            if found:
                report.fail(n, f"seat {data['seat']}'s key: {found}")
            self._registered(data["seat"], previous, n, report)
            self._shared(data["seat"], data["public_key"], n, report)
            self.keys[data["seat"]] = data["public_key"]
        elif type_ == "OrderAccepted" and (_withheld(line, "seat") or _withheld(line, "order_id")):
            self.unknown_order = True  # whether its seat signs, this copy cannot tell
        elif type_ == "OrderAccepted" and data["seat"] in self.keys and not str(data["order_id"]).startswith(
                ("sealed:", "timeout:")):
            # a revealed sealed order is bound by its seat's commitment and reveal, not signed one by one;
            # a pass the server gave at a timeout (domain/clock.py TC 4) is the server's, unsigned
            self.waiting = (n, type_, data, line["hash"], _withheld(line, "order"))
        elif type_ in _SEALED_EVENTS and self.fmt != 1 and data["seat"] in self.keys:
            self.waiting = (n, type_, data, line["hash"], _withheld(line, "orders") or _withheld(line, "salt"))
        elif type_ in _COMMANDS and self.fmt != 1 and _command_seat(type_, data) in self.keys:
            names = _COMMANDS[type_][1]
            self.waiting = (n, type_, data, line["hash"], any(_withheld(line, f) for f in names))
        elif type_ == "OrderSigned" and not (unknown_order and self.waiting is None):
            self._signed(data, n, report, _withheld(line, "signature"))
        elif type_ == "SealedOrdersSigned":
            self._sealed_signed(data, n, report, _withheld(line, "signature"))
        elif type_ == "CommandSigned":
            self._command_signed(data, n, report, _withheld(line, "signature"))

    def _seat_of_game(self, line: dict, type_: str, data: Any, n: int, report: Report) -> None:
        """An order, seal, reveal or command names a seat of the game (GameCreated's ``seats``): one
        under another name ("Blue" with a zero-width space, shown as Blue) has no key, so the server
        could write it unsigned and have it read as a keyed seat's."""
        if self.seats is None or not isinstance(type_, str) or not isinstance(data, dict) or "seat" not in data \
                or _withheld(line, "seat"):
            return
        if type_ not in _SEAT_LINES and not (type_ in _COMMANDS and type_ not in ("UmpireRevoked", "AnnotationAdded")):
            return  # an UmpireRevoked's ``by`` may be the admin, an annotation's author a spectator or the umpire
        seat = data["seat"]
        if not (isinstance(seat, str) and seat in self.seats):
            # not ASCII written as Python escapes it, so that a look-alike shows what it is
            shown = seat.encode("ascii", "backslashreplace").decode("ascii") if isinstance(seat, str) else str(seat)
            report.fail(n, f"this {type_} names seat '{shown}', which is not a seat of this game (GameCreated's "
                           f"seats are {', '.join(self.seats)}): a seat's orders and commands are recorded under its name")

    def _timeout_pass(self, data: dict, previous: tuple, n: int, report: Report) -> None:
        """An order under a ``timeout:`` id is the server's pass for a late seat (domain/clock.py TC 4),
        unsigned: it follows at once a TimedOut naming that seat, in a game whose time control passes;
        anywhere else it would be an order of a keyed seat that no signature binds."""
        before_type, before = previous
        if not (self.passes and before_type == "TimedOut" and isinstance(before, dict)
                and before.get("on_timeout") == "pass" and isinstance(before.get("seats"), list)
                and data.get("seat") in before["seats"]):
            report.fail(n, f"order {data.get('order_id')!r} is recorded as the server's pass for seat {data.get('seat')} "
                           "at a timeout, but it does not follow at once a TimedOut of that seat in a game whose time "
                           "control passes (TimeControlSet on_timeout 'pass'): no signature binds it")

    def _once(self, order_id: str, n: int, report: Report) -> None:
        """An order id is accepted once (it is the order's idempotency key, docs/api.md): a second
        OrderAccepted under it would carry out the seat's order, and its signature, again."""
        first = self.accepted.setdefault(order_id, n)
        if first != n:
            report.fail(n, f"order {order_id!r} was accepted before, on line {first}: an order is recorded once, "
                           "so this repeats it (a signed order replayed)")

    def _registered(self, seat: Any, previous: tuple, n: int, report: Report) -> None:
        """A seat's key is registered once, right after its SeatJoined (docs/dice.md, "Seats' keys"):
        a key the server registered later, or a second one, would let it sign as the seat."""
        if seat in self.keys:
            report.fail(n, f"seat {seat}'s key is registered a second time: a key is registered once, with "
                           "the join, and never changed")
        elif not (previous[0] == "SeatJoined" and isinstance(previous[1], dict) and previous[1].get("seat") == seat):
            report.fail(n, f"seat {seat}'s key is not registered right after its SeatJoined: a key is registered "
                           "once, with the join")

    def _shared(self, seat: Any, key: Any, n: int, report: Report) -> None:
        """No two seats register one key (docs/dice.md, "Seats' keys"): an order's signed bytes do
        not name its seat, so one seat's signed order could be recorded as the other's and verify."""
        if not isinstance(key, str):
            return
        first = self.key_seats.setdefault(key, (seat, n))
        if first[0] != seat:
            report.fail(n, f"seat {seat}'s key is the key seat {first[0]} registered on line {first[1]}: an order's "
                           "signature does not name its seat, so the two seats' signed orders cannot be told apart")
            self.key_shared.update((first[0], seat))

    def _unsigned(self, report: Report) -> None:
        n, type_, data, _, _ = self.waiting
        self.waiting = None
        if type_ == "OrderAccepted":
            report.fail(n, f"order {data['order_id']!r} of seat {data['seat']}, who registered a key, "
                           "is not followed by its signature (OrderSigned)")
        elif type_ in _COMMANDS:
            report.fail(n, f"the {_command_kind(type_, data).replace('_', ' ')} command ({type_}) of seat "
                           f"{_command_seat(type_, data)}, who registered a key, is not followed by its "
                           "signature (CommandSigned)")
        else:
            report.fail(n, f"the {_SEALED_KINDS[type_]} of seat {data['seat']}, who registered a key, for round "
                           f"{data.get('round')} is not followed by its signature (SealedOrdersSigned)")

    def _take(self, type_: str, n: int, report: Report) -> tuple[int, str, dict, str, bool] | None:
        """The waiting line that the signature ``type_`` on line ``n`` signs; None (reported) when none."""
        taken, self.waiting = self.waiting, None
        if taken is None:
            what = {"OrderSigned": "an order", "SealedOrdersSigned": "a seal or reveal of sealed orders"}.get(
                type_, "a command")
            report.fail(n, f"{type_} does not follow {what} of a seat with a key")
        return taken

    def _check_head(self, head: Any, signed_hash: str, what: str, n: int, report: Report) -> None:
        if head not in self.seen or head == signed_hash:
            report.fail(n, f"the head this {what} was signed over is not the hash of a line before it")

    def _signed(self, data: dict, n: int, report: Report, redacted: bool) -> None:
        taken = self._take("OrderSigned", n, report)
        if taken is None:
            return
        at, _, order, order_hash, order_redacted = taken
        if redacted or order_redacted:
            _signature_hidden_alone(data, order_redacted, n, report)
            return  # a seat's copy: the order or its signature is hidden (its seat and id may be too)
        if data["order_id"] != order["order_id"] or data["seat"] != order["seat"]:
            report.fail(n, f"OrderSigned names order {data['order_id']!r} of {data['seat']}, not the "
                           f"order {order['order_id']!r} of {order['seat']} on line {at}")
            return
        self._check_head(data["head"], order_hash, "order", n, report)
        game_id = report.game_id or ""
        message = signatures.order_message(game_id, order["order_id"], order["order"], data["head"])
        if not signatures.signature_valid(self.keys[order["seat"]], data["signature"], message):
            report.fail(at, f"the signature on line {n} is not seat {order['seat']}'s of order "
                            f"{order['order_id']!r} as recorded here (the order or its signature was altered)")
        else:
            report.signatures_verified += 1
            self.verified_orders.append(order["seat"])

    def _sealed_signed(self, data: dict, n: int, report: Report, redacted: bool) -> None:
        taken = self._take("SealedOrdersSigned", n, report)
        if taken is None:
            return
        at, done_type, done, done_hash, done_redacted = taken
        kind = _SEALED_KINDS[done_type]
        if data["kind"] != kind or data["seat"] != done["seat"] or data["round"] != done["round"]:
            report.fail(n, f"SealedOrdersSigned names the {data['kind']} of {data['seat']} for round "
                           f"{data['round']}, not the {kind} of {done['seat']} for round {done['round']} on line {at}")
            return
        if redacted or done_redacted:  # a seat's copy: the reveal or its signature is hidden, and reported as redacted
            _signature_hidden_alone(data, done_redacted, n, report)
            return
        self._check_head(data["head"], done_hash, kind, n, report)
        game_id = report.game_id or ""
        if kind == signatures.SEAL:
            message = signatures.seal_message(game_id, done["seat"], done["round"], done["commitment"], data["head"])
        else:
            message = signatures.reveal_message(game_id, done["seat"], done["round"], done["orders"], done["salt"],
                                                data["head"])
        if not signatures.signature_valid(self.keys[done["seat"]], data["signature"], message):
            report.fail(at, f"the signature on line {n} is not seat {done['seat']}'s of its {kind} for round "
                            f"{done['round']} as recorded here (the {kind} or its signature was altered)")
        else:
            report.sealed_signatures_verified += 1

    def _command_signed(self, data: dict, n: int, report: Report, redacted: bool) -> None:
        taken = self._take("CommandSigned", n, report)
        if taken is None:
            return
        at, done_type, done, done_hash, done_redacted = taken
        kind, names = _command_kind(done_type, done), _COMMANDS[done_type][1]
        seat = _command_seat(done_type, done)
        if data["kind"] != kind or data["seat"] != seat:
            report.fail(n, f"CommandSigned names the {data['kind']} command of {data['seat']}, not the "
                           f"{kind} command ({done_type}) of {seat} on line {at}")
            return
        if redacted or done_redacted:  # a seat's copy: the command (another seat's standing order) or its signature is hidden
            _signature_hidden_alone(data, done_redacted, n, report)
            return
        self._check_head(data["head"], done_hash, f"{kind} command", n, report)
        if kind not in signatures.ANNOTATIONS and isinstance(data["signature"], str):
            first = self.command_signatures.setdefault(data["signature"], n)
            if first != n:
                report.fail(n, f"the signature on line {n} is already on line {first}: a signed command is "
                               "recorded once (this one is sent again)")
        fields = {name: done[name] for name in names}
        if kind in (signatures.TAKE_BACK_ANSWER, signatures.UMPIRE_ANSWER):
            fields["accept"] = done_type in ("TakeBackAccepted", "UmpireAccepted")
        message = signatures.command_message(report.game_id or "", kind, seat, fields, data["head"])
        if not signatures.signature_valid(self.keys[seat], data["signature"], message):
            report.fail(at, f"the signature on line {n} is not seat {seat}'s of its {kind} command as "
                            "recorded here (the command or its signature was altered)")
        else:
            report.command_signatures_verified += 1

    def finish(self, report: Report) -> None:
        if self.waiting is not None:
            self._unsigned(report)
        # An order signed under a key two seats registered is not verified as either's (its signature
        # cannot say which gave it), whichever of the two keys came first.
        report.signatures_verified -= sum(seat in self.key_shared for seat in self.verified_orders)


def _signature_hidden_alone(data: dict, signed_hidden: bool, n: int, report: Report) -> None:
    """A signature is concealed only with what it signs (domain/visibility.py): one held as a
    commitment beside a shown order, seal or command would let a forged one pass unchecked."""
    if chain.CONCEALED in data and "signature" in chain.withheld(data) and not signed_hidden:
        report.fail(n, "the signature on this line is held as a commitment, but what it signs is shown: a "
                       "signature is concealed only with what it signs, so this one would go unchecked")


_SEAT_LINES = ("OrderAccepted", "OrderSealed", "OrderRevealed")  # a seat's orders: each names a seat of the game
_SEALED_KINDS = {"OrderSealed": signatures.SEAL, "OrderRevealed": signatures.REVEAL}  # the signed kind of each
# A keyed seat's other commands (format 2): each line's signed kind and the fields of the line it
# signs (an answer's ``accept`` is its event type); the line is followed by its CommandSigned.
_COMMANDS = {
    "Conceded": (signatures.CONCEDE, ()),
    "TakeBackRequested": (signatures.TAKE_BACK, ("reason",)),
    "TakeBackAccepted": (signatures.TAKE_BACK_ANSWER, ()),
    "TakeBackDeclined": (signatures.TAKE_BACK_ANSWER, ()),
    "StandingOrderSet": (signatures.STANDING_ORDER, ("policy_id", "decision_kind", "policy")),
    "StandingOrderCancelled": (signatures.STANDING_ORDER_CANCEL, ("policy_id",)),
    "ClientSeedChanged": (signatures.CLIENT_SEED, ("client_seed",)),
    "UmpireAccepted": (signatures.UMPIRE_ANSWER, ()),
    "UmpireDeclined": (signatures.UMPIRE_ANSWER, ()),
    "UmpireRevoked": (signatures.UMPIRE_ANSWER, ()),  # by a seat: it withdrew its agreement
    # a private one's kind is PRIVATE_ANNOTATION (_command_kind)
    "AnnotationAdded": (signatures.ANNOTATION, ("annotation_id", "about_seq", "text")),
    "VacationTaken": (signatures.VACATION, ("days",)),
    "ExtensionGranted": (signatures.EXTENSION, ("days",)),
    "WinClaimed": (signatures.CLAIM_WIN, ()),
}
_SIGNED_BY = {"OrderAccepted": "OrderSigned", "OrderSealed": "SealedOrdersSigned", "OrderRevealed": "SealedOrdersSigned",
              **{type_: "CommandSigned" for type_ in _COMMANDS}}


def _command_kind(type_: str, data: dict) -> str:
    """The signed kind of a ``_COMMANDS`` line: a private annotation's is its own."""
    if type_ == "AnnotationAdded" and data.get("private") is True:
        return signatures.PRIVATE_ANNOTATION
    return _COMMANDS[type_][0]


def _command_seat(type_: str, data: dict) -> str | None:
    """The seat whose command a ``_COMMANDS`` line records (an UmpireRevoked's ``by``; the admin's is none)."""
    return data.get("by") if type_ == "UmpireRevoked" else data.get("seat")


def verify_head(report: Report, head: Any, server_key: str | None) -> None:
    """Check a verified file against a signed head kept by a player: the head is signed by the
    server key (the file's, unless one is given), and the file's line ``seq`` has its hash, so a
    file cut short or rewritten since the head was handed out fails here. ``head``: its JSON text,
    read as ``loads`` reads a line (a head naming a key twice fails), or a value already read."""
    if isinstance(head, str):
        try:
            head = loads(head)
        except DuplicateKey as exc:
            report.fail(0, f"kept head: {exc}")
            return
        except (ValueError, RecursionError) as exc:
            report.fail(0, f"kept head: not JSON ({exc})")
            return
    if server_key is None:
        report.fail(0, "the file names no server key (no header line) and none was given: the head cannot be checked")
        return
    found = signatures.signed_head_problem(head, server_key)
    if found:
        report.fail(0, f"kept head: {found}")
        return
    seq = head["seq"]
    if head["game"] != report.game_id:
        report.fail(0, f"the kept head is of game {head['game']}, not {report.game_id}")
    elif not 1 <= seq <= len(report.hashes):
        report.fail(seq, f"the server signed a head at line {seq}, but the file ends at line "
                         f"{len(report.hashes)} (the log was cut short)")
    elif report.hashes[seq - 1] != head["hash"]:
        report.fail(seq, f"the server signed hash {head['hash']} for this line, the file has "
                         f"{report.hashes[seq - 1]} (the log was rewritten)")


class _Dice:
    """The dice of a file (docs/dice.md): each epoch opened once, its nonces in order, and once
    its seed is revealed, the seed against its commitment and every die against the face it
    gives. Scheme 1 (format 1) as it always was. Scheme 2 (format 2) also: each epoch's seed
    committed by a DiceCommitted before the epoch opens and before any input mixed with it (the
    orders accepted in the epoch before and, for epoch 0, the seats' client seeds), the opening
    repeating that commitment, its client entropy recomputed from the file, and each die derived
    with its roll's input, the id of the latest order accepted before it."""

    def __init__(self) -> None:
        self.scheme2 = False
        self.epochs: dict[int, dict] = {}
        self.open_epoch: int | None = None
        self.last_opened: int | None = None  # the epoch whose DiceEpochOpened came last
        # scheme 2
        self.committed: dict[int, tuple[int, str]] = {}  # epoch -> (line, commitment)
        self.late: set[int] = set()  # epochs whose commitment was reported as after an input
        self.seeds: dict[str, str] = {}  # every seat of GameCreated but system -> its client seed now
        # ids of the orders accepted and commitments of the orders sealed since the last opening (None: concealed)
        self.orders: list[str | None] = []
        self.first_input: tuple[int, str] | None = None  # (line, type) of the first input since then
        self.any_input: int | None = None  # the line of the file's first input (a join, a seed, an order)
        self.input: str | None = ""  # the roll input: the latest accepted order's id (None: concealed)

    def step(self, type_: str, data: dict, n: int, game_id: str, report: Report) -> None:
        if type_ in ("DiceEpochOpened", "DiceRolled", "DiceEpochRevealed"):
            getattr(self, "_" + type_)(data, n, game_id, report)
        elif self.scheme2:
            getattr(self, "_" + type_)(data, n, report)

    # -- scheme 2's inputs and commitments ------------------------------------------------------
    def _GameCreated(self, data: dict, n: int, report: Report) -> None:
        self.seeds = {seat: "" for seat in data["seats"] if seat != _SYSTEM}

    def _SeatJoined(self, data: dict, n: int, report: Report) -> None:
        self._seed(data, n, "SeatJoined")

    def _ClientSeedChanged(self, data: dict, n: int, report: Report) -> None:
        self._seed(data, n, "ClientSeedChanged")

    def _seed(self, data: dict, n: int, type_: str) -> None:
        if data["seat"] in self.seeds:
            self.seeds[data["seat"]] = data["client_seed"]
        self.first_input = self.first_input or (n, type_)
        self.any_input = self.any_input or n

    def _OrderAccepted(self, data: dict, n: int, report: Report) -> None:
        order_id = None if _concealed_here(data, "order_id") else data["order_id"]
        self.orders.append(order_id)
        self.input = order_id
        self.first_input = self.first_input or (n, "OrderAccepted")
        self.any_input = self.any_input or n

    def _OrderSealed(self, data: dict, n: int, report: Report) -> None:
        # A sealed round's orders get server-made ids (sealed:R:S:I): its commitments, chosen by the
        # seats with their salts, are what the seats contribute to the next client entropy.
        if "commitment" in data:  # a line without one is reported by the sealed-orders checks
            self.orders.append(None if _concealed_here(data, "commitment") else data["commitment"])
        self.first_input = self.first_input or (n, "OrderSealed")
        self.any_input = self.any_input or n

    def _DiceCommitted(self, data: dict, n: int, report: Report) -> None:
        if data["stream"] not in ("open", "sealed"):  # as the browser's verifier fails it
            report.fail(n, f"a commitment to the dice stream {data['stream']!r}, which is neither \"open\" nor \"sealed\"")
        if data["stream"] != "open":
            return
        number = data["epoch"]
        if number in self.committed:
            report.fail(n, f"the seed of dice epoch {number} is committed twice (first on line "
                           f"{self.committed[number][0]})")
            return
        self.committed[number] = (n, data["commitment"])
        if number in self.epochs:
            report.fail(n, f"the commitment to the seed of dice epoch {number} comes after the epoch "
                           "opened: the server could have chosen the seed knowing what it is mixed with")
        elif self.first_input is not None and self.last_opened == (number - 1 if number else None):
            self._late(number, n, report)

    def _late(self, number: int, n: int, report: Report) -> None:
        """The commitment to epoch ``number``'s seed, on line ``n``, follows an input of its client entropy."""
        self.late.add(number)
        at, what = self.first_input
        report.fail(n, f"the commitment to the seed of dice epoch {number} comes after line {at} "
                       f"({what}), an input mixed with that seed: the server could have chosen the "
                       "seed knowing it")

    # -- the epochs ----------------------------------------------------------------------------
    def _DiceEpochOpened(self, data: dict, n: int, game_id: str, report: Report) -> None:
        number = data["epoch"]
        if number in self.epochs:
            report.fail(n, f"dice epoch {number} opened twice")
        if self.open_epoch is not None:
            report.fail(n, f"dice epoch {number} opened while epoch {self.open_epoch} is still open")
        if self.scheme2:
            self._check_opening(data, n, report)
        self.epochs[number] = {"commitment": data["commitment"], "entropy": data["client_entropy"],
                               "next_nonce": 0, "rolls": [], "revealed": False}
        self.open_epoch = self.last_opened = number
        self.orders, self.first_input = [], None

    def _check_opening(self, data: dict, n: int, report: Report) -> None:
        """Scheme 2: the epoch's commitment was recorded before, and its client entropy is the
        hash of the orders accepted since the last epoch opened and of the seats' client seeds."""
        number = data["epoch"]
        committed = self.committed.get(number)
        if committed is None:
            report.fail(n, f"dice epoch {number} opens without a DiceCommitted of its seed before it "
                           "(format 2 commits to each epoch's seed one epoch ahead)")
        elif data["commitment"] != committed[1]:
            report.fail(n, f"dice epoch {number} opens with commitment {data['commitment']}, not the one "
                           f"committed on line {committed[0]} ({committed[1]})")
        # A commitment to an epoch numbered past the next one escapes the check at its line: the
        # inputs it must precede are those since the last opening, whatever the epochs' numbers.
        if (committed is not None and number not in self.late and self.first_input is not None
                and committed[0] > self.first_input[0]):
            self._late(number, committed[0], report)
        if None in self.orders:  # an order id concealed in this copy: the client entropy cannot be recomputed here
            report.entropies_unchecked += 1
            return
        want = dice.client_entropy_v2(self.orders, self.seeds)
        if data["client_entropy"] != want:
            report.fail(n, f"the client entropy of dice epoch {number} is not the hash of the "
                           f"{len(self.orders)} order id(s) accepted since the epoch before opened and the "
                           f"seats' client seeds recorded before it, which give {want}")

    def _DiceRolled(self, data: dict, n: int, game_id: str, report: Report) -> None:
        number = data["epoch"]
        if number != self.open_epoch or number not in self.epochs:
            report.fail(n, f"roll in dice epoch {number}, which is not open")
            return
        epoch = self.epochs[number]
        next_nonce = epoch["next_nonce"]
        try:
            for die in data["dice"]:
                nonce = die["nonce"]
                if nonce != next_nonce:
                    report.fail(n, f"die nonce {nonce} where {next_nonce} was expected "
                                   "(a roll is missing or was repeated)")
                sides = die["sides"]
                if not 2 <= sides <= _TWO_64:
                    report.fail(n, f"a d{sides} is not a die (2 to 2**64 sides)")
                elif not 1 <= die["value"] <= sides:
                    report.fail(n, f"die value {die['value']} is not a face of a d{sides}")
                next_nonce = nonce + 1
        finally:  # also when a malformed die stops the loop: the nonces counted so far stay counted
            epoch["next_nonce"] = next_nonce
        epoch["rolls"].append((n, data["dice"], self.input if self.scheme2 else None))

    def _DiceEpochRevealed(self, data: dict, n: int, game_id: str, report: Report) -> None:
        number = data["epoch"]
        epoch = self.epochs.get(number)
        if epoch is None or number != self.open_epoch:
            report.fail(n, f"dice epoch {number} revealed but not open")
            return
        seed = bytes.fromhex(data["seed"])
        if not _whole(number):
            report.fail(n, f"dice epoch {number} is not written as a whole number (a JSON integer): the faces "
                           "are derived from its text, so its spelling would choose them")
        elif dice.commitment(seed) != epoch["commitment"]:
            report.fail(n, f"the seed of dice epoch {number} does not match its commitment")
        else:
            self._check_faces(dice.EpochDice(seed, game_id, number, epoch["entropy"]), epoch, report)
        epoch["revealed"] = True
        report.epochs_revealed += 1
        self.open_epoch = None

    def _check_faces(self, derived: dice.EpochDice, epoch: dict, report: Report) -> None:
        """Every die of a revealed epoch against the face its seed gives (scheme 2: with the
        roll's input; a roll whose input is concealed in this copy is not checked)."""
        derive = derived.face
        for roll_line, faces, input in epoch["rolls"]:
            if self.scheme2 and input is None:
                report.rolls_unchecked += 1
                continue
            for die in faces:
                sides = die["sides"]
                if not 2 <= sides <= _TWO_64:
                    continue  # already reported at the roll
                if not _whole(die["nonce"], sides):
                    report.fail(roll_line, _NOT_WHOLE.format(word="die", nonce=die["nonce"], sides=sides))
                    continue
                want = derive(die["nonce"], sides, input)
                if want != die["value"]:
                    report.fail(roll_line, f"die nonce {die['nonce']} shows {die['value']} but "
                                           f"the revealed seed gives {want}")
            report.rolls_verified += 1
            report.dice_verified += len(faces)


# The numbers a face is derived from are written into its message as text, the sides used as an
# integer (docs/dice.md, section 2): 3 and 3.0 (or true for 1) are equal to == and to RFC 8785,
# but give other faces.
_NOT_WHOLE = ("{word} nonce {nonce} of a d{sides} is not written as whole numbers (JSON integers): another "
              "spelling of the same numbers gives another face, so the spelling would choose it")


def _whole(*numbers: Any) -> bool:
    """Whether each of ``numbers`` is an integer as JSON writes one (not 3.0, not true)."""
    return all(type(number) is int for number in numbers)


def _concealed_here(data: dict, name: str) -> bool:
    """Whether field ``name`` of a format-2 line is concealed in this copy (its value a
    commitment, its salt withheld: docs/dice.md, "Concealed fields")."""
    concealed = data.get(chain.CONCEALED)
    return isinstance(concealed, dict) and name in concealed and concealed[name] is None


def verify_chain(lines: Iterable[dict], prev: str, first: int, fmt: int = 1) -> list[tuple[int, str]]:
    """The chain checks of ``verify`` (order, links, hashes) for a stretch of a log: ``lines``
    should be seqs ``first``, ``first + 1``, ... following a line whose hash is ``prev``. What a
    game loaded from a snapshot checks of the events after it (domain/service.py ``_load``);
    the dice need the whole log and are left to ``verify``."""
    failures = []
    for n, line in enumerate(lines, start=first):
        failures.extend((n, message) for message in _link_problems(line, n, prev))
        altered = _hash_problem(line, fmt)
        if altered:
            failures.append((n, altered))
        prev = line["hash"]
    return failures


def _link_problems(line: dict, n: int, prev: str) -> list[str]:
    """What is wrong with line ``n``'s place in the chain: its seq, its link to the line before."""
    problems = []
    if line["seq"] != n:
        problems.append(f"seq {line['seq']} where {n} was expected (an event was deleted, inserted or moved)")
    if line["prev_hash"] != prev:
        problems.append("prev_hash does not match the hash of the line before (chain broken)")
    return problems


def _hash_problem(line: dict, fmt: int) -> str | None:
    """Why the line's hash (as a game of format ``fmt`` hashes it) does not match its content,
    or None when it does."""
    if fmt not in chain.FORMATS:
        return f"format {fmt!r} is not one this verifier knows ({', '.join(map(str, chain.FORMATS))})"
    try:
        if chain.line_hash(line, fmt) == line["hash"]:
            return None
    except chain.Unhashable as exc:  # format 2: RFC 8785 takes no integer beyond ±(2**53 − 1)
        return f"cannot be hashed ({exc}), so it was not written by warlog or was altered"
    except UnicodeEncodeError:  # text no UTF-8 encoder writes: warlog never stores it (domain/storable.py)
        return "cannot be hashed (text holding an unpaired surrogate), so it was not written by warlog or was altered"
    if line.get("redacted") is True:  # a seat's or spectator's copy: hidden content removed
        return (f"hash does not match: this {line['type']} is redacted (hidden information removed from a "
                "seat's or spectator's copy); only an umpire's export verifies")
    opened = sorted(chain.salted(line["data"])) if fmt == 2 else []
    if opened:
        return (f"hash does not match the line's content ({line['type']} was altered, or the value of a "
                f"concealed field ({', '.join(opened)}) does not open the commitment it was recorded with)")
    return f"hash does not match the line's content ({line['type']} was altered)"


def header_line(server_key: str | None = None, version: int | None = None) -> str:
    """The first line of an export (docs/dice.md, section 5): the export's version (2 for a
    format-2 game; a version-1 file has none) and the server's key, when known."""
    header: dict[str, Any] = {}
    if version is not None:
        header["version"] = version
    if server_key is not None:
        header["server_key"] = server_key
    return dumps({HEADER_KEY: header})


def export_version(fmt: int) -> int | None:
    """The version an export of a game of format ``fmt`` names in its header: 2, or none (1)."""
    return 2 if fmt == 2 else None


def _header(raw: str, report: Report) -> dict | None:
    """The header of an export's first line, or None when the line is an event (a file without one).
    A header that names a key twice fails at line 1 and gives nothing (no server key)."""
    twice = None
    try:
        obj = loads(raw)
    except DuplicateKey as exc:
        twice = exc
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            return None
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and set(obj) == {HEADER_KEY} and isinstance(obj[HEADER_KEY], dict):
        if twice is not None:
            report.fail(1, str(twice))
            return {}
        return obj[HEADER_KEY]
    return None


def verify_text(text_lines: Iterable[str]) -> tuple[Report, list[dict]]:
    """Verify an export's text; a header line first (not an event, not numbered) gives the
    report its server key, and its version (when it names one) must be the game's format."""
    report = Report()
    text_lines = list(text_lines)
    header = _header(text_lines[0], report) if text_lines else None
    if header is not None:
        text_lines = text_lines[1:]
        key = header.get("server_key")
        report.server_key = key if isinstance(key, str) else None
    lines = parse_lines(text_lines, report)
    if not lines:  # every game's log starts with its GameCreated: this is no export (truncated, the wrong file)
        report.fail(1, "the file holds no events: an export starts with the game's GameCreated line")
    verify(lines, report)
    version = header.get("version") if header is not None else None
    if version is not None and not (type(version) is int and version == report.format):  # true is no version
        report.fail(1, f"the header line says export version {version!r}, but the game (GameCreated) "
                       f"is of format {report.format}: they must agree")
    report.failures.sort(key=lambda f: f[0])
    return report, lines
