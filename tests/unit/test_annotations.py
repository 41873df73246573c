"""Annotations (issue 35, "Reading and writing about the game"): a seat, the umpire or, after the
end, a spectator comments on any event of the log, public or private to its author and the umpire;
recorded as AnnotationAdded, accepted after GameEnded, signed by a keyed seat (format 2), and
verified in every reader's copy of the export."""

from __future__ import annotations

import json

import pytest

from domain import signatures
from domain.errors import BadSignature, IdempotencyConflict, InvalidOrder, RuleViolation, SignatureRequired
from domain.game import MAX_ANNOTATION
from domain.rulesets import UMPIRE, find_ruleset
from domain.verify import to_line, verify_text
from domain.visibility import filter_lines
from projections.narrate import describe
from tests.unit.test_game import emitted, seed_for, started
from workers import notify
from tests.unit.test_signatures import rechained
from tests.unit.test_signed_commands import keyed, signed


def test_a_seat_annotates_an_event_without_rolling_or_moving_the_game():
    g = started()
    g.submit("Blue", "o1", {"kind": "note", "text": "Blue advances"}, seed_for)
    before, dice, turn = g.version, dict(g.dice), g.whose_move()
    assert g.annotate("seat", "Red", "a-1", before, "that flank is open", False) is None
    assert emitted(g, before) == ["AnnotationAdded"]
    e = g.pending_events[-1]
    assert (e.author, e.seat, e.role, e.about_seq, e.text, e.private) == ("Red", "Red", "seat", before,
                                                                          "that flank is open", False)
    assert g.dice == dice and g.whose_move() == turn  # not an order: no dice, nobody's move changes
    assert g.last_order["last"] == before  # nor part of the order before it (take-backs, history)


def test_the_same_annotation_id_again_records_nothing_and_other_content_under_it_is_a_conflict():
    g = started()
    g.annotate("seat", "Blue", "a-1", 1, "first words", True)
    seq = g.version
    assert g.annotate("seat", "Blue", "a-1", 1, "first words", True) == (seq, seq)
    assert g.version == seq
    with pytest.raises(IdempotencyConflict):
        g.annotate("seat", "Blue", "a-1", 1, "other words", True)


@pytest.mark.parametrize("about_seq, text, private, field", [
    (0, "x", False, "about_seq"), (999, "x", False, "about_seq"), (True, "x", False, "about_seq"),
    ("1", "x", False, "about_seq"), (1, "", False, "text"), (1, "   ", False, "text"),
    (1, "x" * (MAX_ANNOTATION + 1), False, "text"), (1, 5, False, "text"), (1, "x", "yes", "private"),
])
def test_a_malformed_annotation_is_refused_naming_its_field(about_seq, text, private, field):
    g = started()
    version = g.version
    with pytest.raises(InvalidOrder) as refused:
        g.annotate("seat", "Blue", "a-1", about_seq, text, private)
    assert refused.value.field == field and g.version == version


def test_an_annotation_is_about_an_event_not_another_annotation():
    g = started()
    g.annotate("seat", "Blue", "a-1", 1, "hello", False)
    with pytest.raises(InvalidOrder) as refused:
        g.annotate("seat", "Red", "a-2", g.version, "hello back", False)
    assert refused.value.field == "about_seq"


def test_who_may_annotate_seats_that_joined_the_umpire_and_spectators_after_the_end():
    g = started()
    with pytest.raises(RuleViolation):
        g.annotate("umpire", None, "u-1", 1, "no umpire yet", False)
    with pytest.raises(RuleViolation) as early:
        g.annotate("spectator", "Sam", "s-1", 1, "too early", False)
    assert "ended" in str(early.value)
    g.propose_umpire("Uma", "admin")
    g.answer_umpire("Blue", True)
    g.answer_umpire("Red", True)
    g.annotate("umpire", None, "u-1", 1, "a ruling", True)
    assert g.pending_events[-1].author == "Uma" and g.pending_events[-1].seat is None
    g.concede("Red", seed_for)
    assert g.is_ended
    g.annotate("seat", "Red", "r-1", g.version, "After-action report: I overextended.", False)
    g.annotate("spectator", "Sam", "s-1", 1, "a fine game", False)
    assert g.pending_events[-1].role == "spectator" and g.pending_events[-1].author == "Sam"
    with pytest.raises(InvalidOrder) as private:
        g.annotate("spectator", "Sam", "s-2", 1, "psst", True)
    assert private.value.field == "private"


