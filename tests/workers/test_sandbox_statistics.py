"""Statistics across games leave sandboxes out unless asked (docs/workers.md): the job API end to
end, a real rq worker running the job (the fixtures of test_jobs_api)."""

from __future__ import annotations

from tests.api.conftest import ApiGame, bearer
from tests.workers.test_jobs_api import _post, setup  # noqa: F401  (fixture)


def public_game(client, body: dict, url: str = "/api/v1/games") -> ApiGame:
    r = client.post(url, json=body, headers=body.pop("headers", {}))
    assert r.status_code == 201, r.json
    game = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    for seat, code in r.json["invites"].items():
        j = client.post(f"/api/v1/games/{game.game_id}/join", json={"invite_code": code, "handle": seat.lower()})
        game.seats[seat] = bearer(j.json["token"])
    assert game.order(client, "Red", {"kind": "roll_score"}, "r1").status_code == 201
    return game


def test_statistics_across_games_count_a_sandbox_only_with_sandbox_true(setup):
    client, rq_env, data_dir, _ = setup
    source = public_game(client, {"ruleset": "proving", "position": "midgame", "public": True})
    public_game(client, {"at": 2, "public": True, "headers": source.seats["Red"]},
                f"/api/v1/games/{source.game_id}/sandbox")
    plain = _post(client, rq_env, "/api/v1/statistics?ruleset=proving")
    asked = _post(client, rq_env, "/api/v1/statistics?ruleset=proving&sandbox=true")
    assert plain["job_id"] != asked["job_id"] and "sandbox=true" in asked["result_url"]
    rq_env.work(data_dir)
    body = client.get(plain["result_url"]).json
    assert body["rulesets"]["proving"]["games"] == 1 and body["sandboxes_left_out"] == 1
    body = client.get(asked["result_url"]).json
    assert body["rulesets"]["proving"]["games"] == 2 and body["sandboxes_left_out"] == 0
    assert body["rulesets"]["proving"]["operations"] == {"roll_score": 2}
