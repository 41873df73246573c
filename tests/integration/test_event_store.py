"""``storage.GameEventStore``: the objects eventsourcing's event store makes, made without the
frozen dataclasses' ``__init__``, on both stores."""

from __future__ import annotations

from eventsourcing.persistence import EventStore, Notification, Recording, StoredEvent

from domain.storage import GameEventStore
from tests.played import played_events


def test_each_stored_event_is_what_the_mapper_makes_field_for_field_in_order(app):
    assert type(app.events) is GameEventStore
    for ruleset, orders in (("freeform", 40), ("falklands", 80)):
        for event in played_events(ruleset, orders, seed=6):
            made, expected = GameEventStore._stored(app.mapper, event), app.mapper.to_stored_event(event)
            assert type(made) is StoredEvent
            assert list(vars(made).items()) == list(vars(expected).items())


def test_a_save_returns_the_recordings_eventsourcings_put_returns_and_stores_the_same_rows(app):
    """The same events put by this store and by eventsourcing's (into two games, the second a
    copy of the first under another id) give equal recordings, field for field in order, with
    the notification ids the store gave, and rows that read back as the same events."""
    import copy
    import uuid

    events = played_events("falklands", 60, seed=8)
    twin_id = uuid.uuid4()
    twins = []
    for event in events:
        twin = copy.copy(event)
        object.__setattr__(twin, "originator_id", twin_id)
        twins.append(twin)

    ours = app.events.put(events)
    theirs = EventStore(mapper=app.mapper, recorder=app.recorder).put(twins)
    assert len(ours) == len(theirs) == len(events)
    for mine, other in zip(ours, theirs):
        assert type(mine) is Recording and type(mine.notification) is Notification
        assert list(vars(mine)) == list(vars(other)) == ["domain_event", "notification"]
        fields = dict(vars(mine.notification)), dict(vars(other.notification))
        assert fields[0].pop("originator_id") == events[0].originator_id
        assert fields[1].pop("originator_id") == twin_id
        assert fields[0].pop("id") < fields[1].pop("id")
        assert list(fields[0].items()) == list(fields[1].items())
    stored = app.recorder.select_events(events[0].originator_id)
    assert [(s.originator_version, s.topic, s.state) for s in stored] == [
        (r.notification.originator_version, r.notification.topic, r.notification.state) for r in ours]
    assert [vars(app.mapper.to_domain_event(s)) for s in stored] == [vars(e) for e in events]