def test_a_private_annotation_is_read_by_its_seat_and_the_umpire_only():
    g = started()
    g.annotate("seat", "Blue", "a-1", 1, "my secret plan", True)
    g.annotate("seat", "Blue", "a-2", 1, "gg", False)
    rules = find_ruleset("freeform")
    lines = [to_line(e) for e in g.pending_events]
    for viewer in ("Red", None):
        shown = json.dumps(filter_lines(rules, lines, viewer))
        assert "my secret plan" not in shown and "gg" in shown
        assert describe(filter_lines(rules, lines[-2:-1], viewer)[0], rules) == "Blue wrote a private note on event 1"
    for viewer in ("Blue", UMPIRE):
        assert "my secret plan" in json.dumps(filter_lines(rules, lines, viewer))


def test_a_keyed_seat_signs_its_annotations_and_every_copy_of_the_export_verifies(sqlite_app):
    app = sqlite_app
    gid, key, head = keyed(app)
    fields = {"annotation_id": "a-1", "about_seq": 1, "text": "secret"}
    with pytest.raises(SignatureRequired):
        app.annotate(gid, "seat", "Blue", "a-1", 1, "secret", True)
    public = signed(key, gid, signatures.ANNOTATION, fields, head)
    with pytest.raises(BadSignature):  # signed as public, sent as private: not this command's signature
        app.annotate(gid, "seat", "Blue", "a-1", 1, "secret", True, **public)
    result = app.annotate(gid, "seat", "Blue", "a-1", 1, "secret", True,
                          **signed(key, gid, signatures.PRIVATE_ANNOTATION, fields, head))
    assert [line["type"] for line in result.events] == ["AnnotationAdded", "CommandSigned"]
    with pytest.raises(SignatureRequired):  # a resend is checked as the first was
        app.annotate(gid, "seat", "Blue", "a-1", 1, "secret", True)
    again = app.annotate(gid, "seat", "Blue", "a-1", 1, "secret", True,  # the same id: its first result
                         **signed(key, gid, signatures.PRIVATE_ANNOTATION, fields, result.chain_head))
    assert again.replayed and [line["hash"] for line in again.events] == [line["hash"] for line in result.events]
    app.annotate(gid, "seat", "Red", "r-1", 2, "public words", False)  # Red has no key
    app.concede(gid, "Red")
    app.annotate(gid, "spectator", "Sam", "s-1", 3, "after the end", False)
    rules = find_ruleset("freeform")
    lines = [json.loads(t) for t in app.export(gid)]
    assert lines[-1]["type"] == "AnnotationAdded"
    for viewer in ("Blue", "Red", None, UMPIRE):
        copy = filter_lines(rules, lines, viewer)
        text = [json.dumps(line) for line in copy]
        assert ("secret" in json.dumps([line["data"] for line in copy if line["type"] == "AnnotationAdded"])) \
            == (viewer in ("Blue", UMPIRE))
        report, _ = verify_text(text)
        assert report.ok, report.failures
    tampered = [dict(line) for line in lines]
    at = next(i for i, line in enumerate(tampered) if line["type"] == "CommandSigned"
              and line["data"]["kind"] == signatures.PRIVATE_ANNOTATION)
    tampered[at] = {**tampered[at], "data": {**tampered[at]["data"], "kind": signatures.ANNOTATION}}
    assert not verify_text(rechained(tampered))[0].ok


def test_an_annotation_notifies_nobody_during_the_game_or_after_it():
    g = started()
    g.annotate("seat", "Blue", "a-1", 1, "a note", False)
    g.concede("Red", seed_for)
    g.annotate("seat", "Red", "r-1", 1, "after-action report", True)
    lines = [to_line(e) for e in g.pending_events]
    notes = [c for c in notify.commands(lines) if c.lines[0]["type"] == "AnnotationAdded"]
    assert len(notes) == 2 and all(len(c.lines) == 1 for c in notes)  # each a command of its own
    seats = ["Blue", "Red"]  # freeform: every seat may act, so only a hand-over or the end would tell them
    for command in notes:
        assert notify.recipients(command, seats, seats, seats) == {}
