"""Several processes upgrading one store at once, on SQLite and PostgreSQL.

A store made before a release's new columns (``warlog_games_index.sandbox``,
``warlog_invites.join_replays``) gains them at ``warlog migrate``, which every ``warlog serve``
runs: ``honcho start -c web=2`` (docs/operations.md) starts two at once. Each looked for the column,
found none and added it: on PostgreSQL the second ALTER TABLE waited for the first and failed
("column ... already exists", or "tuple concurrently updated" even on a store already up to date),
on SQLite the second found the database locked; the web process ended, and the runner stopped
the rest. Every migration must end well, with the columns added once and the games kept.
"""

from __future__ import annotations

import multiprocessing

from api.app import migrate
from domain.service import Warlog
from projections.store import ProjectionStore
from tests.conftest import new_freeform_game

PROCESSES = 6
ROUNDS = 2


def _migrate(config, barrier, results) -> None:
    try:
        barrier.wait()  # all at once, as a Procfile runner starts them
        migrate(config)
        results.put("ok")
    except Exception as exc:  # reported to the test: a process that ends with it is the finding
        results.put(f"{type(exc).__name__}: {exc}")


def _old_store(config) -> str:
    """A store as the release before made it: one game, the new columns dropped."""
    migrate(config)
    app = Warlog(config)
    try:
        game_id = new_freeform_game(app)
        store = ProjectionStore.for_service(app)
        store._run("ALTER TABLE {t}warlog_games_index DROP COLUMN sandbox")
        store._run("ALTER TABLE {t}warlog_invites DROP COLUMN join_replays")
    finally:
        app.close()
    return game_id


def _columns(config) -> tuple[bool, bool]:
    app = Warlog(config)
    try:
        store = ProjectionStore.for_service(app)
        with app.recorder.datastore.transaction(commit=False) as c:
            return store.has_column(c, "warlog_games_index", "sandbox"), store.has_column(c, "warlog_invites",
                                                                                          "join_replays")
    finally:
        app.close()


def test_processes_that_migrate_an_old_store_at_once_all_start(store_config):
    ctx = multiprocessing.get_context("fork")
    for _ in range(ROUNDS):
        game_id = _old_store(store_config)
        barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
        children = [ctx.Process(target=_migrate, args=(store_config, barrier, results)) for _ in range(PROCESSES)]
        for child in children:
            child.start()
        for child in children:
            child.join(120)
        assert sorted(results.get(timeout=5) for _ in children) == ["ok"] * PROCESSES
        assert _columns(store_config) == (True, True)
        app = Warlog(store_config)
        try:
            assert app.check_integrity(game_id).ok
        finally:
            app.close()


def test_the_followers_wait_for_an_old_store_to_be_upgraded(store_config):
    """The projector and the dispatcher wait for the schema (wait_for_schema) and never migrate:
    on a store an older release made, the schema was there, so the new projector went on at once
    and failed every poll ("table i has no column named sandbox") until a web process migrated."""
    from api.app import schema_ready

    _old_store(store_config)
    app = Warlog(store_config)
    try:
        assert not schema_ready(app)
        migrate(store_config)
        assert schema_ready(app)
    finally:
        app.close()
