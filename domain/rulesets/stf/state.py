"""Solitaire Task Force's game state, a JSON object (the generic part is core.base_state):

- ``campaign``: what STF 1-4 generated, key by key (CampaignFixed): ``map``, ``player_side``
  ("US" or "Soviet"), ``system_side`` ("Soviet", "US" or "NATO"; None until STF 8.8 or 10.8
  fixes it), ``mission``, ``invader`` ("Player", "system" or None), ``commitment`` ({"Player":
  {"points", "carriers"}, "system": points}), ``ground_aviation``, ``surveillance``,
  ``tactical``, ``system_airbase``, ``invasion_target``, ...
- ``groups``: {id: {id, owner ("Player" or "system"), kind ("tf" or "subron"), hex, units,
  status ("on map", "off map", "false contact", "retired", "sunk"), and for the GameSystem's:
  intel ("unknown", "approximate", "good", "accurate", "precise"), chit (None, "Enemy",
  "Tracked", "Captain", "Commodore", "Rear Admiral"), size, mode ("deep"/"shallow"), emcon}}
- ``units``: {id: a ship, sub or squadron, with ``group``} (the core's dict);
  ``pool``: {counter: {...}} the countermix counters not yet drawn (STF 8.10);
- ``deployment``: the GameSystem's deployment point total against its commitment (STF 1.9,
  8.12, 8.13); ``airbases``: {name: {owner, hits}}; ``lbna``: STF 2.6's Badger and Backfire units; ``actions_lost``: STF 8.14, 8.15;
  ``strikes``: {group: the turn of its last air strike} (STF 10.13).

STF 12's retirement limit and index are not kept: retirement.py computes them from the commitment
and the losses when the Terminal phase needs them (a ``retirement`` key here, ``{"limit": null,
"index": 0}`` and never updated, told a reader of the state the limit was unknown and nothing lost).
"""

from __future__ import annotations

from domain.rulesets import core

SIDES = ["Player", "system"]


def initial(set_up_phases: list[str], turn_phases: list[str]) -> dict:
    state = core.base_state(SIDES, [*set_up_phases, *turn_phases])
    state.update({
        "turn": 0,
        "active": ["Player"],
        "campaign": {},
        "groups": {},
        "pool": {},
        "deployment": {"total": 0},
        "airbases": {},
        "lbna": {},
        "actions_lost": 0,
        "strikes": {},
    })
    return state
