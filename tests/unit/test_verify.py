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

from domain import dice
from domain.verify import verify_text
from tests.conftest import new_freeform_game

GENESIS = "0" * 64


# -- helpers written from the spec of docs/dice.md, not from domain/ -----------------------------
def spec_hash(line: dict) -> str:
    body = {k: v for k, v in line.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rechain(lines: list[dict]) -> list[str]:
    """Renumber seq and recompute every prev_hash and hash, as a forger would; back to text."""
    prev = GENESIS
    for n, line in enumerate(lines, start=1):
        line["seq"] = n
        line["prev_hash"] = prev
        line["hash"] = spec_hash(line)
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


@pytest.fixture
def played(sqlite_app):
    """A game in turn 2: three rolls in epoch 0 (revealed by the TurnAdvanced), two in epoch 1
    (still open). Returns (app, game_id, export text lines)."""
    app = sqlite_app
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


def test_die_with_more_than_2_64_sides_is_refused_not_looped_on(lines):
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
    # The search itself works: the revealed seed of epoch 0 is found the same way.
    assert app.seeds.seed_for(game_id, 0).hex() in whole


def test_ending_the_game_reveals_the_last_epoch_and_all_rolls_verify(played):
    app, game_id, _ = played
    app.submit_order(game_id, "Blue", "end", {"kind": "end", "winner": "Blue", "reason": "Hill 112 held"})
    report, lines = verify_text(list(app.export(game_id)))
    assert report.ok, report.summary()
    assert (report.epochs_revealed, report.epochs_unrevealed) == (2, 0)
    assert report.rolls_verified == EPOCH0_ROLLS + EPOCH1_ROLLS
    assert [line["type"] for line in lines][-2:] == ["GameEnded", "DiceEpochRevealed"]


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


# -- chain.canonical_body, the fast path verify hashes lines with, against the spec's json.dumps ---
def _spec_body(line: dict) -> bytes:
    body = {k: v for k, v in line.items() if k != "hash"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _die_variants(die: dict) -> list:
    """A die as verify may meet it in a file: plain, or any of the shapes the fast path must leave alone."""
    return [
        die,
        {"value": die["value"], "sides": die["sides"], "nonce": die["nonce"]},  # keys in another order
        {**die, "value": True},
        {**die, "sides": 6.0},
        {**die, "nonce": -(2**70)},
        {**die, "value": "3"},
        {**die, "value": None},
        {**die, "extra": 1},
        {"nonce": die["nonce"], "sides": die["sides"]},
        {"nonce": die["nonce"], "sides": die["sides"], "valuе": 1},  # Cyrillic е
        [die["nonce"], die["sides"], die["value"]],
        {"nonce": {"b": 1, "a": 2}, "sides": 6, "value": 1},
    ]


def _line_variants(line: dict, rng) -> list[dict]:
    variants = []
    for die in _die_variants(line["data"]["dice"][0]):
        variant = copy.deepcopy(line)
        variant["data"]["dice"][rng.randrange(len(variant["data"]["dice"]))] = die
        variants.append(variant)
    for key in ("a", "Dice", "", "dicd", "dice ", "dicf", "é", "target"):
        variant = copy.deepcopy(line)
        variant["data"][key] = {"z": [1, {"y": 2, "x": "é"}], "a": None}
        variants.append(variant)
    for key in ("Data", "_", "a", "data2", "zz", "hash2"):
        variant = copy.deepcopy(line)
        variant[key] = "x"
        variants.append(variant)
    for dice_value in ([], None, "10d6", {"nonce": 0}, [[]]):
        variant = copy.deepcopy(line)
        variant["data"]["dice"] = dice_value
        variants.append(variant)
    for key, value in (("seq", True), ("seq", 5.0), ("seq", "5"), ("seq", -(2**80)), ("game_id", 7),
                       ("game_id", None), ("type", ["DiceRolled"]), ("prev_hash", {"b": 1, "a": 2}),
                       ("timestamp", "2026-11-22T06:21:04 \"Zulu\" é \u2028 \x1f"), ("hash", None)):
        variant = copy.deepcopy(line)
        variant[key] = value
        variants.append(variant)
    for data in (None, [], "text", 3, {}, {"b": 1, "a": {"d": 2, "c": 1}}, {"x": 1.5, "y": float("nan"), "z": -1e300},
                 {"dice": line["data"]["dice"], "w": float("inf"), "n": [True, False, None, 0.1]},
                 # A float with neither "." nor an exponent in orjson's text, beside a None or not:
                 {"y": float("nan")}, {"a": None, "b": [float("inf")]}, {"a": None, "b": float("-inf")},
                 {"a": None, "b": {"c": None}}, {"a": "null", "b": None}, {"a": 1e-05, "b": 1e16}, {"a": [1e-07]},
                 {"a": 2**64 - 1, "b": -(2**63)}, {"a": 2**64}, {"a": (1, 2)}, {1: "one"}, {"a": {2: "two"}},
                 {"re-roll": "a.b", "e+": [1, 2]},
                 # Escapes beside floats: a string ending in a backslash, escaped quotes and backslashes.
                 {"a": "x\\", "b": 1.5}, {"a": "\\\"", "b": [1e-07]}, {"k.e-": "\\\\\"", "n": 2.5},
                 {"a": "\"", "b": 1e16}, {"a\"": "1.5", "b\\": "e-"}, {"a": "\\", "b": "\\", "c": 0.5}):
        variant = copy.deepcopy(line)
        variant["data"] = data
        variants.append(variant)
    variant = copy.deepcopy(line)
    del variant["hash"]
    variants.append(variant)
    variant = copy.deepcopy(line)
    variant["hash2"] = variant.pop("hash")  # seven keys, not the export's
    variants.append(variant)
    variant = copy.deepcopy(line)
    variant["data"] = {"dice": line["data"]["dice"]}  # nothing else in data
    variants.append(variant)
    variant = copy.deepcopy(line)
    variant["data"]["purpose"] = "feu sur la colline 112 – «barrage» \u2028 \"quoted\" \\ \x00"
    variants.append(variant)
    return variants


def test_canonical_body_is_the_spec_bytes_of_every_exported_line(lines):
    from domain import chain
    assert any(line["type"] == "DiceRolled" for line in lines)
    for line in lines:
        assert chain.canonical_body(line) == _spec_body(line)
        assert hashlib.sha256(chain.canonical_body(line)).hexdigest() == line["hash"]


def test_canonical_body_agrees_with_the_spec_on_odd_lines(lines):
    import random

    from domain import chain
    rng = random.Random(3)
    rolled = [line for line in lines if line["type"] == "DiceRolled"]
    checked = 0
    for line in rolled:
        for variant in _line_variants(line, rng):
            assert chain.canonical_body(variant) == _spec_body(variant), variant
            checked += 1
    # Keys of mixed kinds cannot be sorted: both ways refuse the line alike.
    variant = copy.deepcopy(rolled[0])
    variant["data"][1] = "one"
    with pytest.raises(TypeError):
        _spec_body(variant)
    with pytest.raises(TypeError):
        chain.canonical_body(variant)
    assert checked >= 30 * len(rolled)


def _spec_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def test_canonical_data_is_the_spec_bytes_for_every_code_point():
    """orjson writes a line's data; its escapes and its key order must be json.dumps's for every
    character, in keys and in values, among keys of every string width."""
    from domain import chain
    points = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    for start in range(0, len(points), 4096):
        chunk = points[start:start + 4096]
        data = {c: c for c in chunk}
        data.update({"x" + c: [c + "y", {"k" + c: None}] for c in chunk[::97]})
        assert chain._data_json(data) == _spec_json(data)
    mixed = {c: i for i, c in enumerate(["é", "z", "\U0001F600", "Ā", "a", "ÿ", "\uffff", "aé", "a\U0001F600", ""])}
    assert chain._data_json(mixed) == _spec_json(mixed)


def _json_values():
    from hypothesis import strategies as st
    scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
               | st.sampled_from(["null", "a.b", "e+", "e-", "1.5", "NaN"]))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)


