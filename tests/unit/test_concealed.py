"""Concealed fields (issue 34 section 5; docs/dice.md "Concealed fields"): what some viewer may not
see is salted when recorded and hashed as its commitment, so every seat's and spectator's copy
verifies as a chain and the full (umpire's) copy opens every commitment; verify checks the
openings; export v2's header; format-1 games and files keep their redaction and verify as before."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
import rfc8785

from domain import chain, signatures
from domain import game as game_module
from domain.errors import IntegrityFailure
from domain.game import Game
from domain.rulesets import find_ruleset
from domain.verify import header_line, to_line, verify, verify_head, verify_text
from domain.storage import config_from_env
from domain.visibility import Walk, filter_lines
from tests.conftest import make_app

VIEWERS = ("Blue", "Red", None)  # every seat and a spectator
SALT = "ab" * 32
NOTE = {"kind": "note", "private": True, "text": "attack at dawn"}
# Computed with `printf '%s' '<JCS text>' | sha256sum`, not with warlog's code (docs/dice.md).
NOTE_COMMITMENT = "f836953af87509eb381cd7e8c5459f32953bfd1fa11febd330d13b85e7caa839"
VECTOR_LINE_HASH = "8813238bc8455e46c79538a606815156eecd5b01266443fae6cef67f6932cf0a"
V1_FIXTURE = Path(__file__).parent.parent / "data" / "falklands_before_toolkit.jsonl.gz"


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"concealed-{epoch}".encode()).digest()


def lines_of(game: Game) -> list[dict]:
    return [to_line(e) for e in game.pending_events]


def seated(ruleset: str, keys: dict | None = None, **options) -> Game:
    game = Game.create(ruleset, options=options or None, seed_for=seed_for)
    for side in ("Blue", "Red") if ruleset == "proving" else options["sides"]:
        game.join(side, side.lower(), "", seed_for, public_key=(keys or {}).get(side))
    return game


def freeform_with_private_notes() -> Game:
    game = seated("freeform", sides=["Blue", "Red"])
    game.submit("Blue", "o-1", {**NOTE, "text": "PLAN-NORTH"}, seed_for)
    game.submit("Red", "o-2", {"kind": "note", "text": "a public word"}, seed_for)
    game.submit("Red", "o-3", {"kind": "note", "private": True, "text": "PLAN-SOUTH"}, seed_for)
    return game


def proving_with_hidden_things() -> Game:
    """A standing order (PG 5, private to Blue) that answers in Red's order, and a face-down marker
    (PG 7.3, Red's)."""
    game = seated("proving")
    game.set_standing_order("Blue", "POLICY-FIRE", "opportunity_fire", {"fire": "always"})
    game.submit("Red", "r-1", {"kind": "advance", "hex": "J4"}, seed_for)
    game.submit("Red", "r-2", {"kind": "take_marker", "marker": "MARKER-AMBUSH"}, seed_for)
    return game


# -- the definitions, checked against text computed without warlog ------------------------------
def test_a_commitment_is_sha256_of_the_jcs_of_field_salt_and_value():
    text = '{"field":"order","salt":"' + SALT + '","value":{"kind":"note","private":true,"text":"attack at dawn"}}'
    assert rfc8785.dumps({"field": "order", "salt": SALT, "value": NOTE}) == text.encode()
    assert chain.field_commitment("order", SALT, NOTE) == NOTE_COMMITMENT


def test_a_line_hashes_its_hash_form_with_each_concealed_field_a_commitment_and_no_salt():
    full = {"game_id": "3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b", "seq": 2, "type": "OrderAccepted",
            "timestamp": "2026-11-27T12:00:00+00:00", "prev_hash": chain.GENESIS,
            "data": {"order_id": "o-1", "seat": "Blue", "order": NOTE, "concealed": {"order": SALT}}}
    seen = {**full, "data": {**full["data"], "order": NOTE_COMMITMENT, "concealed": {"order": None}}}
    assert chain.hash_form(full) == chain.hash_form(seen) == seen
    assert chain.line_hash(full, 2) == chain.line_hash(seen, 2) == VECTOR_LINE_HASH


# -- recording ----------------------------------------------------------------------------------
def test_a_private_note_is_salted_when_recorded_and_a_public_one_is_not():
    lines = lines_of(freeform_with_private_notes())
    private, public = (next(x for x in lines if x["data"].get("order_id") == o) for o in ("o-1", "o-2"))
    assert set(private["data"]["concealed"]) == {"order", "digest", "salt"}
    assert all(chain.is_commitment(salt) for salt in private["data"]["concealed"].values())
    assert len(set(private["data"]["concealed"].values())) == 3  # a salt of its own for each field
    assert "concealed" not in public["data"]
    assert "concealed" not in lines[0]["data"]  # nothing hidden in a standard set-up


def test_a_format_1_game_salts_nothing_and_keeps_its_redacted_lines(monkeypatch):
    monkeypatch.setattr(game_module, "FORMAT", 1)
    lines = lines_of(freeform_with_private_notes())
    assert not any("concealed" in line["data"] for line in lines) and "format" not in lines[0]["data"]
    assert verify(lines).ok
    reds = filter_lines(find_ruleset("freeform"), lines, "Red")
    assert "PLAN-NORTH" not in json.dumps(reds)
    report = verify(reds)
    assert not report.ok and "redacted" in report.summary() and "concealed field" not in report.summary()


def test_standing_orders_and_face_down_markers_are_concealed_in_format_2():
    lines = lines_of(proving_with_hidden_things())
    by_type = {line["type"]: line for line in lines}
    assert set(by_type["StandingOrderSet"]["data"]["concealed"]) == {"policy_id", "decision_kind", "policy",
                                                                     "rule", "salt"}
    assert set(by_type["StandingOrderUsed"]["data"]["concealed"]) == {"policy_id"}
    assert set(by_type["MarkerGained"]["data"]["concealed"]) == {"marker"}
    take = next(x for x in lines if x["type"] == "OrderAccepted" and x["data"]["order_id"] == "r-2")
    assert set(take["data"]["concealed"]) == {"order", "digest", "salt"}


# -- every viewer's copy --------------------------------------------------------------------------
@pytest.mark.parametrize("make, secrets", [
    (freeform_with_private_notes, {"PLAN-NORTH": "Blue", "PLAN-SOUTH": "Red"}),
    (proving_with_hidden_things, {"POLICY-FIRE": "Blue", "MARKER-AMBUSH": "Red"}),
])
def test_every_seats_and_a_spectators_copy_verifies_and_holds_nothing_hidden_from_it(make, secrets):
    game = make()
    lines = lines_of(game)
    full = verify(lines)
    assert full.ok and full.fields_concealed == 0 and full.fields_opened > 0, full.summary()
    assert f"{full.fields_opened} concealed field(s) opened, 0 still concealed" in full.summary()
    for viewer in VIEWERS:
        copy = filter_lines(game.rules, lines, viewer)
        text = json.dumps(copy)
        for secret, owner in secrets.items():
            assert (secret in text) == (viewer == owner), (viewer, secret)
        report = verify(copy)
        assert report.ok, (viewer, report.summary())
        assert report.chain_head == full.chain_head and [x["hash"] for x in copy] == [x["hash"] for x in lines]
        assert report.fields_opened + report.fields_concealed == full.fields_opened
        assert report.fields_concealed > 0 and "redacted" not in text
    assert filter_lines(game.rules, lines, "umpire") == lines


def test_a_hidden_orders_signature_is_concealed_with_it_even_in_a_page_without_the_order():
    key = signatures.new_private_key()
    game = seated("freeform", keys={"Blue": signatures.public_key_of(key)}, sides=["Blue", "Red"])
    for order_id, order in (("o-1", NOTE), ("o-2", {"kind": "note", "text": "public"})):
        head = game.chain_head
        game.submit("Blue", order_id, order, seed_for,
                    signed=(signatures.sign_order(key, str(game.id), order_id, order, head), head, lambda h: True))
    lines = lines_of(game)
    signed = [x for x in lines if x["type"] == "OrderSigned"]
    assert set(signed[0]["data"]["concealed"]) == {"signature"} and "concealed" not in signed[1]["data"]
    reds = filter_lines(game.rules, lines, "Red")
    assert verify(reds).ok and verify(lines).signatures_verified == 2 and verify(reds).signatures_verified == 1
    assert next(x for x in reds if x["type"] == "OrderSigned")["data"]["concealed"] == {"signature": None}
    # A page that starts at the OrderSigned (its OrderAccepted on the page before): still hidden.
    alone = filter_lines(game.rules, [signed[0]], "Red", Walk())
    assert alone[0]["data"]["signature"] != signed[0]["data"]["signature"]
    assert filter_lines(game.rules, [signed[0]], "Blue") == [signed[0]]


def test_an_order_a_seat_may_not_know_of_at_all_is_concealed_whole_with_its_signature(monkeypatch):
    """Every field of the OrderAccepted concealed (its type stays): its OrderSigned's seat and
    order id are concealed with it, and the other seat's copy verifies all the same."""
    whole = ("order_id", "seat", "order", "digest", "salt")
    rules = type(find_ruleset("freeform"))
    monkeypatch.setattr(rules, "concealable", lambda self, t, d: whole if t == "OrderAccepted" else ())
    monkeypatch.setattr(rules, "hidden_fields",
                        lambda self, t, d, v: set(whole) if t == "OrderAccepted" and v != d["seat"] else set())
    key = signatures.new_private_key()
    game = seated("freeform", keys={"Blue": signatures.public_key_of(key)}, sides=["Blue", "Red"])
    head = game.chain_head
    game.submit("Blue", "o-1", NOTE, seed_for,
                signed=(signatures.sign_order(key, str(game.id), "o-1", NOTE, head), head, lambda h: True))
    lines = lines_of(game)
    signed = next(x for x in lines if x["type"] == "OrderSigned")
    assert set(signed["data"]["concealed"]) == {"signature", "seat", "order_id"}
    reds = filter_lines(game.rules, lines, "Red")
    assert "o-1" not in json.dumps(reds) and "attack at dawn" not in json.dumps(reds)
    report = verify(reds)
    assert report.ok and report.signatures_verified == 0, report.summary()
    assert verify(lines).signatures_verified == 1


def test_a_sandbox_forked_by_the_umpire_from_hidden_state_conceals_its_set_up():
    source = seated("proving")
    source.submit("Red", "r-1", {"kind": "take_marker", "marker": "MARKER-AMBUSH"}, seed_for)
    fork = Game.fork(source, "umpire", seed_for=seed_for)
    lines = lines_of(fork)
    assert set(lines[0]["data"]["concealed"]) == {"setup"}
    blues = filter_lines(fork.rules, lines, "Blue")
    assert "MARKER-AMBUSH" not in json.dumps(blues) and verify(blues).ok
    assert "MARKER-AMBUSH" in json.dumps(filter_lines(fork.rules, lines, "Red"))


def test_a_field_hidden_from_a_viewer_but_not_concealed_when_recorded_is_removed_and_marked_redacted(monkeypatch):
    """A ruleset that hides a field it did not declare concealable (a later change of its rules)
    cannot keep the line's hash: the field is removed as in format 1, never shown."""
    game = freeform_with_private_notes()
    lines = lines_of(game)
    monkeypatch.setattr(type(game.rules), "hidden_fields", lambda self, t, d, v: {"seat"} if t == "OrderAccepted" else set())
    copy = filter_lines(game.rules, lines, "Red")
    accepted = [x for x in copy if x["type"] == "OrderAccepted"]
    assert all(x["redacted"] is True and x["data"]["seat"] is None for x in accepted)


# -- verify -------------------------------------------------------------------------------------
def rechain(lines: list[dict]) -> list[dict]:
    """The lines with their hashes made again, as a forger who knows every salt could."""
    prev = chain.GENESIS
    for line in lines:
        line["prev_hash"] = prev
        line["hash"] = prev = chain.line_hash(line, 2)
    return lines


def private_line(lines: list[dict], order_id: str = "o-1") -> int:
    return next(i for i, x in enumerate(lines) if x["type"] == "OrderAccepted" and x["data"]["order_id"] == order_id)


def test_a_seats_copy_whose_commitment_was_altered_fails_at_that_line():
    game = freeform_with_private_notes()
    reds = filter_lines(game.rules, lines_of(game), "Red")
    i = private_line(reds)
    reds[i]["data"]["order"] = "0" * 64  # still a commitment in form, not the one hashed
    report = verify(reds)
    assert [n for n, _ in report.failures] == [i + 1] and "hash does not match" in report.failures[0][1]


def test_a_concealed_field_without_its_salt_must_hold_a_commitment():
    game = freeform_with_private_notes()
    reds = filter_lines(game.rules, lines_of(game), "Red")
    i = private_line(reds)
    reds[i]["data"]["order"] = {"kind": "note", "text": "not a commitment"}
    report = verify(reds)
    assert (i + 1, "field 'order' is concealed in this copy (its salt withheld), but it holds no commitment "
                   "(64 lowercase hex characters)") in report.failures


def test_an_opening_that_does_not_match_the_commitment_hashed_fails_naming_the_concealed_fields():
    lines = lines_of(freeform_with_private_notes())
    i = private_line(lines)
    lines[i]["data"]["order"] = {**lines[i]["data"]["order"], "text": "PLAN-EAST"}
    report = verify(lines)
    assert [n for n, _ in report.failures] == [i + 1]
    assert "does not open the commitment it was recorded with" in report.failures[0][1]
    assert "digest, order, salt" in report.failures[0][1]


@pytest.mark.parametrize("damage, message", [
    (lambda d: d["concealed"].update(order="not hex"), "the salt of concealed field 'order' is not 64 lowercase hex"),
    (lambda d: d["concealed"].update(missing=SALT), "concealed field 'missing' is not a field of this OrderAccepted"),
    (lambda d: d.update(concealed=["order"]), "'concealed' is not an object"),
])
def test_malformed_concealed_fields_are_named(damage, message):
    lines = lines_of(freeform_with_private_notes())
    i = private_line(lines)
    damage(lines[i]["data"])
    report = verify(rechain(lines))
    assert any(n == i + 1 and message in m for n, m in report.failures), report.summary()


def test_a_full_export_rewritten_by_a_forger_who_knows_the_salts_is_caught_by_a_seats_kept_head():
    """A forger holding every salt can make a self-consistent file with another value; the head a
    seat kept (signed by the server) and its own copy's chain head both expose it."""
    game = freeform_with_private_notes()
    lines = lines_of(game)
    server_key = signatures.new_private_key()
    kept = signatures.sign_head(server_key, str(game.id), len(lines), lines[-1]["hash"])
    reds = filter_lines(game.rules, lines, "Red")
    forged = json.loads(json.dumps(lines))
    i = private_line(forged)
    forged[i]["data"]["order"] = {**forged[i]["data"]["order"], "text": "PLAN-EAST"}
    forged = rechain(forged)
    alone = verify(forged)
    assert alone.ok  # self-consistent: no file alone can show it
    assert alone.chain_head != verify(reds).chain_head  # but it is not the log Red's copy holds
    verify_head(alone, kept, signatures.public_key_of(server_key))
    assert not alone.ok and "the log was rewritten" in alone.summary()
    honest = verify(lines)
    verify_head(honest, kept, signatures.public_key_of(server_key))
    assert honest.ok


# -- export v2: the header line -------------------------------------------------------------------
def test_an_export_v2_header_must_agree_with_the_games_format():
    lines = [json.dumps(x) for x in lines_of(freeform_with_private_notes())]
    assert verify_text([header_line("k" * 43, 2), *lines])[0].ok
    assert verify_text([header_line("k" * 43), *lines])[0].ok  # a header without a version, as before
    assert verify_text(lines)[0].ok
    for version in (1, 3, "2", True):
        report, _ = verify_text([json.dumps({"warlog_export": {"version": version}}), *lines])
        assert report.failures == [(1, f"the header line says export version {version!r}, but the game "
                                       "(GameCreated) is of format 2: they must agree")]


def test_a_version_1_file_from_before_verifies_exactly_as_before():
    with gzip.open(V1_FIXTURE, "rt", encoding="utf-8") as fh:
        text = fh.read().splitlines()
    report, _ = verify_text(text)
    assert report.ok and report.format == 1 and "concealed" not in report.summary()
    report, _ = verify_text([header_line("k" * 43, 2), *text])
    assert not report.ok and "export version 2" in report.failures[0][1]


# -- import ---------------------------------------------------------------------------------------
def test_the_full_export_imports_with_its_salts_and_a_seats_copy_is_refused(sqlite_app, tmp_path):
    gid = sqlite_app.create_game("freeform", options={"sides": ["Blue", "Red"]}).game_id
    for seat in ("Blue", "Red"):
        sqlite_app.join(gid, seat, seat.lower())
    sqlite_app.submit_order(gid, "Blue", "o-1", {**NOTE, "text": "PLAN-NORTH"})
    full = list(sqlite_app.export(gid, header=True))
    assert json.loads(full[0]) == {"warlog_export": {"version": 2}}
    lines = [json.loads(t) for t in full[1:]]
    rules = sqlite_app.get_game(gid).rules
    reds = [header_line(None, 2)] + [json.dumps(x) for x in filter_lines(rules, lines, "Red")]
    other = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "other")}))
    try:
        with pytest.raises(IntegrityFailure, match="seat's or spectator's copy: .* only a full export"):
            other.import_lines(reds)
        assert other.import_lines(full) == gid
        assert list(other.export(gid, header=True)) == full  # every salt kept
        again = [json.loads(t) for t in other.export(gid)]
        assert filter_lines(rules, again, "Red") == filter_lines(rules, lines, "Red")
    finally:
        other.close()
