"""How warlog writes the state of a stored event: eventsourcing's JSON, made faster for the usual
event, and an event's timestamp written as text once, not at each of its three uses.

An event's timestamp is written as ISO 8601 text three times on an order's path: for its hash
(``Game.trigger_event``), in its stored state (the ``datetime_iso`` transcoding) and in its
export line (``verify.to_line``). ``datetime.isoformat`` of an aware datetime costs about 12,000
instructions here; ``iso`` writes it once per datetime object and answers the other two from a
small cache.

``EventTranscoder`` is eventsourcing's ``JSONTranscoder`` (same decoder, same transcodings) whose
``encode`` writes the usual state with orjson: a dict whose only transcoded objects are datetimes
where eventsourcing puts them (an event's ``timestamp``; a snapshot's, and its aggregate's
creation and modification times, ``AGGREGATE_STAMPS``). orjson's text is kept only when it reads
back as that state (the datetimes apart, written as the transcoding writes them): a NaN or an
infinity (orjson writes null), a UUID (orjson writes its text, eventsourcing a transcoded
object), a plain Enum (orjson writes its value, eventsourcing refuses it) read back as something
else, and orjson refuses outright what it cannot write as the standard encoder would (an int
past 64 bits, a key that is not a string, a subclass of str, int, dict or list, a dataclass, any
other datetime, date or time). Anything else goes to ``JSONTranscoder.encode``. Without floats
the bytes are the standard encoder's (same key order, separators and escapes); with one they may
be written differently (``1e-05`` as ``0.00001``) and read back as the same number.
tests/unit/test_transcoding.py compares both ways.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder

from domain.chain import ORJSON_PASSTHROUGH

# (datetime, its isoformat) by id: an entry holds its datetime, so that id is not reused while the
# entry stands. Bounded by emptying it; a miss only costs the isoformat again.
_ISO: dict[int, tuple[datetime, str]] = {}
_ISO_MOST = 4096


def iso(stamp: datetime) -> str:
    """``stamp.isoformat()``, written once for the same datetime object (thread-safe: each step
    is one dict operation, and a lost entry is written again)."""
    hit = _ISO.get(id(stamp))
    if hit is not None and hit[0] is stamp:
        return hit[1]
    text = stamp.isoformat()
    if len(_ISO) >= _ISO_MOST:
        _ISO.clear()
    _ISO[id(stamp)] = (stamp, text)
    return text


class DatetimeAsCachedISO(DatetimeAsISO):
    """``DatetimeAsISO`` (the same name and text), its text from ``iso``."""

    def encode(self, obj: datetime) -> str:
        return iso(obj)


# A snapshot's aggregate state (eventsourcing's ``Snapshot``: ``state`` is the aggregate's
# __dict__) holds its creation and modification times.
AGGREGATE_STAMPS = ("_created_on", "_modified_on")


class EventTranscoder(JSONTranscoder):
    """``JSONTranscoder`` with the usual state written by orjson (module docstring)."""

    def register(self, transcoding: Any) -> None:
        if type(transcoding) is DatetimeAsISO:
            transcoding = DatetimeAsCachedISO()
        super().register(transcoding)

    def encode(self, obj: Any) -> bytes:
        if type(obj) is dict:
            stamp = obj.get("timestamp")
            if type(stamp) is datetime and datetime in self.types:
                # orjson's ``default``: these datetimes (by value) transcoded as the standard encoder
                # transcodes them (``_encode_obj``), anything else refused.
                transcoded = {stamp: self._encode_obj(stamp)}
                aggregate = obj.get("state")
                if type(aggregate) is dict:  # a snapshot's
                    for key in AGGREGATE_STAMPS:
                        when = aggregate.get(key)
                        if type(when) is datetime:
                            written = self._encode_obj(when)
                            if transcoded.setdefault(when, written) != written:  # the same instant, other text
                                return super().encode(obj)
                try:
                    text = orjson.dumps(obj, default=transcoded.__getitem__, option=ORJSON_PASSTHROUGH)
                except TypeError:  # orjson.JSONEncodeError: something refused
                    return super().encode(obj)
                if self._reads_back(text, obj, stamp, aggregate, transcoded):
                    return text
        return super().encode(obj)

    @staticmethod
    def _reads_back(text: bytes, obj: dict, stamp: datetime, aggregate: Any, transcoded: dict) -> bool:
        """Whether ``text`` reads back as ``obj``, its datetimes (where the standard encoder
        would write them) transcoded as it would write them. A datetime of equal value elsewhere
        was written by ``default`` as well, and reads back as a dict: not ``obj``."""
        back = orjson.loads(text)
        if back["timestamp"] != transcoded[stamp]:
            return False
        back["timestamp"] = stamp
        if type(aggregate) is dict:
            inner = back["state"]
            for key in AGGREGATE_STAMPS:
                when = aggregate.get(key)
                if type(when) is datetime:
                    if inner[key] != transcoded[when]:
                        return False
                    inner[key] = when
        return back == obj
