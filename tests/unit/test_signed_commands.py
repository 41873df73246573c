"""A keyed seat's other commands are signed in format 2 (issue 34, part 3; docs/dice.md, "Signed
orders and heads"): concession, take-back request and answer, standing orders, client seed, umpire
answers. Refused unsigned or badly signed with nothing recorded; each signature recorded as a
CommandSigned right after its command's line and checked by verify at that line."""

from __future__ import annotations

import json

import pytest

from domain import signatures
from domain.errors import BadSignature, SignatureRequired, SignatureReused, UnknownHead
from domain.game import Game
from domain.rulesets import find_ruleset
from domain.service import Warlog
from domain.verify import verify_text
from domain.visibility import filter_lines
from tests.unit.test_signatures import rechained, types_of, where

HEAD = "ab" * 32


def test_a_command_signs_the_canonical_json_of_game_kind_seat_its_fields_and_head():
    assert signatures.command_message("g-1", "concede", "Blue", {}, HEAD) == (
        '{"game":"g-1","head":"' + HEAD + '","kind":"concede","seat":"Blue"}').encode()
    assert signatures.command_message("g-1", "standing_order", "Blue", {
        "policy_id": "p", "decision_kind": "fire", "policy": {"fire": "é"}}, HEAD) == (
        '{"decision_kind":"fire","game":"g-1","head":"' + HEAD + '","kind":"standing_order",'
        '"policy":{"fire":"é"},"policy_id":"p","seat":"Blue"}').encode("utf-8")
    assert signatures.command_message("g-1", "take_back_answer", "Red", {"accept": False}, HEAD) == (
        '{"accept":false,"game":"g-1","head":"' + HEAD + '","kind":"take_back_answer","seat":"Red"}').encode()
    with pytest.raises(ValueError):
        signatures.command_message("g-1", "concede", "Blue", {"reason": ""}, HEAD)
    with pytest.raises(ValueError):
        signatures.command_message("g-1", "resign", "Blue", {}, HEAD)


def keyed(app, ruleset="freeform"):
    """A game whose Blue registered a key (Red did not): id, Blue's key, the head after the joins."""
    options = {"sides": ["Blue", "Red"]} if ruleset == "freeform" else None
    gid = app.create_game(ruleset, options=options).game_id
    key = signatures.new_private_key()
    app.join(gid, "Blue", "blue", public_key=signatures.public_key_of(key))
    return gid, key, app.join(gid, "Red", "red").chain_head


def signed(key, gid, kind, fields, head):
    return {"signature": signatures.sign_command(key, gid, kind, "Blue", fields, head), "head": head}


def refused_then_signed(app, gid, key, head, kind, fields, command):
    """``command(**signed)`` is refused unsigned, over an unknown head, with a forged or another
    kind's signature, nothing recorded each time; then it is recorded signed."""
    before = app.get_game(gid).version
    with pytest.raises(SignatureRequired):
        command()
    with pytest.raises(UnknownHead):
        command(**signed(key, gid, kind, fields, "f" * 64))
    other = signatures.CONCEDE if kind != signatures.CONCEDE else signatures.CLIENT_SEED
    forgeries = [signed(signatures.new_private_key(), gid, kind, fields, head),  # not Blue's key
                 signed(key, "another", kind, fields, head),  # another game
                 signed(key, gid, other, {f: "x" for f in signatures.COMMAND_FIELDS[other]}, head)]  # another kind
    if fields:
        forgeries.append(signed(key, gid, kind, {f: "altered" for f in fields}, head))  # other fields
    for forged in forgeries:
        with pytest.raises(BadSignature):
            command(**forged)
    assert app.get_game(gid).version == before
    return command(**signed(key, gid, kind, fields, head))


