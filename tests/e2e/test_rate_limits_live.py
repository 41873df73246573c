"""Rate limits through a real gunicorn server (api/gunicorn_conf.py, two workers, SQLite) counting
in a real Redis (api/limits.py): both web processes count the same requests, and the answer past a
limit is a 429 problem with Retry-After. bench/server.py turns the limits off for every other live
server; this one turns them on, with a key prefix of its own."""

from __future__ import annotations

import uuid

from redis import Redis

from tests.e2e.server import http_json, live_server
from tests.workers.conftest import redis_url  # noqa: F401 (the fixture)


def test_two_web_workers_count_the_same_failures_in_redis(tmp_path, redis_url):  # noqa: F811
    prefix = f"warlog-test-{uuid.uuid4().hex[:12]}"
    env = {"WARLOG_RATE_LIMITS": "on", "REDIS_URL": redis_url, "WARLOG_RATE_LIMIT_STORAGE": None,
           "WARLOG_RATE_LIMIT_PREFIX": prefix, "WARLOG_LIMIT_AUTH_FAILURES": "6 per 60 second",
           "WEB_CONCURRENCY": "2"}
    try:
        with live_server(tmp_path, **env) as url:
            status, _, created = http_json("POST", f"{url}/api/v1/games", {"ruleset": "freeform", "public": True})
            assert status == 201, created
            game = f"{url}/api/v1/games/{created['game_id']}"
            # Each request on a new connection: gunicorn's two workers share them out.
            statuses = [http_json("GET", game, headers={"Authorization": "Bearer guess"})[0] for _ in range(6)]
            assert statuses == [401] * 6
            status, headers, body = http_json("GET", game, headers={"Authorization": "Bearer guess"})
            assert status == 429 and body["code"] == "too_many_failures", body
            assert headers["Content-Type"] == "application/problem+json"
            assert 1 <= int(headers["Retry-After"]) <= 60
            assert http_json("GET", game)[0] == 200  # a read without a token is not held back
            assert "does not answer" not in url.log()  # counted in Redis, not in each worker's memory
    finally:
        conn = Redis.from_url(redis_url)
        keys = list(conn.scan_iter(f"*{prefix}*"))
        assert keys, "nothing was counted in Redis"
        conn.delete(*keys)
