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
