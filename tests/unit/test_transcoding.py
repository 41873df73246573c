"""domain/transcoding.py: the stored state of an event as eventsourcing's JSON transcoder writes
it, and an event's timestamp written once."""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from eventsourcing.persistence import DatetimeAsISO, DecimalAsStr, JSONTranscoder, UUIDAsHex
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import transcoding
from domain.transcoding import DatetimeAsCachedISO, EventTranscoder, iso
from tests.conftest import new_freeform_game
from tests.jsonvalues import Colour, Point, Size, has_float, same

STAMP = datetime(2026, 11, 25, 22, 30, 1, 123456, tzinfo=timezone.utc)


def _both() -> tuple[JSONTranscoder, EventTranscoder]:
    standard, fast = JSONTranscoder(), EventTranscoder()
    for t in (standard, fast):  # as Application.register_transcodings does
        for transcoding_ in (UUIDAsHex(), DatetimeAsISO(), DecimalAsStr()):
            t.register(transcoding_)
    return standard, fast


STANDARD, FAST = _both()


def _agree(state: dict) -> None:
    """The fast encoder's bytes decode as the standard's; without a float they are the same bytes;
    where the standard refuses a state, the fast one refuses it the same way."""
    try:
        expected = STANDARD.encode(state)
    except Exception as exc:
        with pytest.raises(type(exc)):
            FAST.encode(state)
        return
    got = FAST.encode(state)
    assert same(STANDARD.decode(got), STANDARD.decode(expected)), (got, expected)
    if not has_float(state):
        assert got == expected


def _event_state(**data) -> dict:
    return {"timestamp": STAMP, "prev_hash": "0" * 64, "hash": "f" * 64, **data}


class Name(str):
    pass


@pytest.mark.parametrize("data", [
    {"die": 4, "dice": "2d6", "faces": [1, 3], "purpose": "fire at hex 1203 (FS 7.1)", "target": None},
    {"note": "naïve café ✓ \u2028 \x00 \"quoted\" \\ back", "nested": {"a": [True, False, None, {}]}},
    {"big": 2**63 - 1, "bigger": 2**64 - 1, "negative": -2**63},
    {"huge": 2**64, "past": -2**63 - 1},  # orjson refuses: the standard encoder writes them
    {"nan": float("nan")}, {"inf": float("inf"), "ninf": float("-inf")},  # orjson would write null
    {"small": 1e-05, "large": 1e16, "half": 0.5, "negzero": -0.0},  # floats: other text, same numbers
    {"id": uuid.UUID(int=7)},  # a transcoded UUID, not orjson's text
    {"when": STAMP + timedelta(days=1)}, {"same_stamp_again": STAMP},  # a second datetime: the standard's
    {"amount": Decimal("1.10")},
    {"tuple": (1, 2)},  # both write a list
    {"keys": {1: "int key"}},  # orjson refuses it, json writes "1"
    {"colour": Colour.RED},  # the standard refuses a plain Enum; orjson would write its value
    {"size": Size.BIG}, {"name": Name("x")}, {"point": Point(1)}, {"day": date(2026, 1, 1)},
    {"lone": "\ud800"},  # a lone surrogate: both refuse
    {"looks_transcoded": {"_type_": "uuid_hex", "_data_": "0" * 32}},
    # a snapshot's datetimes, and states that look like one
    {"topic": "domain.game:Game", "state": {"_created_on": STAMP - timedelta(1), "_modified_on": STAMP, "x": [1]}},
    {"state": {"_created_on": "text", "_modified_on": None}}, {"state": [STAMP]}, {"state": None},
    {"state": {"_created_on": STAMP, "other": STAMP}},  # the same datetime where eventsourcing does not put one
    {"state": {"_created_on": date(2026, 1, 1)}}, {"state": {"_modified_on": STAMP, "id": uuid.UUID(int=3)}},
    {"state": {"_modified_on": STAMP.astimezone(timezone(timedelta(hours=2)))}},  # the same instant, other text
    {"state": {"_modified_on": STAMP.replace(tzinfo=None)}},
    {"when": STAMP.astimezone(timezone(timedelta(hours=2)))},
])
def test_the_fast_encoder_agrees_with_the_standard(data):
    _agree(_event_state(**data))


