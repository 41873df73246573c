"""The per-process game cache is bounded by size (issue 29, item 6): the stored bytes its copies
were built from (``CachedGame.nbytes``) add up to at most ``WARLOG_GAME_CACHE_BYTES``, least
recently used games falling out first, whatever the number of games."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.service import GameCache, Warlog, game_cache_bytes
from tests.conftest import new_freeform_game

NOTE_FIELDS = {f"k{j}": "x" * 1000 for j in range(14)}  # a note of about 14 KB (an order is at most 16 KiB)


def big_game(app: Warlog, notes: int) -> str:
    gid = new_freeform_game(app)
    for i in range(notes):
        app.submit_order(gid, "Blue", f"n{i}", {"kind": "note", "text": f"note {i}", "fields": NOTE_FIELDS})
    return gid


def stored_bytes(app: Warlog, gid: str) -> int:
    return sum(len(row.state) for row in app.recorder.select_events(UUID(gid)))


def accounted(cache: GameCache) -> int:
    return sum(cached.nbytes for cached in cache._games.values())


def test_large_games_keep_the_cache_under_its_byte_bound(sqlite_app):
    sqlite_app.games.max_bytes = bound = 350_000
    games = [big_game(sqlite_app, 10) for _ in range(3)]  # about 150 KB of stored rows each
    cache = sqlite_app.games
    assert 0 < cache.nbytes <= bound
    assert cache.nbytes == accounted(cache)
    kept = [gid for gid in games if UUID(gid) in cache._games]
    assert kept == games[-2:], "the least recently used game falls out first"
    for gid in kept:  # no snapshot yet (the interval is 20 here): every stored row is counted
        assert cache._games[UUID(gid)].nbytes == stored_bytes(sqlite_app, gid)


def test_a_game_larger_than_the_bound_is_not_kept_and_still_plays(sqlite_app):
    sqlite_app.games.max_bytes = 70_000
    gid = big_game(sqlite_app, 6)
    assert UUID(gid) not in sqlite_app.games._games
    assert sqlite_app.games.nbytes == 0
    result = sqlite_app.submit_order(gid, "Red", "r1", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
    assert result.version == sqlite_app.get_game(gid).version


def test_a_loaded_game_accounts_for_its_snapshot_and_the_rows_after_it(sqlite_app):
    gid = big_game(sqlite_app, 25)  # past the snapshot at 20 (this store's interval)
    loaded = sqlite_app._load(UUID(gid))
    base = sqlite_app.snapshots.recorder.select_events(UUID(gid), desc=True, limit=1)[0].originator_version
    rows_after = sum(len(row.state) for row in sqlite_app.recorder.select_events(UUID(gid), gt=base))
    assert loaded.nbytes > rows_after  # the snapshot's bytes as well
    assert loaded.nbytes < stored_bytes(sqlite_app, gid) + 25_000


@pytest.mark.parametrize("raw, expected", [("", 64), ("0", 0), ("1048576", 1048576)])
def test_warlog_game_cache_bytes(raw, expected):
    assert game_cache_bytes(64, {"WARLOG_GAME_CACHE_BYTES": raw}) == expected


def test_warlog_game_cache_bytes_refuses_what_is_not_a_number():
    with pytest.raises(ValueError, match="WARLOG_GAME_CACHE_BYTES"):
        game_cache_bytes(64, {"WARLOG_GAME_CACHE_BYTES": "64MB"})


def test_a_kept_copy_accounts_as_a_load_would_across_snapshots(sqlite_app):
    gid = big_game(sqlite_app, 45)  # snapshots at 20 and 40 (this store's interval)
    kept = sqlite_app.games._games[UUID(gid)]
    loaded = sqlite_app._load(UUID(gid))
    assert sqlite_app.snapshots.recorder.select_events(UUID(gid), desc=True, limit=1)[0].originator_version == 40
    assert kept.nbytes == loaded.nbytes < stored_bytes(sqlite_app, gid)
