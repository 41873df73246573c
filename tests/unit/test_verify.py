"""domain.verify on real exports: an intact file passes, and each kind of tampering is named.

The game is played through the real service on SQLite; the export is then edited the way a
dishonest server or player might, and ``verify_text`` must name the first bad line.
"""

from __future__ import annotations

import copy
import hashlib
import json
import signal
from contextlib import contextmanager

import pytest
import rfc8785

from domain import dice
from domain import game as game_module
from domain.verify import verify_text
from tests.conftest import new_freeform_game

GENESIS = "0" * 64


# -- helpers written from the spec of docs/dice.md, not from domain/ -----------------------------
def spec_hash(line: dict, fmt: int = 1) -> str:
    """docs/dice.md's line hash, written from the text: format 1 Python's canonical JSON, format 2
    RFC 8785 of the line with each concealed field's commitment in place of its value and salt."""
    body = {k: v for k, v in line.items() if k != "hash"}
    if fmt == 1:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    data, concealed = body["data"], body["data"].get("concealed")
    if concealed:
        data = dict(data, concealed={name: None for name in concealed})
        for name, salt in concealed.items():
            if salt is not None:
                opened = {"field": name, "salt": salt, "value": body["data"][name]}
                data[name] = hashlib.sha256(rfc8785.dumps(opened)).hexdigest()
    return hashlib.sha256(rfc8785.dumps({**body, "data": data})).hexdigest()


def rechain(lines: list[dict]) -> list[str]:
    """Renumber seq and recompute every prev_hash and hash, as a forger would; back to text."""
    prev = GENESIS
    for n, line in enumerate(lines, start=1):
        line["seq"] = n
        line["prev_hash"] = prev
        line["hash"] = spec_hash(line, lines[0]["data"].get("format", 1))
        prev = line["hash"]
    return [json.dumps(line, ensure_ascii=False) for line in lines]


def index_of(lines: list[dict], type_: str, nth: int = 0, **data) -> int:
    """0-based index of the nth line of ``type_`` whose data has the given items."""
    found = [i for i, line in enumerate(lines) if line["type"] == type_
             and all(line["data"].get(k) == v for k, v in data.items())]
    return found[nth]


def first_failure(text_lines: list[str]) -> tuple[int, str]:
    report, _ = verify_text(text_lines)
    assert not report.ok, "the tampering went unnoticed"
    return report.failures[0]


# -- the game ------------------------------------------------------------------------------------
EPOCH0_ROLLS = 3
EPOCH1_ROLLS = 2


def play(app) -> tuple:
    """A game in turn 2: three rolls in epoch 0 (revealed by the TurnAdvanced), two in epoch 1
    (still open). Returns (app, game_id, export text lines)."""
    game_id = new_freeform_game(app)  # phases Move, Fight
    orders = [
        ("Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire at Hill 112"}),
        ("Red", {"kind": "roll", "dice": "d10", "purpose": "morale", "target": {"compare": "<=", "value": 7}}),
        ("Blue", {"kind": "note", "text": "Blue moves the Guards to Hill 112"}),
        ("Red", {"kind": "roll", "dice": "d66", "purpose": "random event"}),
        ("Blue", {"kind": "advance"}),  # Move -> Fight
        ("Red", {"kind": "advance"}),  # Fight -> turn 2: TurnAdvanced reveals epoch 0, opens epoch 1
        ("Blue", {"kind": "roll", "dice": "3d6", "purpose": "assault"}),
        ("Red", {"kind": "roll", "dice": "d20", "purpose": "weather"}),
    ]
    for n, (seat, order) in enumerate(orders):
        app.submit_order(game_id, seat, f"o{n}", order)
    return app, game_id, list(app.export(game_id))


@pytest.fixture
def played(sqlite_app):
    """``play``: a game of today's format (2)."""
    return play(sqlite_app)


@pytest.fixture
def played_format_1(sqlite_app, monkeypatch):
    """``play`` as a game created before format 2 was: scheme-1 dice, no DiceCommitted."""
    monkeypatch.setattr(game_module, "FORMAT", 1)
    return play(sqlite_app)


