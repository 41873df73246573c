"""Dice scheme 2, the dice of format-2 games (docs/dice.md sections 1, 2 and 6): a grinding server
cannot choose its seed after seeing the inputs mixed with it.

- the fixed vectors of tests/data/dice_vectors.json (made with openssl and sha256sum, not with
  domain/dice.py) against ``face2``, ``EpochDice`` and ``client_entropy_v2``;
- the log of a played game: each seed committed before any input mixed with it, each epoch's
  client entropy and each die as docs/dice.md derives them (helpers written from the text);
- ``verify`` fails a file forged the ways a dishonest server would: a commitment after the
  inputs, an opening with another commitment, a client entropy that leaves an order out, a die
  derived under another order's id (each with the chain rewritten: test_verify's ``rechain``);
- a retried order (same id) gets the same dice while the game is the same.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import uuid
from pathlib import Path
from uuid import UUID

import pytest
import rfc8785

from domain import dice, signatures
from domain import events as ev
from domain import game as game_module
from domain.errors import IntegrityFailure
from domain.game import Game
from domain.rulesets import SYSTEM, register
from domain.verify import to_line, verify, verify_text
from projections import folds
from tests.unit.test_ruleset_contract import Toy
from tests.unit.test_verify import index_of, rechain

VECTORS_FILE = Path(__file__).resolve().parents[1] / "data" / "dice_vectors.json"
DATA = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
VECTORS2 = DATA["vectors_scheme2"]
ENTROPIES = DATA["client_entropy_v2"]
BIG = 2**63 + 1


# -- helpers written from docs/dice.md, not from domain/ ------------------------------------------
def spec_face(seed: bytes, game_id: str, epoch: int, entropy: str, input: str, nonce: int, sides: int) -> int:
    limit, i = 2**64 - (2**64 % sides), 0
    while True:
        msg = f"{game_id}|{epoch}|{entropy}|{input}|{nonce}|{i}".encode("utf-8")
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest()[:8], "big")
        if x < limit:
            return x % sides + 1
        i += 1


def spec_entropy(orders: list[str], seeds: dict[str, str]) -> str:
    return hashlib.sha256(rfc8785.dumps({"orders": orders, "seeds": seeds})).hexdigest()


def inputs(lines: list[dict]) -> dict[int, str]:
    """Each DiceRolled's seq -> its input: the order id of the latest OrderAccepted before it."""
    found, order_id = {}, ""
    for line in lines:
        if line["type"] == "OrderAccepted":
            order_id = line["data"]["order_id"]
        elif line["type"] == "DiceRolled":
            found[line["seq"]] = order_id
    return found


def reface(lines: list[dict], epoch: int, seed: bytes, entropy: str, input_of=None) -> None:
    """What a forger does to keep the dice of ``epoch`` consistent with a seed or entropy of its
    choosing: every face derived again (with ``input_of(seq, input)`` as a roll's input)."""
    given = inputs(lines)
    for line in lines:
        if line["type"] == "DiceRolled" and line["data"]["epoch"] == epoch:
            used = given[line["seq"]] if input_of is None else input_of(line["seq"], given[line["seq"]])
            for die in line["data"]["dice"]:
                die["value"] = spec_face(seed, line["game_id"], epoch, entropy, used, die["nonce"], die["sides"])


# -- the vectors -----------------------------------------------------------------------------------
def _args(v: dict) -> tuple:
    return (bytes.fromhex(v["seed_hex"]), v["game_id"], v["epoch"], v["client_entropy"], v["input"], v["nonce"],
            v["sides"])


def test_the_scheme_2_vectors_cover_the_required_cases():
    assert any(v["input"] == "" for v in VECTORS2)  # a set-up roll, before any order
    assert any(not v["input"].isascii() and "|" in v["input"] for v in VECTORS2)
    assert any(v["input"].startswith("sealed:") for v in VECTORS2)
    assert len([v for v in VECTORS2 if v["attempts"] >= 2 and v["sides"] == BIG]) >= 2
    assert {e["client_entropy"] for e in ENTROPIES} >= {v["client_entropy"] for v in VECTORS2}
    # RFC 8785 sorts keys by UTF-16 code units: one vector's seats sort otherwise by code points.
    assert any(list(e["seeds"]) != sorted(e["seeds"]) or
               e["jcs"].index(sorted(e["seeds"])[0]) > e["jcs"].index(sorted(e["seeds"])[-1]) for e in ENTROPIES)


