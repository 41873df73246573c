"""A template's words for readers (`title`, `rule`, a Falklands pass's `note`) may come back with
the order, but only as text: a number, a list or an object there was recorded with the order as it
came; it is 422 `invalid_order` naming the field and the kind's rule, as any other field of the
wrong type is (docs/rulesets.md)."""

from __future__ import annotations

import pytest

from tests.api.conftest import start_game

NOT_TEXT = [7, ["a", "b"], {"a": 1}, True]


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


@pytest.fixture
def falklands(client):
    """A Falklands game past the UK set-up: the UK Operations phase of turn 1."""
    game = start_game(client, {"ruleset": "falklands"})
    r = game.send(client, "UK", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa7"}})
    assert r.status_code == 201, r.json
    return game


@pytest.mark.parametrize("value", NOT_TEXT, ids=["number", "list", "object", "boolean"])
@pytest.mark.parametrize("word", ["note", "title", "rule"])
def test_fs_5_3_a_pass_with_a_note_title_or_rule_that_is_not_text_is_refused_naming_it(client, falklands, word,
                                                                                      value):
    before = falklands.version(client, "UK")
    problem = falklands.refused(client, "UK", {"kind": "pass", word: value})
    assert (problem["field"], problem["rule"]) == (word, "FS 5.3"), problem
    assert f"'{word}'" in problem["detail"] and "text" in problem["detail"], problem
    assert falklands.version(client, "UK") == before  # nothing recorded


def test_fs_5_3_a_pass_sent_back_as_offered_with_its_note_is_accepted(client, falklands):
    offered = client.get(f"/api/v1/games/{falklands.game_id}/legal-orders", headers=falklands.seats["UK"]).json
    [template] = [o for o in offered["orders"] if o["kind"] == "pass"]
    assert isinstance(template["note"], str)
    assert falklands.send(client, "UK", template).status_code == 201


def test_fs_7_1_an_operation_with_a_title_that_is_not_text_is_refused_naming_its_rule(client, falklands):
    problem = falklands.refused(client, "UK", {"kind": "operation", "op": 20, "title": 20})
    assert (problem["field"], problem["rule"]) == ("title", "FS 7.1 Op #20"), problem


def test_stf_1_1_a_campaign_order_with_a_title_that_is_not_text_is_refused_naming_stf_1_1(client):
    game = start_game(client, {"ruleset": "stf"})
    for value in NOT_TEXT:
        problem = game.refused(client, "Player", {"kind": "campaign", "map": "giuk", "side": "US", "title": value})
        assert (problem["field"], problem["rule"]) == ("title", "STF 1.1"), problem
    assert game.send(client, "Player", {"kind": "campaign", "map": "giuk", "side": "US",
                                         "title": "the GIUK gap", "rule": "STF 1.1"}).status_code == 201