def test_the_usual_event_is_written_by_orjson_and_other_states_by_the_standard_encoder(monkeypatch):
    calls = []
    standard = JSONTranscoder.encode
    monkeypatch.setattr(JSONTranscoder, "encode", lambda self, obj: calls.append(obj) or standard(self, obj))
    usual = _event_state(die=4, faces=[1, 3])
    assert FAST.encode(usual) == STANDARD.encode(usual)
    calls.clear()
    FAST.encode(usual)
    assert calls == []  # orjson's text kept
    snapshot = {"timestamp": STAMP, "topic": "domain.game:Game",
                "state": {"_created_on": STAMP - timedelta(1), "_modified_on": STAMP, "chain_head": "0" * 64}}
    assert FAST.encode(snapshot) == STANDARD.encode(snapshot)
    calls.clear()
    FAST.encode(snapshot)
    assert calls == []
    for odd in (_event_state(nan=float("nan")), _event_state(id=uuid.UUID(int=1)), {"no": "timestamp"},
                {"timestamp": "text"}, _event_state(when=STAMP + timedelta(1)),
                _event_state(state={"_created_on": STAMP, "deeper": {"_modified_on": STAMP + timedelta(1)}})):
        calls.clear()
        FAST.encode(odd)
        assert calls == [odd]


def _json_values():
    scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
               | st.uuids() | st.datetimes(timezones=st.just(timezone.utc)) | st.decimals(allow_nan=False)
               | st.sampled_from([Colour.RED, Size.BIG, Name("n"), 2**64, float("nan")]))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                        | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _json_values(), max_size=6), st.booleans(),
       st.none() | st.dictionaries(st.sampled_from(["_created_on", "_modified_on", "x"]), _json_values(), max_size=3))
def test_the_fast_encoder_agrees_with_the_standard_on_any_state(data, with_stamp, aggregate):
    state = _event_state(**data) if with_stamp else data
    if with_stamp:
        state["timestamp"] = STAMP  # the data may have held a key "timestamp"
    if aggregate is not None:  # as a snapshot's
        state["state"] = aggregate
    _agree(state)


def test_a_game_stored_with_it_reads_back_as_it_was(sqlite_app):
    """Through the application: warlog's transcoder is the mapper's, and a played game's rows
    decode as eventsourcing's own transcoder would write them, and encode again to the same bytes."""
    assert type(sqlite_app.mapper.transcoder) is EventTranscoder
    assert type(sqlite_app.mapper.transcoder.names["datetime_iso"]) is DatetimeAsCachedISO
    game_id = new_freeform_game(sqlite_app)
    for n in range(6):
        sqlite_app.submit_order(game_id, "Blue", f"o{n}", {"kind": "roll", "dice": "2d6", "purpose": "fire, ünïcode",
                                                           "target": {"compare": ">=", "value": 7, "modifiers": []}})
    for n in range(2):  # Move to Fight, then the next turn: the epoch revealed, a new one opened
        sqlite_app.submit_order(game_id, "Blue", f"adv{n}", {"kind": "advance"})
    stored = sqlite_app.recorder.select_events(uuid.UUID(game_id))
    events = [sqlite_app.mapper.to_domain_event(row) for row in stored]
    assert {type(e).__name__ for e in events} >= {"DiceRolled", "DiceEpochRevealed", "TurnAdvanced"}
    for row, event in zip(stored, events):
        state = {k: v for k, v in vars(event).items() if k not in ("originator_id", "originator_version")}
        assert row.state == STANDARD.encode(state)
        assert sqlite_app.mapper.to_stored_event(event).state == row.state
    if not sqlite_app.snapshots.recorder.select_events(uuid.UUID(game_id), desc=True, limit=1):
        sqlite_app.take_snapshot(uuid.UUID(game_id))
    snapshot = sqlite_app.snapshots.recorder.select_events(uuid.UUID(game_id), desc=True, limit=1)[0]
    decoded = sqlite_app.snapshots.mapper.to_domain_event(snapshot)
    assert snapshot.state == STANDARD.encode({k: v for k, v in vars(decoded).items()
                                              if k not in ("originator_id", "originator_version")})


def test_iso_is_isoformat_written_once_per_datetime(monkeypatch):
    stamps = [STAMP, STAMP.replace(microsecond=0), datetime(2026, 1, 1), STAMP.astimezone(timezone(timedelta(hours=-3))),
              datetime.now(timezone.utc)]
    for stamp in stamps:
        assert iso(stamp) == stamp.isoformat()
        assert iso(stamp) == stamp.isoformat()  # from the cache
    equal_but_other = STAMP.astimezone(timezone(timedelta(hours=2)))  # the same instant, another object
    assert equal_but_other == STAMP and iso(equal_but_other) == equal_but_other.isoformat() != iso(STAMP)


def test_iso_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(transcoding, "_ISO_MOST", 8)
    transcoding._ISO.clear()
    stamps = [STAMP + timedelta(seconds=n) for n in range(50)]
    assert [iso(s) for s in stamps] == [s.isoformat() for s in stamps]
    assert len(transcoding._ISO) <= 8
