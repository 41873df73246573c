"""The order kinds the CLI shows come from the ruleset (``Ruleset.order_kinds``, served by
GET /api/v1/rulesets/<name>), not from the CLI: ``warlog kinds`` lists them, and ``warlog legal``
heads each legal order with its kind's ``head``."""

from __future__ import annotations

from api.cli import legal_order_lines
from domain.rulesets import find_ruleset
from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures)


def test_kinds_lists_each_rulesets_own_kinds_with_rule_help_fields_and_words(server, alice):
    code, out, err = alice("kinds", "freeform", "--server", server.url)
    assert code == 0, err
    assert "roll (FF 3) — the server rolls NdS, dS or d66" in out and "  warlog order GAME vp SIDE DELTA" in out
    code, out, err = alice("kinds", "proving", "--server", server.url)
    assert code == 0, err
    assert "fire (PG 2) — fire on the combat results table" in out and "declare (PG 3)" in out
    code, out, err = alice("kinds", "falklands", "--server", server.url)
    assert code == 0 and "operation op=\"exocet\" (FS 11.3 6-4)" in out and "submarines (FS 8.1)" in out, err
    code, out, err = alice("kinds", "stf", "--server", server.url)
    assert code == 0, err
    assert "end_phase (STF 6.7) — end the Player's part of this phase" in out and "declare (STF 5.1)" in out


def test_every_ruleset_serves_its_order_kinds_with_the_ruleset(client):
    for name in ("freeform", "falklands", "proving", "stf"):
        body = client.get(f"/api/v1/rulesets/{name}").json
        assert body["order_kinds"] == find_ruleset(name).order_kinds() and body["order_kinds"], name


def test_a_legal_order_is_headed_by_its_kinds_head_matching_when():
    kinds = find_ruleset("falklands").order_kinds()
    op = {"kind": "operation", "op": 20, "title": "Naval Movement", "rule": "FS 7.1 Op #20", "fields": {}}
    assert legal_order_lines(op, "g", {}, kinds)[0] == "operation Op #20: Naval Movement (FS 7.1 Op #20)"
    exocet = {**op, "op": "exocet", "title": "Land-launched Exocet", "rule": "FS 11.3 6-4"}
    assert legal_order_lines(exocet, "g", {}, kinds)[0] == "operation exocet: Land-launched Exocet (FS 11.3 6-4)"
    assert legal_order_lines(op, "g", {}, [])[0] == "operation (FS 7.1 Op #20)"  # no kinds: the kind alone