@pytest.mark.parametrize("v", VECTORS2, ids=lambda v: f"d{v['sides']}-{v['input'] or 'none'}-n{v['nonce']}")
def test_face2_and_epoch_dice_match_the_scheme_2_vectors(v):
    assert dice.face2(*_args(v)) == v["face"]
    assert dice.attempts2(*_args(v)) == v["attempts"]
    seed, game_id, epoch, entropy, input, nonce, sides = _args(v)
    assert dice.EpochDice(seed, game_id, epoch, entropy).face(nonce, sides, input) == v["face"]


@pytest.mark.parametrize("v", [v for v in VECTORS2 if v["attempts"] >= 2], ids=lambda v: v["input"])
def test_the_rejection_step_fires_in_the_scheme_2_vectors(v):
    seed, game_id, epoch, entropy, input, nonce, sides = _args(v)
    first = hmac.new(seed, f"{game_id}|{epoch}|{entropy}|{input}|{nonce}|0".encode(), hashlib.sha256).digest()
    assert int.from_bytes(first[:8], "big") >= 2**64 - (2**64 % sides)


@pytest.mark.parametrize("e", ENTROPIES, ids=lambda e: e["client_entropy"][:8])
def test_client_entropy_v2_matches_the_vectors(e):
    assert dice.client_entropy_v2(e["orders"], e["seeds"]) == e["client_entropy"]
    assert rfc8785.dumps({"orders": e["orders"], "seeds": e["seeds"]}).decode() == e["jcs"]


def test_epoch_dice_with_an_input_agrees_with_face2_on_random_inputs():
    rng = random.Random(34)
    for _ in range(200):
        seed = rng.randbytes(32)
        game_id, epoch = str(uuid.UUID(int=rng.getrandbits(128))), rng.randrange(0, 1000)
        entropy = rng.randbytes(32).hex()
        derive = dice.EpochDice(seed, game_id, epoch, entropy)
        for _ in range(4):
            input = rng.choice(("", "o1", "ordre|é", str(uuid.uuid4()), "x" * rng.randrange(0, 200)))
            nonce, sides = rng.randrange(0, 10**6), rng.choice((2, 6, 20, 1000, BIG, 2**64))
            assert derive.face(nonce, sides, input) == dice.face2(seed, game_id, epoch, entropy, input, nonce, sides)


# -- a played game ------------------------------------------------------------------------------------
GID = UUID("5c4e0a7e-2b1d-4c3a-9e8f-000000000034")
SEEDS = {"Blue": "cs-Blue", "Red": "cs-Red"}
ROLL = {"kind": "roll", "dice": "3d1000", "purpose": "fire"}


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"scheme-2-{epoch}".encode()).digest()


def started(game_id: UUID = GID, blue_key=None, seeds=seed_for) -> Game:
    game = Game.create("freeform", options={"sides": ["Blue", "Red"], "phases": ["Turn"]}, game_id=game_id,
                       seed_for=seeds)
    game.join("Blue", "alice", SEEDS["Blue"], seeds, None if blue_key is None else signatures.public_key_of(blue_key))
    game.join("Red", "bob", SEEDS["Red"], seeds)
    return game


def play(game: Game) -> Game:
    """Two rolls in epoch 0, the turn ends (epoch 1 opens), two rolls in epoch 1, the game ends."""
    game.submit("Blue", "o1", ROLL, seed_for)
    game.submit("Red", "o2", ROLL, seed_for)
    game.submit("Red", "o3", {"kind": "advance"}, seed_for)
    game.submit("Blue", "o4", ROLL, seed_for)
    game.submit("Red", "o5", ROLL, seed_for)
    game.submit("Blue", "o6", {"kind": "end", "winner": None, "reason": "test"}, seed_for)
    return game


def lines_of(game: Game) -> list[dict]:
    return [json.loads(json.dumps(to_line(e))) for e in game.pending_events]


@pytest.fixture
def lines() -> list[dict]:
    return lines_of(play(started()))


