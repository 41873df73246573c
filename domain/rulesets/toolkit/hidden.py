"""Private fields: the usual shape of hidden information, for a ruleset's ``concealable`` and
``hidden_fields`` hooks (docs/rulesets.md, "Hidden information").

Most hidden information is some fields of an event seen by one seat only (and the umpire): a
private note's order, a face-down marker's name, a standing order's policy. ``Private`` says
which fields of which event, when, and which data key names the seat that sees them;
``Secrets`` answers both hooks from a list of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

# What hides an order in an OrderAccepted: the order, and its digest and salt (with the salt, the
# digest would let anyone test a guess of the order).
ORDER_FIELDS = ("order", "digest", "salt")


def always(data: dict) -> bool:
    return True


@dataclass(frozen=True)
class Private:
    """``fields`` of an ``event_type`` whose data ``when`` accepts are seen only by the seat that
    ``owner`` (a key of the data) names, and by the umpire."""

    event_type: str
    fields: tuple[str, ...]
    owner: str = "seat"
    when: Callable[[dict], bool] = always

    def applies(self, event_type: str, data: dict) -> bool:
        return event_type == self.event_type and self.when(data)


class Secrets:
    """A ruleset's private fields; ``add`` more as mechanisms register (the proving ground)."""

    def __init__(self, *entries: Private):
        self.entries = list(entries)

    def add(self, entry: Private) -> Private:
        self.entries.append(entry)
        return entry

    def concealable(self, event_type: str, data: dict) -> tuple[str, ...]:
        """The fields some seat may not see (each concealed when recorded, in a format-2 game)."""
        fields = (f for e in self.entries if e.applies(event_type, data) for f in e.fields)
        return tuple(dict.fromkeys(fields))

    def hidden_fields(self, event_type: str, data: dict, viewer: str | None) -> set[str]:
        """The fields ``viewer`` (a seat, or None: a spectator) may not see."""
        return {f for e in self.entries if e.applies(event_type, data) and viewer != data[e.owner] for f in e.fields}