@pytest.fixture
def lines(played):
    return [json.loads(t) for t in played[2]]


def test_export_lines_follow_the_documented_format_and_hash_rule(lines):
    prev = GENESIS
    for n, line in enumerate(lines, start=1):
        assert set(line) == {"game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"}
        assert line["seq"] == n
        assert line["prev_hash"] == prev
        assert line["hash"] == spec_hash(line)
        prev = line["hash"]
    types = [line["type"] for line in lines]
    assert types.index("DiceEpochOpened") < types.index("DiceRolled") < types.index("TurnAdvanced")
    assert types.index("TurnAdvanced") + 1 == types.index("DiceEpochRevealed")


def test_intact_export_verifies_with_rolls_checked(played):
    report, _ = verify_text(played[2])
    assert report.ok, report.summary()
    assert report.events == len(played[2])
    assert report.epochs_revealed == 1
    assert report.rolls_verified == EPOCH0_ROLLS
    assert report.dice_verified == 2 + 1 + 2
    assert report.summary().startswith("OK ")


def test_unrevealed_epoch_is_reported_as_unrevealed_not_as_failure(played):
    report, _ = verify_text(played[2])
    assert report.ok
    assert report.epochs_unrevealed == 1
    assert report.rolls_unrevealed == EPOCH1_ROLLS
    assert "1 epoch(s) not yet revealed holding 2 roll(s)" in report.summary()


def test_edited_line_is_flagged_naming_that_line(played, lines):
    i = index_of(lines, "DiceRolled", 0)
    lines[i]["data"]["purpose"] = "fire at Hill 113"  # hash left as it was
    text = list(played[2])
    text[i] = json.dumps(lines[i])
    n, message = first_failure(text)
    assert n == i + 1
    assert "hash does not match" in message


def test_edited_die_value_without_rehash_is_flagged_at_that_line(played, lines):
    i = index_of(lines, "DiceRolled", 0)
    die = lines[i]["data"]["dice"][0]
    die["value"] = die["value"] % 6 + 1
    text = list(played[2])
    text[i] = json.dumps(lines[i])
    assert first_failure(text)[0] == i + 1


def test_deleted_line_is_flagged_naming_the_first_bad_line(played, lines):
    i = index_of(lines, "OrderAccepted", 2)
    text = played[2][:i] + played[2][i + 1:]
    n, message = first_failure(text)
    assert n == i + 1
    assert f"seq {i + 2} where {i + 1} was expected" in message


def test_inserted_line_is_flagged_naming_the_first_bad_line(played, lines):
    i = index_of(lines, "DiceRolled", 1)
    forged = copy.deepcopy(lines[i])  # a second copy of a roll, right after the original
    text = played[2][:i + 1] + [json.dumps(forged)] + played[2][i + 1:]
    n, _ = first_failure(text)
    assert n == i + 2


def test_swapped_lines_are_flagged_naming_the_first_bad_line(played, lines):
    i = index_of(lines, "DiceRolled", 1)
    text = list(played[2])
    text[i], text[i + 1] = text[i + 1], text[i]
    n, _ = first_failure(text)
    assert n == i + 1


def test_altered_die_with_chain_rehashed_is_caught_by_the_dice_check(played, lines):
    i = index_of(lines, "DiceRolled", 1)  # Red's d10, revealed in epoch 0
    die = lines[i]["data"]["dice"][0]
    die["value"] = die["value"] % 10 + 1
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "but the revealed seed gives" in report.failures[0][1]


def test_altered_revealed_seed_with_chain_rehashed_is_a_commitment_mismatch(played, lines):
    i = index_of(lines, "DiceEpochRevealed", 0)
    lines[i]["data"]["seed"] = hashlib.sha256(b"another seed").hexdigest()
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "does not match its commitment" in report.failures[0][1]