def test_each_seed_is_committed_before_any_input_mixed_with_it(lines):
    types = [line["type"] for line in lines]
    assert types[:2] == ["GameCreated", "DiceCommitted"]  # epoch 0: before any seat joined
    assert types.index("DiceCommitted") < types.index("SeatJoined")
    for n in (0, 1):
        committed = lines[index_of(lines, "DiceCommitted", n, stream="open")]
        opened = lines[index_of(lines, "DiceEpochOpened", n)]
        assert committed["data"] == {"stream": "open", "epoch": n, "commitment": dice.commitment(seed_for(n))}
        assert opened["data"]["commitment"] == committed["data"]["commitment"]
        assert committed["seq"] < opened["seq"]
    # epoch N + 1's commitment follows epoch N's opening at once, before any order of epoch N
    for n in (0, 1):
        opened = index_of(lines, "DiceEpochOpened", n)
        assert lines[opened + 1]["type"] == "DiceCommitted" and lines[opened + 1]["data"]["epoch"] == n + 1
        orders = [line["seq"] for line in lines[opened:] if line["type"] == "OrderAccepted"]
        assert not orders or lines[opened + 1]["seq"] < orders[0]


def test_the_server_draws_each_seed_before_any_input_of_it_exists():
    """When the game first asks for the seed of epoch N (the seed table draws it then, and keeps
    it), no order of epoch N - 1 and, for epoch 0, no seat's client seed exists yet."""
    asked: dict[int, int] = {}
    holder: dict = {}

    def recording(epoch: int) -> bytes:
        game = holder.get("game")
        asked.setdefault(epoch, game.version if game is not None else 1)
        return seed_for(epoch)

    game = Game.create("freeform", options={"sides": ["Blue", "Red"], "phases": ["Turn"]}, game_id=GID,
                       seed_for=recording)
    holder["game"] = game
    game.join("Blue", "alice", SEEDS["Blue"], recording)
    game.join("Red", "bob", SEEDS["Red"], recording)
    for n, (seat, order) in enumerate([("Blue", ROLL), ("Red", {"kind": "advance"}), ("Blue", ROLL)]):
        game.submit(seat, f"o{n}", order, recording)
    lines = lines_of(game)
    first_join = next(line["seq"] for line in lines if line["type"] == "SeatJoined")
    assert asked[0] < first_join
    for n in (1, 2):
        opened = lines[index_of(lines, "DiceEpochOpened", n - 1)]["seq"]
        orders = [line["seq"] for line in lines if line["type"] == "OrderAccepted" and line["seq"] > opened]
        assert asked[n] <= opened and (not orders or asked[n] < orders[0])


def test_client_entropy_hashes_the_orders_of_the_epoch_before_and_the_client_seeds(lines):
    opened = [line["data"] for line in lines if line["type"] == "DiceEpochOpened"]
    assert opened[0]["client_entropy"] == spec_entropy([], SEEDS)
    assert opened[1]["client_entropy"] == spec_entropy(["o1", "o2", "o3"], SEEDS)


def test_each_die_depends_on_the_id_of_the_order_that_rolls_it(lines):
    entropy = {line["data"]["epoch"]: line["data"]["client_entropy"]
               for line in lines if line["type"] == "DiceEpochOpened"}
    given = inputs(lines)
    assert sorted(set(given.values())) == ["o1", "o2", "o4", "o5"]
    for line in lines:
        if line["type"] == "DiceRolled":
            epoch = line["data"]["epoch"]
            for die in line["data"]["dice"]:
                assert die["value"] == spec_face(seed_for(epoch), str(GID), epoch, entropy[epoch], given[line["seq"]],
                                                 die["nonce"], die["sides"])


def test_the_intact_file_verifies_every_die(lines):
    report = verify(lines)
    assert report.ok, report.summary()
    assert (report.epochs_revealed, report.rolls_verified, report.dice_verified) == (2, 4, 12)


def test_the_dice_view_checks_scheme_2_rolls(lines):
    view = folds.dice_empty()
    for line in lines:
        view = folds.dice_apply(view, line)
    assert [roll["status"] for roll in view["rolls"]] == ["verified"] * 4
    forged = copy.deepcopy(lines)
    reface(forged, 1, seed_for(1), lines[index_of(lines, "DiceEpochOpened", 1)]["data"]["client_entropy"],
           lambda seq, input: "o1")
    view = folds.dice_empty()
    for line in forged:
        view = folds.dice_apply(view, line)
    assert [roll["status"] for roll in view["rolls"]] == ["verified", "verified", "failed", "failed"]


# -- verify catches the forgeries of a grinding server --------------------------------------------
def failures(forged: list[dict]) -> list[tuple[int, str]]:
    report, _ = verify_text(rechain(forged))
    return report.failures


