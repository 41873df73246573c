"""WarlogClient.all_games lists every game once, even one whose activity moved it up the list
while the pages were read (GET /api/v1/games pages by a cursor of activity and id)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from api.client import WarlogClient


def _lobby(moves_up: str):
    """A server listing games a..e, two a page, newest activity first, by the cursor of the last
    game listed; once the second page is read, ``moves_up`` has new activity (first in the list)."""
    order, reads = list("abcde"), []

    def app(environ, start_response):
        query = parse_qs(environ["QUERY_STRING"])
        after, limit = query.get("after", [None])[0], int(query.get("limit", ["2"])[0])
        start = order.index(after) + 1 if after else 0
        page = order[start:start + limit]
        reads.append(after)
        if len(reads) == 2:  # a move in the game: it is now the most recent
            order.remove(moves_up)
            order.insert(0, moves_up)
        body = {"games": [{"game_id": g} for g in page],
                "next_after": page[-1] if start + limit < len(order) else None}
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]

    return app


def test_a_game_that_moves_up_between_pages_is_still_listed_once(serve_stub):
    # 'e' not yet listed moves ahead of the cursor: the pages after it never hold it
    listed = WarlogClient(serve_stub(_lobby("e"))).all_games(limit=2)["games"]
    assert sorted(g["game_id"] for g in listed) == list("abcde")
    # 'a', listed already, moves up again: not listed twice
    listed = WarlogClient(serve_stub(_lobby("a"))).all_games(limit=2)["games"]
    assert sorted(g["game_id"] for g in listed) == list("abcde")
