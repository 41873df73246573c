"""Concealed fields end to end (issue 34 section 5, docs/dice.md "Concealed fields"): in a game
with hidden information, every seat's and a spectator's export (GET .../export) verifies with
`warlog verify` and holds none of what is hidden from it; the umpire's opens every commitment."""

from __future__ import annotations

import re

import pytest

from tests.api.conftest import ApiGame, export_verifies, make_game, start_game, umpire

COUNTS = re.compile(r"(\d+) concealed field\(s\) opened, (\d+) still concealed")


def freeform_with_private_notes(client) -> tuple[ApiGame, dict]:
    """FF 7: each seat writes a private note, and a public one."""
    game = make_game(client, public=True)
    for seat, n in (("Blue", 1), ("Red", 2)):
        note = {"kind": "note", "text": f"SECRET-NOTE-{seat}", "private": True}
        assert game.order(client, seat, note, f"{seat}-{n}").status_code == 201
        assert game.order(client, seat, {"kind": "note", "text": "a word for all"}, f"{seat}-p").status_code == 201
    return game, {"SECRET-NOTE-Blue": "Blue", "SECRET-NOTE-Red": "Red"}


def proving_with_standing_orders(client) -> tuple[ApiGame, dict]:
    """PG 5: Blue's standing order answers in Red's advance; PG 7.3: Red's face-down marker."""
    game = start_game(client, {"ruleset": "proving", "public": True})
    r = client.put(f"/api/v1/games/{game.game_id}/standing-orders/SECRET-POLICY",
                   json={"decision_kind": "opportunity_fire", "policy": {"fire": "always"}}, headers=game.seats["Blue"])
    assert r.status_code == 200, r.json
    assert game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "r-1").status_code == 201
    assert game.order(client, "Red", {"kind": "take_marker", "marker": "SECRET-MARKER"}, "r-2").status_code == 201
    return game, {"SECRET-POLICY": "Blue", "SECRET-MARKER": "Red"}


@pytest.mark.parametrize("make", [freeform_with_private_notes, proving_with_standing_orders])
def test_every_seats_and_a_spectators_export_verifies_and_the_umpires_opens_every_commitment(client, tmp_path, make):
    game, secrets = make(client)
    ump = umpire(client, game)
    full = export_verifies(client, game.game_id, ump, tmp_path / "umpire.jsonl")
    opened, still = map(int, COUNTS.search(full).groups())
    assert opened > 0 and still == 0, full
    assert all(secret in (tmp_path / "umpire.jsonl").read_text() for secret in secrets)
    head = full.split("chain head ")[1].split(";")[0]
    for viewer, headers in (("Blue", game.seats["Blue"]), ("Red", game.seats["Red"]), (None, {})):
        path = tmp_path / f"{viewer}.jsonl"
        out = export_verifies(client, game.game_id, headers, path)
        text = path.read_text()
        for secret, owner in secrets.items():
            assert (secret in text) == (viewer == owner), (viewer, secret)
        seen_opened, seen_still = map(int, COUNTS.search(out).groups())
        assert seen_still > 0 and seen_opened + seen_still == opened, out  # the same fields, some withheld
        assert f"chain head {head};" in out and '"redacted"' not in text  # the same chain, every line