@pytest.mark.parametrize("epoch, after", [(0, "SeatJoined"), (1, "OrderAccepted")])
def test_verify_fails_a_commitment_recorded_after_an_input_mixed_with_its_seed(lines, epoch, after):
    """The server holds its commitment back until it has seen an input (a seat's client seed, an
    order id), then commits to a seed chosen knowing it: the file names the commitment's line."""
    committed = lines.pop(index_of(lines, "DiceCommitted", epoch, stream="open"))
    at = index_of(lines, after)  # the first SeatJoined; the first OrderAccepted of epoch 0
    lines.insert(at + 1, committed)
    found = failures(lines)
    assert [n for n, _ in found] == [at + 2], found
    assert f"comes after line {at + 1} ({after}), an input mixed with that seed" in found[0][1]


def test_verify_fails_a_seed_committed_again_after_the_orders_of_its_epoch_were_seen(lines):
    """A grinding server: having seen epoch 0's orders, it picks another seed for epoch 1 and opens
    the epoch with its commitment (the dice and the reveal made to match it)."""
    ground = hashlib.sha256(b"a seed chosen after the orders").digest()
    opened = index_of(lines, "DiceEpochOpened", 1)
    lines[opened]["data"]["commitment"] = dice.commitment(ground)
    lines[index_of(lines, "DiceEpochRevealed", 1)]["data"]["seed"] = ground.hex()
    reface(lines, 1, ground, lines[opened]["data"]["client_entropy"])
    found = failures(lines)
    committed = index_of(lines, "DiceCommitted", 1, stream="open") + 1
    assert [n for n, _ in found] == [opened + 1], found
    assert f"not the one committed on line {committed}" in found[0][1]


def test_a_commitment_rewritten_too_breaks_the_head_a_seat_signed_before_its_order():
    """The forger rewrites the DiceCommitted itself: the chain, rewritten, holds; but Blue signed
    its first order over the head it was shown, which covered the true commitment."""
    key = signatures.new_private_key()
    game = started(blue_key=key)
    head = game.chain_head  # Blue's view after Red joined: the DiceCommitted of epoch 1 is the last line
    assert lines_of(game)[-1]["type"] == "DiceCommitted"
    in_log = {e.hash for e in game.pending_events}
    game.submit("Blue", "o1", ROLL, seed_for, (signatures.sign_order(key, str(GID), "o1", ROLL, head), head,
                                               in_log.__contains__))
    game.submit("Red", "o2", {"kind": "advance"}, seed_for)
    lines = lines_of(game)
    assert verify(lines).ok
    ground = hashlib.sha256(b"a seed chosen after Blue's order").digest()
    lines[index_of(lines, "DiceCommitted", 1, stream="open")]["data"]["commitment"] = dice.commitment(ground)
    lines[index_of(lines, "DiceEpochOpened", 1)]["data"]["commitment"] = dice.commitment(ground)
    found = failures(lines)
    signed = index_of(lines, "OrderSigned") + 1
    assert [n for n, _ in found] == [signed], found
    assert "signed over is not the hash of a line before it" in found[0][1]


def test_verify_fails_a_client_entropy_that_leaves_out_a_recorded_order(lines):
    """The server drops an order it did not like from epoch 1's client entropy (and makes the
    dice match): the entropy recomputed from the file's OrderAccepted lines differs."""
    opened = index_of(lines, "DiceEpochOpened", 1)
    lines[opened]["data"]["client_entropy"] = spec_entropy(["o1", "o2"], SEEDS)
    reface(lines, 1, seed_for(1), lines[opened]["data"]["client_entropy"])
    found = failures(lines)
    assert [n for n, _ in found] == [opened + 1], found
    assert f"which give {spec_entropy(['o1', 'o2', 'o3'], SEEDS)}" in found[0][1]


def test_verify_fails_a_die_derived_under_another_order_s_id(lines):
    """Red's roll of epoch 1 with the faces Blue's order o4 would have rolled: every hash
    recomputed, the revealed seed and the roll's input give it away."""
    entropy = lines[index_of(lines, "DiceEpochOpened", 1)]["data"]["client_entropy"]
    red = index_of(lines, "DiceRolled", 3)
    before = [d["value"] for d in lines[red]["data"]["dice"]]
    reface(lines, 1, seed_for(1), entropy, lambda seq, input: "o4" if input == "o5" else input)
    assert [d["value"] for d in lines[red]["data"]["dice"]] != before
    found = failures(lines)
    assert {n for n, _ in found} == {red + 1}, found
    assert "but the revealed seed gives" in found[0][1]


