"""Hypothesis: on random freeform games played through the application service (orders, rolls,
VP, advances, take-backs, private notes, umpires proposed, accepted and revoked), the views kept up incrementally — in random batches,
with read-your-writes catch-ups between them — equal the views rebuilt from the log; so do the
map checkpoints, and the state at every seq read from them equals the map fold from seq 1."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import WarlogError
from projections import folds
from projections.runner import NAMES, Projections
from tests.conftest import make_app, new_freeform_game

SEATS = ("Blue", "Red")

orders = st.one_of(
    st.builds(lambda n, t: {"kind": "roll", "dice": f"{n}d6", "purpose": "fire",
                            "target": {"compare": ">=", "value": t}}, st.integers(1, 3), st.integers(2, 12)),
    st.builds(lambda s, d: {"kind": "vp", "side": s, "delta": d, "reason": "r"},
              st.sampled_from(SEATS), st.integers(-3, 3).filter(bool)),
    st.just({"kind": "advance"}),
    st.builds(lambda p: {"kind": "note", "text": "secret" if p else "open", "private": p}, st.booleans()),
    st.just({"kind": "roll", "dice": "d66", "purpose": "event"}),
)
steps = st.lists(st.tuples(st.sampled_from(["order", "take-back", "catch-up", "read", "umpire"]),
                           st.sampled_from(SEATS), orders, st.integers(1, 9), st.booleans()),
                 min_size=1, max_size=25)


@pytest.fixture(scope="module")
def shared_app(tmp_path_factory):
    from domain.storage import config_from_env

    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("hyp")), "WARLOG_SNAPSHOT_INTERVAL": "7"})
    application = make_app(config)
    yield application
    application.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=steps)
def test_rebuilt_equals_incremental_for_every_view(shared_app, plan):
    app = shared_app
    gid = new_freeform_game(app, phases=("Move", "Fight"))
    projections = Projections(app, every=3)
    for n, (what, seat, order, batch, accept) in enumerate(plan):
        other = SEATS[1 - SEATS.index(seat)]
        try:
            if what == "order":
                app.submit_order(gid, seat, f"o{n}", order)
            elif what == "take-back":
                app.request_take_back(gid, seat)
                app.answer_take_back(gid, other, accept)
            elif what == "umpire":  # a proposal and an answer; a decline with an umpire appointed ends its role
                if accept and app.umpire(gid) is None and app.get_game(gid).umpire_proposal is None:
                    app.propose_umpire(gid, "Ann", "admin")
                app.answer_umpire(gid, seat, accept)
            elif what == "catch-up":
                projections.catch_up(limit=batch)
            else:
                projections.current(gid, NAMES[: 1 + batch % len(NAMES)])
        except WarlogError:
            pass  # a refused command (no take-back to ask for, …) records nothing
    projections.catch_up(limit=5)
    incremental = projections.store.load([gid], NAMES)[gid]
    lines = app.lines(gid)
    for name in NAMES:
        assert incremental[name] == folds.fold(name, lines), name
    assert incremental["map"]["state"] == app.get_game(gid).state
    index = projections.store.query_index([gid])
    checkpoints = projections.store.checkpoints(gid)
    assert sorted(checkpoints) == list(range(3, len(lines) + 1, 3))
    view = folds.map_empty()
    for k, line in enumerate(lines, 1):
        view = folds.map_apply(view, line)
        assert projections.map_at(gid, k) == view, k
        assert checkpoints.get(k, view) == view, k
    projections.rebuild(gid)
    assert projections.store.load([gid], NAMES)[gid] == incremental
    assert projections.store.query_index([gid]) == index
    assert projections.store.checkpoints(gid) == checkpoints