def test_skipped_nonce_is_flagged(played, lines):
    # A forger drops a whole roll (its order stays) and rehashes: the next roll of the epoch starts
    # at a nonce nobody rolled before it.
    dropped = index_of(lines, "DiceRolled", 1)
    del lines[dropped]
    report, _ = verify_text(rechain(lines))
    nxt = index_of(lines, "DiceRolled", 1)
    assert report.failures[0][0] == nxt + 1, report.summary()
    assert "die nonce 3 where 2 was expected" in report.failures[0][1]


def test_skipped_nonce_in_an_unrevealed_epoch_is_flagged(played, lines):
    i = index_of(lines, "DiceRolled", 1, epoch=1)
    for die in lines[i]["data"]["dice"]:
        die["nonce"] += 1
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "where 3 was expected" in report.failures[0][1]


def test_key_added_to_a_line_is_flagged(played, lines):
    i = index_of(lines, "DiceRolled", 0)
    # The hash covers the whole line but its hash, so a key slipped in is flagged, not ignored.
    lines[i]["umpire_note"] = "Red rolled this twice"
    text = list(played[2])
    text[i] = json.dumps(lines[i])
    n, message = first_failure(text)
    assert n == i + 1
    assert "umpire_note" in message


def test_key_added_with_chain_rehashed_is_still_flagged(played, lines):
    i = index_of(lines, "DiceRolled", 0)
    lines[i]["umpire_note"] = "Red rolled this twice"
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()


@contextmanager
def time_limit(seconds: float):
    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_format_1_game_verifies_with_scheme_1_dice(played_format_1):
    lines = [json.loads(t) for t in played_format_1[2]]
    assert "format" not in lines[0]["data"] and not any(line["type"] == "DiceCommitted" for line in lines)
    opened = lines[index_of(lines, "DiceEpochOpened")]
    assert opened["data"]["client_entropy"] == "seed-Blue|seed-Red"  # scheme 1: the seeds joined by '|'
    report, _ = verify_text(played_format_1[2])
    assert report.ok, report.summary()
    assert (report.rolls_verified, report.dice_verified) == (EPOCH0_ROLLS, 2 + 1 + 2)


def test_die_with_more_than_2_64_sides_is_refused_not_looped_on(played_format_1):
    lines = [json.loads(t) for t in played_format_1[2]]  # format 2 (RFC 8785) cannot even hash such a number
    i = index_of(lines, "DiceRolled", 0)
    lines[i]["data"]["dice"][0].update(sides=2**64 + 1, value=1)
    # Above 2**64 sides no 64-bit draw is ever accepted, so deriving the face would never end.
    with time_limit(3):
        report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "is not a die" in report.failures[0][1]


def test_export_of_game_in_progress_never_contains_the_open_seed(played):
    app, game_id, text_lines = played
    game = app.get_game(game_id)
    open_epoch = game.dice["epoch"]
    assert open_epoch == 1 and game.dice["commitment"] is not None
    whole = "\n".join(text_lines).lower()
    open_seed = app.seeds.seed_for(game_id, open_epoch)
    assert dice.commitment(open_seed) == game.dice["commitment"]
    assert open_seed.hex() not in whole
    ahead = app.seeds.seed_for(game_id, open_epoch + 1)  # committed to already (scheme 2), still secret
    assert game.open_committed == {"epoch": open_epoch + 1, "commitment": dice.commitment(ahead)}
    assert ahead.hex() not in whole
    # The search itself works: the revealed seed of epoch 0 is found the same way.
    assert app.seeds.seed_for(game_id, 0).hex() in whole


def test_ending_the_game_reveals_the_last_epoch_and_all_rolls_verify(played):
    app, game_id, _ = played
    app.submit_order(game_id, "Blue", "end", {"kind": "end", "winner": "Blue", "reason": "Hill 112 held"})
    report, lines = verify_text(list(app.export(game_id)))
    assert report.ok, report.summary()
    assert (report.epochs_revealed, report.epochs_unrevealed) == (2, 0)
    assert report.rolls_verified == EPOCH0_ROLLS + EPOCH1_ROLLS
    assert [line["type"] for line in lines][-3:] == ["GameEnded", "DiceEpochRevealed", "SealedDiceRevealed"]