def played(app):
    """Blue (keyed) signs every kind of command but the standing orders; its export's lines."""
    gid, key, head = keyed(app)
    note = {"kind": "note", "text": "hi"}
    head = app.submit_order(gid, "Blue", "b-1", note, head=head,
                            signature=signatures.sign_order(key, gid, "b-1", note, head)).chain_head
    result = refused_then_signed(app, gid, key, head, "take_back", {"reason": "misclick"},
                                 lambda **s: app.request_take_back(gid, "Blue", "misclick", **s))
    assert types_of(result) == ["TakeBackRequested", "CommandSigned"]
    head = app.answer_take_back(gid, "Red", False).chain_head  # Red has no key: unsigned, as before
    head = app.submit_order(gid, "Red", "r-1", note).chain_head
    head = app.request_take_back(gid, "Red", "oops").chain_head
    result = refused_then_signed(app, gid, key, head, "take_back_answer", {"accept": True},
                                 lambda **s: app.answer_take_back(gid, "Blue", True, **s))
    assert types_of(result) == ["TakeBackAccepted", "CommandSigned"]
    result = refused_then_signed(app, gid, key, result.chain_head, "client_seed", {"client_seed": "blue-2"},
                                 lambda **s: app.change_client_seed(gid, "Blue", "blue-2", **s))
    assert types_of(result) == ["ClientSeedChanged", "CommandSigned"]
    head = app.propose_umpire(gid, "Uma", proposed_by="admin").chain_head
    result = refused_then_signed(app, gid, key, head, "umpire_answer", {"accept": True},
                                 lambda **s: app.answer_umpire(gid, "Blue", True, **s))
    assert types_of(result) == ["UmpireAccepted", "CommandSigned"]
    head = app.answer_umpire(gid, "Red", True).chain_head
    result = app.answer_umpire(gid, "Blue", False, **signed(key, gid, "umpire_answer", {"accept": False}, head))
    assert types_of(result) == ["UmpireRevoked", "CommandSigned"]  # Blue withdrew its agreement
    result = refused_then_signed(app, gid, key, result.chain_head, "concede", {},
                                 lambda **s: app.concede(gid, "Blue", **s))
    assert types_of(result)[:3] == ["Conceded", "CommandSigned", "GameEnded"]
    assert result.events[1]["data"] == {"kind": "concede", "seat": "Blue", "head": result.events[1]["data"]["head"],
                                        "signature": result.events[1]["data"]["signature"]}
    return gid, [json.loads(t) for t in app.export(gid)]


def test_a_keyed_seats_commands_are_refused_unless_signed_and_the_export_verifies(sqlite_app):
    _, lines = played(sqlite_app)
    report, _ = verify_text([json.dumps(line) for line in lines])
    assert report.ok and report.command_signatures_verified == 6, report.summary()
    assert "6 signed command(s) verified" in report.summary()


@pytest.mark.parametrize("type_", ["TakeBackRequested", "TakeBackAccepted", "ClientSeedChanged", "UmpireAccepted",
                                   "UmpireRevoked", "Conceded"])
def test_verify_names_a_missing_forged_or_replayed_command_signature_at_its_line(sqlite_app, type_):
    gid, lines = played(sqlite_app)
    at = where(lines, type_)  # the command's line; its CommandSigned is line at + 1 (index at)
    assert lines[at]["type"] == "CommandSigned"
    kind = lines[at]["data"]["kind"]
    other = next(n for n, line in enumerate(lines) if line["type"] == "CommandSigned" and n != at)

    def failures(edit) -> list[tuple[int, str]]:
        """The failures from the edited line on (a rechained edit changes every later hash, so later
        signatures' heads are no longer lines of the log: those failures are the edit's echo)."""
        edited = json.loads(json.dumps(lines))
        edit(edited)
        report, _ = verify_text(rechained(edited))
        return [(n, m) for n, m in report.failures if "was signed over is not the hash" not in m or n <= at + 1]

    found = failures(lambda x: x.pop(at))  # dropped
    assert found[0][0] == at and "is not followed by its signature (CommandSigned)" in found[0][1], found

    def forge(x):  # signed by another key (the server's)
        x[at]["data"]["signature"] = signatures.sign(signatures.new_private_key(), b"a forged command")
    found = failures(forge)
    assert found[:1] == [(at, f"the signature on line {at + 1} is not seat Blue's of its {kind} command as recorded "
                          "here (the command or its signature was altered)")], found

    def replay(x):  # another command's signature and head, replayed under this kind
        x[at]["data"].update(head=x[other]["data"]["head"], signature=x[other]["data"]["signature"])
    assert [n for n, _ in failures(replay)][:1] == [at]

    def relabel(x):  # another command's whole signature line, with its kind
        x[at]["data"] = dict(x[other]["data"])
    found = failures(relabel)
    assert found[0][0] == at + 1 and "CommandSigned names the" in found[0][1], found


