"""Offline verification of an exported game: the hash chain and every die of every revealed epoch.

Works from export lines alone (docs/dice.md), so an umpire can check a game without the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from domain import chain, dice, sealed
from domain.events import event_data

LINE_KEYS = ("game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash")
_LINE_KEY_SET = frozenset(LINE_KEYS)
_TWO_64 = 2**64
_DICE_EVENTS = ("DiceRolled", "DiceEpochOpened", "DiceEpochRevealed")  # the events _dice_step reads


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
    reveals_verified: int = 0  # sealed-orders reveals checked against their commitments
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
                f"revealed holding {self.rolls_unrevealed} roll(s)")
        if self.reveals_verified:
            head += f"; {self.reveals_verified} sealed-orders reveal(s) verified against their commitments"
        if self.ok:
            return "OK " + head
        lines = [f"FAILED {head}"] + [f"  line {n}: {m}" for n, m in self.failures]
        return "\n".join(lines)


def parse_lines(text_lines: Iterable[str], report: Report) -> list[dict | None]:
    """JSON-decode export lines; a line that is not a JSON object is a failure naming it and
    stays in the list as None, so later failures keep the file's line numbers."""
    parsed = []
    for n, raw in enumerate(text_lines, start=1):
        if not raw.strip():
            # Kept as a placeholder so every failure is numbered by its line in the file.
            report.fail(n, "empty line")
            parsed.append(None)
            continue
        try:
            obj = json.loads(raw)
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
    epochs: dict[int, dict] = {}
    open_epoch: int | None = None
    commitments: dict[tuple, str] = {}  # (seat, round) -> the commitment an OrderSealed recorded
    for n, line in enumerate(lines, start=1):
        if line is None:
            continue  # reported by parse_lines
        odd_keys = line.keys() != _LINE_KEY_SET  # the usual line has exactly LINE_KEYS
        if odd_keys:
            missing = [k for k in LINE_KEYS if k not in line]
            if missing:
                report.fail(n, f"missing {', '.join(missing)}")
                continue
        report.events += 1
        if report.game_id is None:
            report.game_id = line["game_id"]
        elif line["game_id"] != report.game_id:
            report.fail(n, f"belongs to game {line['game_id']}, not {report.game_id}")
        for message in _link_problems(line, n, prev):
            report.fail(n, message)
        if odd_keys:
            report.fail(n, f"unexpected keys {', '.join(sorted(set(line) - _LINE_KEY_SET))}")
        altered = _hash_problem(line)
        if altered:
            report.fail(n, altered)
        prev = line["hash"]
        type_ = line["type"]
        if type_ in _SEALED_EVENTS:
            _sealed_step(line, n, commitments, report)
            continue
        if type_ not in _DICE_EVENTS:  # a tuple: compared with ==, so any JSON value may be looked up
            continue
        data = line["data"] if isinstance(line["data"], dict) else {}
        try:
            open_epoch = _dice_step(type_, data, n, epochs, open_epoch, line["game_id"], report)
        except (KeyError, TypeError, ValueError) as exc:
            report.fail(n, f"malformed {type_} data: {exc!r}")
    report.chain_head = prev
    for number, epoch in epochs.items():
        if not epoch["revealed"]:
            report.epochs_unrevealed += 1
            report.rolls_unrevealed += len(epoch["rolls"])
    return report


_SEALED_EVENTS = ("OrderSealed", "OrderRevealed")


def _sealed_step(line: dict, n: int, commitments: dict, report: Report) -> None:
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
        if line.get("redacted") is True:
            return
        if sealed.commitment(line["game_id"], key[0], key[1], data["orders"], data["salt"]) != commitments[key]:
            report.fail(n, f"the orders {key[0]} revealed for round {key[1]} do not match its commitment")
            return
        report.reveals_verified += 1
    except (KeyError, TypeError, ValueError) as exc:
        report.fail(n, f"malformed {line['type']} data: {exc!r}")


def _dice_step(type_: str, data: dict, n: int, epochs: dict, open_epoch: int | None,
               game_id: str, report: Report) -> int | None:
    if type_ == "DiceEpochOpened":
        number = data["epoch"]
        if number in epochs:
            report.fail(n, f"dice epoch {number} opened twice")
        if open_epoch is not None:
            report.fail(n, f"dice epoch {number} opened while epoch {open_epoch} is still open")
        epochs[number] = {"commitment": data["commitment"], "entropy": data["client_entropy"],
                          "next_nonce": 0, "rolls": [], "revealed": False}
        return number
    if type_ == "DiceRolled":
        number = data["epoch"]
        if number != open_epoch or number not in epochs:
            report.fail(n, f"roll in dice epoch {number}, which is not open")
            return open_epoch
        epoch = epochs[number]
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
        epoch["rolls"].append((n, data["dice"]))
        return open_epoch
    if type_ == "DiceEpochRevealed":
        number = data["epoch"]
        epoch = epochs.get(number)
        if epoch is None or number != open_epoch:
            report.fail(n, f"dice epoch {number} revealed but not open")
            return open_epoch
        seed = bytes.fromhex(data["seed"])
        if dice.commitment(seed) != epoch["commitment"]:
            report.fail(n, f"the seed of dice epoch {number} does not match its commitment")
        else:
            derive = dice.EpochDice(seed, game_id, number, epoch["entropy"]).face
            for roll_line, faces in epoch["rolls"]:
                for die in faces:
                    sides = die["sides"]
                    if not 2 <= sides <= _TWO_64:
                        continue  # already reported at the roll
                    want = derive(die["nonce"], sides)
                    if want != die["value"]:
                        report.fail(roll_line, f"die nonce {die['nonce']} shows {die['value']} but "
                                               f"the revealed seed gives {want}")
                report.rolls_verified += 1
                report.dice_verified += len(faces)
        epoch["revealed"] = True
        report.epochs_revealed += 1
        return None
    return open_epoch


def verify_chain(lines: Iterable[dict], prev: str, first: int) -> list[tuple[int, str]]:
    """The chain checks of ``verify`` (order, links, hashes) for a stretch of a log: ``lines``
    should be seqs ``first``, ``first + 1``, ... following a line whose hash is ``prev``. What a
    game loaded from a snapshot checks of the events after it (domain/service.py ``_load``);
    the dice need the whole log and are left to ``verify``."""
    failures = []
    for n, line in enumerate(lines, start=first):
        failures.extend((n, message) for message in _link_problems(line, n, prev))
        altered = _hash_problem(line)
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


def _hash_problem(line: dict) -> str | None:
    """Why the line's hash does not match its content, or None when it does."""
    if chain.line_hash(line) == line["hash"]:
        return None
    if line.get("redacted") is True:  # a seat's or spectator's copy: hidden content removed
        return (f"hash does not match: this {line['type']} is redacted (hidden information removed from a "
                "seat's or spectator's copy); only an umpire's export verifies")
    return f"hash does not match the line's content ({line['type']} was altered)"


def verify_text(text_lines: Iterable[str]) -> tuple[Report, list[dict]]:
    report = Report()
    lines = parse_lines(text_lines, report)
    verify(lines, report)
    report.failures.sort(key=lambda f: f[0])
    return report, lines