def test_a_format_1_file_is_not_asked_for_commitments(lines):
    lines = [line for line in lines if line["type"] not in ("DiceCommitted", "SealedDiceRevealed")]
    assert any("without a DiceCommitted" in m for _, m in failures(copy.deepcopy(lines)))
    del lines[0]["data"]["format"]  # now a format-1 file: its dice are scheme 1's, so they fail
    found = failures(lines)
    assert found and all("revealed seed gives" in m for _, m in found)


# -- retries ------------------------------------------------------------------------------------------
def replayed(game: Game) -> Game:
    """Another copy of the game as stored: its events folded again."""
    copy_ = None
    for event in game.pending_events:
        copy_ = event.mutate(copy_)
    return copy_


def rolled(game: Game, seat: str, order_id: str) -> list[int]:
    game.submit(seat, order_id, ROLL, seed_for)
    return [d["value"] for d in game.pending_events[-1].dice]


def test_a_retried_order_gets_the_same_dice_while_the_game_is_the_same():
    game = started()
    first = rolled(replayed(game), "Blue", "o-7")
    assert rolled(replayed(game), "Blue", "o-7") == first  # refused once, sent again under its id
    assert rolled(replayed(game), "Blue", "o-8") != first  # a new id would be a new roll
    moved_on = replayed(game)
    rolled(moved_on, "Red", "r-1")  # another order rolled meanwhile: the retry gets later nonces
    assert rolled(moved_on, "Blue", "o-7") != first


# -- the other paths that open epochs ------------------------------------------------------------------
class TwoTurns(Toy):
    """A ruleset that ends two turns within one order and rolls in each epoch it opens."""

    name = "toy-two-turns"

    def decide(self, state, seat, order, dice):
        out = [dice.roll(1, 1000, seat=seat, purpose="before")]
        for turn in (state["turn"] + 1, state["turn"] + 2):
            out.append((ev.TurnAdvanced, {"turn": turn, "phase": "Action", "rule": "TOY 1"}))
            dice.close_epoch()
            out.append(dice.roll(1, 1000, seat=SYSTEM, purpose=f"turn {turn}"))
        return out


register(TwoTurns())


def test_rolls_after_turns_end_within_an_order_use_the_seeds_committed_and_the_next_entropies():
    game = Game.create("toy-two-turns", game_id=GID, seed_for=seed_for)
    game.join("Attacker", "ann", "a", seed_for)
    game.join("Defender", "dan", "d", seed_for)
    game.submit("Attacker", "x1", {"kind": "go"}, seed_for)
    game.concede("Defender", seed_for)
    lines = lines_of(game)
    opened = [line["data"] for line in lines if line["type"] == "DiceEpochOpened"]
    seeds = {"Attacker": "a", "Defender": "d"}
    assert [o["client_entropy"] for o in opened] == [spec_entropy([], seeds), spec_entropy(["x1"], seeds),
                                                      spec_entropy([], seeds)]
    assert set(inputs(lines).values()) == {"x1"}
    report = verify(lines)
    assert report.ok, report.summary()
    assert (report.epochs_revealed, report.rolls_verified) == (3, 3)


def test_a_game_whose_server_lost_the_committed_seed_opens_no_epoch():
    """As an imported game: the seed this server holds is not the one committed, so epoch 0 is
    not opened with it (the command is refused; the service saves nothing of it)."""
    game = Game.create("freeform", options={"sides": ["Blue", "Red"]}, game_id=GID, seed_for=seed_for)
    other = lambda epoch: hashlib.sha256(f"another server {epoch}".encode()).digest()  # noqa: E731
    game.join("Blue", "alice", "", other)
    with pytest.raises(IntegrityFailure, match="does not hold the seed committed for dice epoch 0"):
        game.join("Red", "bob", "", other)


def test_a_format_1_game_keeps_scheme_1(monkeypatch):
    monkeypatch.setattr(game_module, "FORMAT", 1)
    game = started()
    game.submit("Blue", "o1", ROLL, seed_for)
    lines = lines_of(game)
    assert "DiceCommitted" not in {line["type"] for line in lines}
    opened = lines[index_of(lines, "DiceEpochOpened")]["data"]
    assert opened["client_entropy"] == "cs-Blue|cs-Red"
    faces = [d["value"] for d in lines[-1]["data"]["dice"]]
    assert faces == [dice.face(seed_for(0), str(GID), 0, "cs-Blue|cs-Red", n, 1000) for n in range(3)]