def test_an_altered_command_fails_at_its_line(sqlite_app):
    _, lines = played(sqlite_app)
    at = where(lines, "ClientSeedChanged")

    def alter(x):
        x[at - 1]["data"]["client_seed"] = "chosen-by-the-server"
    edited = json.loads(json.dumps(lines))
    alter(edited)
    report, _ = verify_text(rechained(edited))
    assert report.failures[0][0] == at and "not seat Blue's of its client_seed command" in report.failures[0][1], \
        report.summary()


def test_a_format_1_games_keyed_seat_concedes_unsigned_as_it_always_did(sqlite_app, monkeypatch):
    from domain import game as game_module

    monkeypatch.setattr(game_module, "FORMAT", 1)
    gid, key, head = keyed(sqlite_app)
    sqlite_app.change_client_seed(gid, "Blue", "again")
    sqlite_app.concede(gid, "Blue")
    text = list(sqlite_app.export(gid))
    assert not any("CommandSigned" in t for t in text)
    report, _ = verify_text(text)
    assert report.ok and report.command_signatures_verified == 0, report.summary()


def test_a_standing_orders_signature_is_as_private_as_the_order_and_every_copy_verifies(sqlite_app):
    app = sqlite_app
    gid, key, head = keyed(app, "proving")
    policy = {"fire": "always", "ask_at": []}  # as PG 5.4 records it: that is what is signed
    with pytest.raises(BadSignature, match='signed as the rules record it: {"ask_at":\\[\\],"fire":"always"}'):
        app.set_standing_order(gid, "Blue", "POLICY-FIRE", "opportunity_fire", {"fire": "always"},
                               **signed(key, gid, "standing_order", {"policy_id": "POLICY-FIRE",
                               "decision_kind": "opportunity_fire", "policy": {"fire": "always"}}, head))
    fields = {"policy_id": "POLICY-FIRE", "decision_kind": "opportunity_fire", "policy": policy}
    result = refused_then_signed(app, gid, key, head, "standing_order", fields,
                                 lambda **s: app.set_standing_order(gid, "Blue", "POLICY-FIRE", "opportunity_fire",
                                                                    policy, **s))
    assert types_of(result) == ["StandingOrderSet", "CommandSigned"]
    result = refused_then_signed(app, gid, key, result.chain_head, "standing_order_cancel",
                                 {"policy_id": "POLICY-FIRE"},
                                 lambda **s: app.cancel_standing_order(gid, "Blue", "POLICY-FIRE", **s))
    assert types_of(result) == ["StandingOrderCancelled", "CommandSigned"]
    lines = app.lines(gid)
    report, _ = verify_text([json.dumps(line) for line in lines])
    assert report.ok and report.command_signatures_verified == 2, report.summary()
    rules = find_ruleset("proving")
    for viewer, hidden in (("Red", True), (None, True), ("Blue", False), ("umpire", False)):
        copy = filter_lines(rules, lines, viewer)
        signed_lines = [line for line in copy if line["type"] == "CommandSigned"]
        assert all(("POLICY-FIRE" not in json.dumps(line)) for line in signed_lines)
        assert all((line["data"].get("concealed") == {"signature": None}) is hidden for line in signed_lines)
        report, _ = verify_text([json.dumps(line) for line in copy])
        assert report.ok, (viewer, report.summary())
        assert report.command_signatures_verified == (0 if hidden else 2), (viewer, report.summary())


def two_answers(app):
    """Blue (keyed) accepts Red's take-back request over the head after it; Red orders and asks
    again. The game, Blue's key and Blue's first answer (signature and head, as sent)."""
    gid, key, _ = keyed(app)
    note = {"kind": "note", "text": "hi"}
    app.submit_order(gid, "Red", "r-1", note)
    head = app.request_take_back(gid, "Red", "oops").chain_head
    accept = signed(key, gid, "take_back_answer", {"accept": True}, head)
    app.answer_take_back(gid, "Blue", True, **accept)
    app.submit_order(gid, "Red", "r-2", note)
    app.request_take_back(gid, "Red", "oops again")
    return gid, key, accept


