"""The dice seed table (domain/storage.py SeedStore): get-or-create, one seed per game and epoch
whoever asks first, on SQLite and PostgreSQL; on PostgreSQL also against a writer whose insert
of the same epoch is not yet committed."""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest

from domain.dice import SEED_BYTES
from domain.storage import SeedStore
from tests.conftest import make_app
from tests.integration.rawstore import pg_schema
from tests.reliability.faults import pg_dsn, table


def other_store(app) -> SeedStore:
    """A second SeedStore on the same database, with its own (empty) cache: another process."""
    return SeedStore(app.recorder.datastore, app.config.kind, (app.config.postgres or {}).get("POSTGRES_SCHEMA"))


def test_one_seed_per_game_and_epoch_whoever_asks_first(app):
    game, other_game = str(uuid.uuid4()), str(uuid.uuid4())
    first = app.seeds.seed_for(game, 0)
    assert len(first) == SEED_BYTES
    assert other_store(app).seed_for(game, 0) == first == app.seeds.seed_for(game, 0)
    assert len({first, app.seeds.seed_for(game, 1), app.seeds.seed_for(other_game, 0)}) == 3


def test_a_seed_is_stored_with_those_of_the_next_epochs_and_they_are_then_asked_for_without_the_store(app):
    game = str(uuid.uuid4())
    trips = []
    get_or_create = app.seeds._postgres if app.config.kind == "postgres" else app.seeds._sqlite
    app.seeds._postgres = app.seeds._sqlite = lambda *args: trips.append(args[1][0]) or get_or_create(*args)
    ahead = SeedStore.AHEAD
    seeds = [app.seeds.seed_for(game, epoch) for epoch in range(ahead + 1)]
    assert trips == [0, ahead]  # epochs 0 .. AHEAD - 1 at once, then AHEAD and the ones after it
    assert len(set(seeds)) == ahead + 1
    assert [other_store(app).seed_for(game, epoch) for epoch in range(ahead + 1)] == seeds
    placeholder = "?" if app.config.kind == "sqlite" else "%s"
    with app.recorder.datastore.transaction(commit=False) as c:
        c.execute(f"SELECT count(*) AS n FROM {table(app.config, 'warlog_dice_seeds')} WHERE game_id = {placeholder}",
                  (game,))
        assert c.fetchone()["n"] == 2 * ahead


def test_the_seed_cache_keeps_the_seeds_used_last_and_a_seed_dropped_from_it_is_read_again(app):
    app.seeds.CACHE = 20
    games = [str(uuid.uuid4()) for _ in range(5)]
    first = {game: app.seeds.seed_for(game, 0) for game in games}
    assert len(app.seeds._cache) == 20
    assert all((games[0], epoch) not in app.seeds._cache for epoch in range(SeedStore.AHEAD))
    assert {game: app.seeds.seed_for(game, 0) for game in games} == first


@pytest.mark.postgres
@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_a_seed_being_inserted_by_another_writer_is_waited_for(postgres_config, outcome):
    app = make_app(postgres_config)
    try:
        game, theirs = str(uuid.uuid4()), bytes(range(SEED_BYTES))
        with psycopg.connect(pg_dsn(postgres_config)) as writer:
            writer.execute(f"INSERT INTO {table(postgres_config, 'warlog_dice_seeds')} (game_id, epoch, seed) "
                           "VALUES (%s, 0, %s)", (game, theirs))
            got = []
            asker = threading.Thread(target=lambda: got.append(app.seeds.seed_for(game, 0)))
            asker.start()
            asker.join(0.5)
            assert asker.is_alive(), "the seed was read past an insert that was not committed"
            writer.commit() if outcome == "commit" else writer.rollback()
            asker.join(10)
        assert len(got) == 1 and len(got[0]) == SEED_BYTES
        if outcome == "commit":
            assert got[0] == theirs
        else:
            assert got[0] != theirs and other_store(app).seed_for(game, 0) == got[0]
    finally:
        app.close()


@pytest.mark.postgres
def test_a_seed_that_can_never_be_stored_is_an_error_at_once_not_a_retry_loop(postgres_config):
    """A database that drops the insert (here a trigger) leaves nothing to read, whatever the
    race: seed_for gives up after SEED_READS runs of its statement on one connection, without
    the connection retries' waits (10 x 0.2 s)."""
    import time

    from eventsourcing.persistence import DatabaseError, OperationalError

    from domain.storage import SEED_READS
    app = make_app(postgres_config)
    seeds, schema = table(postgres_config, "warlog_dice_seeds"), pg_schema(postgres_config)
    try:
        with psycopg.connect(pg_dsn(postgres_config), autocommit=True) as admin:
            admin.execute(f"CREATE FUNCTION {schema}.drop_seed() RETURNS trigger LANGUAGE plpgsql AS "
                          "$$ BEGIN RETURN NULL; END $$")
            admin.execute(f"CREATE TRIGGER drop_seed BEFORE INSERT ON {seeds} FOR EACH ROW "
                          f"EXECUTE FUNCTION {schema}.drop_seed()")
            admin.execute(f"CREATE TABLE {schema}.seed_runs (n int)")
            admin.execute(f"CREATE FUNCTION {schema}.count_run() RETURNS trigger LANGUAGE plpgsql AS "
                          f"$$ BEGIN INSERT INTO {schema}.seed_runs VALUES (1); RETURN NULL; END $$")
            admin.execute(f"CREATE TRIGGER count_run BEFORE INSERT ON {seeds} FOR EACH STATEMENT "
                          f"EXECUTE FUNCTION {schema}.count_run()")
        started = time.monotonic()
        with pytest.raises(DatabaseError, match="no dice seed") as raised:
            app.seeds.seed_for(str(uuid.uuid4()), 0)
        assert not isinstance(raised.value, OperationalError)
        assert time.monotonic() - started < 1.0
        with psycopg.connect(pg_dsn(postgres_config)) as admin:
            assert admin.execute(f"SELECT count(*) FROM {schema}.seed_runs").fetchone()[0] == SEED_READS
    finally:
        app.close()