def test_canonical_body_agrees_with_the_spec_on_any_json_data():
    """Any data (floats of every kind, NaN and Infinity, ints past 64 bits, "null" in strings):
    the fast path writes the spec's bytes or leaves the value to json."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from domain import chain
    line = {"game_id": "g", "seq": 1, "type": "T", "timestamp": "t", "prev_hash": GENESIS, "hash": "h"}

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.dictionaries(st.text(max_size=4), _json_values(), max_size=6))
    def check(data):
        assert chain.canonical_body({**line, "data": data}) == _spec_body({**line, "data": data})

    check()


def _holds_finite_float(value) -> bool:
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is dict:
        return any(_holds_finite_float(v) for v in value.values())
    if type(value) is list:
        return any(_holds_finite_float(v) for v in value)
    return False


def test_a_float_token_is_found_outside_strings_only():
    """``_has_float_token`` says of orjson's text whether the value holds a finite float, whatever
    its strings hold (dots, exponents, quotes and backslashes escaped side by side)."""
    import orjson
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from domain import chain
    tricky = st.sampled_from(["\\", "\"", "\\\"", "\\\\", "a\\", "1.5", "e+", "e-", "\"1.5\"", ".\\\"e-"])
    texts = st.text(max_size=6) | tricky | st.lists(tricky, max_size=3).map("".join)

    @settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | texts,
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
                        max_leaves=12))
    def check(value):
        assert chain._has_float_token(orjson.dumps(value)) == _holds_finite_float(value), value

    check()
    for value in ({"rule": "FS 7.1", "unit": "spartan"}, ["a\\", 1.0], {"a\"": 1}, {"e-": "e+"}, [1e16]):
        assert chain._has_float_token(orjson.dumps(value)) == _holds_finite_float(value), value


def test_the_data_of_a_rule_named_event_is_written_by_orjson(monkeypatch):
    """A dot in a string (an event names its rule: "FS 7.1") does not send the data to the
    standard encoder; a float beside it does."""
    from domain import chain
    calls = []
    monkeypatch.setattr(chain, "canonical", lambda value: calls.append(value) or _spec_json(value))
    data = {"destination": "sa7", "origin": None, "rule": "FS 3.3", "purpose": "re-roll", "n": [1, -2]}
    assert chain._data_json(data) == _spec_json(data)
    assert calls == []
    assert chain._data_json({**data, "x": 0.5}) == _spec_json({**data, "x": 0.5})
    assert len(calls) == 1


def test_line_hash_and_digest_are_the_spec_hashes(lines):
    """The server hashes the events it makes (``line_hash``) and the orders it keeps for
    idempotency (``digest``) the fast way too: the SHA-256 of the spec's bytes, whatever the data."""
    import random

    from domain import chain
    rng = random.Random(5)
    rolled = [line for line in lines if line["type"] == "DiceRolled"][:3]
    variants = lines + [variant for line in rolled for variant in _line_variants(line, rng)]
    for variant in variants:
        parts = {k: variant.get(k) for k in ("game_id", "seq", "type", "timestamp", "data", "prev_hash")}
        got = chain.line_hash(parts["game_id"], parts["seq"], parts["type"], parts["timestamp"],
                              parts["data"], parts["prev_hash"])
        assert got == hashlib.sha256(_spec_json(parts)).hexdigest(), variant
        assert chain.digest(parts["data"]) == hashlib.sha256(_spec_json(parts["data"])).hexdigest()
    assert len(variants) > 100
    with pytest.raises(TypeError):  # keys of mixed kinds: refused, as json.dumps refuses them
        chain.digest({"a": 1, 2: "b"})