def test_a_signed_command_is_recorded_once_and_its_signature_sent_again_is_refused(sqlite_app):
    app = sqlite_app
    gid, key, accept = two_answers(app)
    before = app.get_game(gid).version
    # the first answer's signature, kept by the server and sent again for the later request: its
    # head is still a line of the log, and its bytes are Blue's
    with pytest.raises(SignatureReused, match="already in the log: a signed command is recorded once"):
        app.answer_take_back(gid, "Blue", True, **accept)
    restarted = Warlog(app.config)  # a process that loads the game from the store refuses it too
    try:
        with pytest.raises(SignatureReused):
            restarted.answer_take_back(gid, "Blue", True, **accept)
    finally:
        restarted.close()
    assert app.get_game(gid).version == before
    head = app.get_game(gid).chain_head  # Blue's own answer, signed over the head it sees now
    result = app.answer_take_back(gid, "Blue", True, **signed(key, gid, "take_back_answer", {"accept": True}, head))
    assert types_of(result) == ["TakeBackAccepted", "CommandSigned"]


def test_a_game_snapshotted_before_signatures_were_kept_is_folded_whole_and_refuses_a_reuse(sqlite_app):
    app = sqlite_app
    gid, key, accept = two_answers(app)
    snapshot = Game.Snapshot.take(app.get_game(gid))
    del snapshot.state["command_signatures"]  # as the code before Game.command_signatures took it
    app.snapshots.put([snapshot])
    restarted = Warlog(app.config)  # no copy of the game in memory: loaded from that snapshot
    try:
        with pytest.raises(SignatureReused):
            restarted.answer_take_back(gid, "Blue", True, **accept)
        assert restarted.get_game(gid).version == snapshot.originator_version
    finally:
        restarted.close()


def test_a_cancelled_standing_orders_signature_cannot_set_it_again(sqlite_app):
    app = sqlite_app
    gid, key, head = keyed(app, "proving")
    fields = {"policy_id": "POLICY-FIRE", "decision_kind": "opportunity_fire", "policy": {"fire": "always", "ask_at": []}}
    set_it = signed(key, gid, "standing_order", fields, head)
    head = app.set_standing_order(gid, "Blue", "POLICY-FIRE", "opportunity_fire", fields["policy"], **set_it).chain_head
    app.cancel_standing_order(gid, "Blue", "POLICY-FIRE",
                              **signed(key, gid, "standing_order_cancel", {"policy_id": "POLICY-FIRE"}, head))
    with pytest.raises(SignatureReused):
        app.set_standing_order(gid, "Blue", "POLICY-FIRE", "opportunity_fire", fields["policy"], **set_it)
    assert "POLICY-FIRE" not in (app.get_game(gid).standing_orders or {}).get("Blue", {})


def replayed_answer(app) -> tuple[list[str], int, int]:
    """A file whose second take-back answer of Blue's is the server's forgery: it carries the first
    answer's head and signature, valid bytes of Blue's key (rechained, as a forger would). The
    file's lines, and the lines of the first and second answers' CommandSigned (1-based)."""
    gid, key, _ = two_answers(app)
    head = app.get_game(gid).chain_head
    app.answer_take_back(gid, "Blue", True, **signed(key, gid, "take_back_answer", {"accept": True}, head))
    lines = [json.loads(t) for t in app.export(gid)]
    report, _ = verify_text([json.dumps(line) for line in lines])
    assert report.ok and report.command_signatures_verified == 2, report.summary()
    first = where(lines, "CommandSigned", kind="take_back_answer")
    second = next(n for n, line in enumerate(lines, start=1)
                  if n > first and line["type"] == "CommandSigned" and line["data"]["kind"] == "take_back_answer")
    lines[second - 1]["data"].update(head=lines[first - 1]["data"]["head"],
                                     signature=lines[first - 1]["data"]["signature"])
    return rechained(lines), first, second


def test_verify_names_a_signed_command_recorded_twice_at_the_second(sqlite_app):
    text, first, second = replayed_answer(sqlite_app)
    report, _ = verify_text(text)
    assert report.failures == [(second, f"the signature on line {second} is already on line {first}: a signed "
                                        "command is recorded once (this one is sent again)")], report.summary()
