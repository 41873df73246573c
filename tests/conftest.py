"""Fixtures: the application on real SQLite and on real PostgreSQL.

PostgreSQL tests run whenever a server is reachable (``WARLOG_TEST_POSTGRES_URL``, default
postgresql://postgres@127.0.0.1:5432/test) in a fresh schema per test; without a server they
skip with a reason, unless ``WARLOG_REQUIRE_POSTGRES=1`` (set by .ci/run), when they fail.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import Iterator

import pytest

from domain.service import Warlog
from domain.storage import StoreConfig, config_from_env

# Tests create games by the hundred from one address and play scripted games faster than any
# player: no rate limits (api/limits.py). The tests of the limits turn them on for their own apps
# (tests/api/test_limits.py, test_rate_limits*.py, tests/e2e/test_rate_limits_live.py, the
# browser's test_rate_limited_pages.py), counting in each app's memory unless they give a Redis
# and a key prefix of their own, so tests never share counts.
os.environ.setdefault("WARLOG_GAMES_PER_ADDRESS", "0")
os.environ.setdefault("WARLOG_RATE_LIMITS", "off")
os.environ.setdefault("WARLOG_RATE_LIMIT_STORAGE", "memory://")
# The server's signing key (api/serverkey.py): one file for the run, never the working folder's var/.
os.environ.setdefault("WARLOG_SERVER_KEY_FILE", os.path.join(
    __import__("tempfile").mkdtemp(prefix="warlog-test-key-"), "server-key"))

PG_URL = os.environ.get("WARLOG_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_available() -> str | None:
    """None when PostgreSQL answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(_dsn(PG_URL), connect_timeout=3):
            return None
    except Exception as exc:  # any failure to connect means: no server here
        return f"PostgreSQL not reachable at {PG_URL}: {exc}"


def _dsn(url: str) -> str:
    from domain.storage import postgres_dsn, postgres_env

    return postgres_dsn(postgres_env(url))


_PG_REASON = _pg_available()


def require_postgres() -> None:
    if _PG_REASON is None:
        return
    if os.environ.get("WARLOG_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"WARLOG_REQUIRE_POSTGRES=1 but {_PG_REASON}")
    pytest.skip(_PG_REASON)


@pytest.fixture
def sqlite_config(tmp_path) -> StoreConfig:
    return config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data"), "WARLOG_SNAPSHOT_INTERVAL": "20"})


@contextlib.contextmanager
def fresh_schema() -> Iterator[str]:
    """The WARLOG_DATABASE_URL of a fresh PostgreSQL schema, dropped afterwards."""
    require_postgres()
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(_dsn(PG_URL), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?schema={schema}"
    finally:
        with psycopg.connect(_dsn(PG_URL), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_config():
    """A StoreConfig on a fresh PostgreSQL schema, dropped afterwards."""
    with fresh_schema() as url:
        yield config_from_env({"WARLOG_DATABASE_URL": url, "WARLOG_SNAPSHOT_INTERVAL": "20"})


@pytest.fixture(params=["sqlite", "postgres"])
def store_config(request):
    """Each test using this runs on SQLite and on PostgreSQL."""
    return request.getfixturevalue(f"{request.param}_config")


def make_app(config: StoreConfig) -> Warlog:
    from api.app import migrate

    migrate(config)
    return Warlog(config)


@pytest.fixture
def app(store_config):
    application = make_app(store_config)
    yield application
    application.close()


@pytest.fixture
def sqlite_app(sqlite_config):
    application = make_app(sqlite_config)
    yield application
    application.close()


def new_freeform_game(app: Warlog, sides=("Blue", "Red"), phases=("Move", "Fight"), **options) -> str:
    """A started freeform game: created and every seat joined."""
    created = app.create_game("freeform", options={"sides": list(sides), "phases": list(phases), **options})
    for i, side in enumerate(sides):
        app.join(created.game_id, side, f"player{i}", client_seed=f"seed-{side}")
    return created.game_id


@pytest.fixture(scope="session", autouse=True)
def no_response_holds_an_unrevealed_seed():
    """At the end of the session: no response the end-to-end and reliability tests received held
    a dice seed still unrevealed when it was sent (tests/reliability/seeds.py)."""
    from tests.reliability.seeds import WATCH

    yield
    leaks = WATCH.leaks()
    assert not WATCH.errors, WATCH.errors
    assert not leaks, "unrevealed seeds in responses:\n" + "\n".join(str(leak) for leak in leaks[:20])
