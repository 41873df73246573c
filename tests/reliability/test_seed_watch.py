"""The recorder behind the session-wide check that no response held an unrevealed seed
(tests/reliability/seeds.py, checked by the autouse fixture in tests/conftest.py) does fire: a seed
planted in a response is found, in each spelling, unless the response came after the reveal."""

from __future__ import annotations

import base64
import time

from tests.reliability.client import Game, Http
from tests.reliability.seeds import WATCH, SeedWatch, read_seeds, store_key


def test_a_seed_planted_in_a_response_is_reported_until_its_epoch_is_revealed(tmp_path):
    env = {"WARLOG_DATA_DIR": str(tmp_path / "server" / "data")}
    recorded_before = len(WATCH.responses)
    watch = SeedWatch()  # not the session's: this test leaks on purpose
    from tests.e2e.server import live_server

    with live_server(tmp_path / "server") as url:
        watch.register(url, env)
        http = Http(url)
        game = Game(http)
        game.order("Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire"})
        seeds = {s.epoch: s for s in read_seeds(store_key(env)) if s.game_id == game.id}
        assert all(s.revealed_at is None for s in seeds.values())  # epoch 0's, and those drawn ahead
        seed = seeds[0]
        raw = bytes.fromhex(seed.hex)
        planted = {
            "hex": f'{{"note": "{seed.hex}"}}',
            "upper": f"seed={seed.hex.upper()};",
            "base64": base64.b64encode(raw).decode(),
            "urlsafe": "x" + base64.urlsafe_b64encode(raw).decode().rstrip("=") + "x",
        }
        for body in planted.values():
            watch.record(url, body)
        watch.record(url, b"nothing here " + seed.hex[:60].encode())  # a part of it is no seed
        sent_unrevealed = time.time()
        # Turn 2: epoch 0 is revealed; the order's own answer carries the seed, as it should.
        turn = game.order("Red", {"kind": "advance"}).raw
        assert seed.hex.encode() in turn
        watch.record(url, turn)
        watch.record(url, seed.hex, received_at=sent_unrevealed)  # sent before the reveal: a leak
        watch.record(url, seed.hex)  # after the reveal: fine
    watch.harvest(url)

    leaks = watch.leaks()
    assert not watch.errors
    assert len(leaks) == len(planted) + 1, [str(leak) for leak in leaks]
    assert {(leak.seed.game_id, leak.seed.epoch) for leak in leaks} == {(game.id, 0)}
    assert f"dice epoch 0 of game {game.id}" in str(leaks[0])
    # The session's recorder saw this server's traffic too (and found nothing in it).
    assert len(WATCH.responses) > recorded_before
    assert store_key(env) in WATCH.seeds


def test_the_sealed_dice_seed_is_reported_until_the_game_ends_and_not_after(tmp_path):
    """The sealed stream's seed (epoch -1, docs/dice.md "Sealed rolls") is revealed by
    SealedDiceRevealed at the end of the game: the watch allows it from then on, not before."""
    env = {"WARLOG_DATA_DIR": str(tmp_path / "server" / "data")}
    watch = SeedWatch()  # not the session's: this test leaks on purpose
    from tests.e2e.server import live_server

    with live_server(tmp_path / "server") as url:
        watch.register(url, env)
        game = Game(Http(url))
        game.order("Blue", {"kind": "roll", "dice": "1d6", "sealed": True, "purpose": "refit"})
        sealed = next(s for s in read_seeds(store_key(env)) if s.game_id == game.id and s.epoch == -1)
        assert sealed.revealed_at is None
        watch.record(url, sealed.hex)  # before the end: a leak
        ended = game.order("Red", {"kind": "end", "winner": None, "reason": "agreed"}).raw
        assert sealed.hex.encode() in ended  # the end's answer carries it, as it should
        watch.record(url, ended)
        watch.record(url, sealed.hex)  # after the end: fine
    watch.harvest(url)
    leaks = watch.leaks()
    assert not watch.errors
    assert [(leak.seed.game_id, leak.seed.epoch) for leak in leaks] == [(game.id, -1)], [str(x) for x in leaks]