def test_taken_back_roll_stays_in_the_log_marked_superseded(sqlite_app):
    app = sqlite_app
    game_id = new_freeform_game(app)
    rolled = app.submit_order(game_id, "Blue", "r1", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
    roll_seq = rolled.events[-1]["seq"]
    app.request_take_back(game_id, "Blue", "wrong target")
    app.answer_take_back(game_id, "Red", True)
    again = app.submit_order(game_id, "Blue", "r2", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
    app.submit_order(game_id, "Blue", "end", {"kind": "end", "winner": None, "reason": "test"})
    report, lines = verify_text(list(app.export(game_id)))
    assert report.ok, report.summary()
    accepted = lines[index_of(lines, "TakeBackAccepted")]
    assert accepted["data"]["superseded_rolls"] == [roll_seq]
    assert lines[roll_seq - 1]["type"] == "DiceRolled"
    # The later roll continues the nonces: the superseded roll's dice stay used.
    assert [d["nonce"] for d in again.events[-1]["data"]["dice"]] == [2, 3]
    assert report.rolls_verified == 2


def test_re_roll_names_the_roll_it_replaces(sqlite_app):
    app = sqlite_app
    game_id = new_freeform_game(app)
    first = app.submit_order(game_id, "Blue", "r1", {"kind": "roll", "dice": "d6", "purpose": "rally"})
    seq = first.events[-1]["seq"]
    again = app.submit_order(game_id, "Blue", "r2", {"kind": "roll", "dice": "d6", "purpose": "rally (leader re-roll)",
                                                     "replaces": seq})
    assert again.events[-1]["data"]["replaces"] == seq
    assert first.events[-1]["data"]["replaces"] is None
    report, _ = verify_text(list(app.export(game_id)))
    assert report.ok, report.summary()


# -- the chain's hash is the spec's: sha256 of json.dumps with docs/dice.md's options ---------------
def _spec_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def test_line_hash_and_digest_are_the_spec_hashes(lines):
    """The hash of every exported line, and the digest of its data, as docs/dice.md defines them."""
    from domain import chain
    assert any(line["type"] == "DiceRolled" for line in lines)
    for line in lines:
        body = {k: v for k, v in line.items() if k != "hash"}
        assert chain.line_hash(line) == hashlib.sha256(_spec_json(body)).hexdigest() == line["hash"]
        assert chain.digest(line["data"]) == hashlib.sha256(_spec_json(line["data"])).hexdigest()
    with pytest.raises(TypeError):  # keys of mixed kinds: refused, as json.dumps refuses them
        chain.digest({"a": 1, 2: "b"})


def test_a_format_1_game_made_by_this_code_verifies_as_format_1(tmp_path, monkeypatch):
    """Format 1 stays a format this code writes correctly: its GameCreated holds no ``format``."""
    from domain import game as game_module
    from domain.service import Warlog
    from domain.storage import config_from_env

    monkeypatch.setattr(game_module, "FORMAT", 1)
    app = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path)}), create_tables=True)
    try:
        gid = new_freeform_game(app)
        app.submit_order(gid, "Blue", "o1", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
        text = list(app.export(gid))
    finally:
        app.close()
    first = json.loads(text[0])
    assert "format" not in first["data"] and first["hash"] == spec_hash(first, 1)
    report, _ = verify_text(text)
    assert report.ok, report.summary()


@pytest.mark.parametrize("data, hash_", [({"note": "\ud800"}, "ab"), ({}, [1]), ({}, {"a": 1})],
                         ids=["lone surrogate", "hash a list", "hash an object"])
def test_a_line_no_writer_could_make_is_reported_not_crashed_on(data, hash_):
    line = {"game_id": "x", "seq": 1, "type": "GameCreated", "timestamp": "t", "data": data,
            "prev_hash": GENESIS, "hash": hash_}
    report, _ = verify_text([json.dumps(line)])
    assert not report.ok and {n for n, _ in report.failures} == {1}
