"""The countermix and the Player's forces (STF 1.4, 1.7, 1.8, 1.12-1.14, 13.1-13.9, 13.12).

The countermix (data/countermix.json: Task Force's page 17 is not in the text, so its counters
are provisional, what the text states is not) is copied into the game by ``PoolSet`` at the first
order of the Forces phase, so a later correction of the file never changes a game under way.

STF 1.4   A counter's value is its cost; a US carrier costs 25 points (data).
STF 1.7   The Player's carriers are drawn at random from his side's pool (``draw_carriers``); the
          first drawn fixes the nationality grouping the rest is bought from (Caribbean: US only).
STF 1.8   A US Player may buy up to 6 SOSUS units at 1 point for each 2.
STF 1.12  Each carrier has at least three ASW ships of frigate level or higher and, US only, one
          free fast resupply freighter (no invasion VP); an invader's 8 free freighters (1.11).
STF 1.13  The GameSystem's leaders only mark size (search.py's chits): nothing to do here.
STF 1.14  The Player's leaders by the points of each task force: 21+ Rear Admiral, 11+ Commodore,
          else Captain.
STF 13.1-13.9  Loads and values of the new units (``unit_from_counter``), the 13.7 upgrades.
"""

from __future__ import annotations

from typing import Any

from domain.rulesets.toolkit.data import DataError, Dataset, check_choice, check_fields, freeze

COUNTERMIX_FILE = "countermix.json"
NATIONS = ("US", "NATO", "Soviet")
CLASSES = ("CV", "BB", "CG", "CL", "DD", "FF", "PC", "SSN", "SS", "FR")
SUBS = ("SSN", "SS")
GUNS = ("A", "B", "C", "D", None)
AIR_KINDS = ("L", "M", "H", "EW", "AEW")
ROLES = (None, "fast resupply", "invasion")
OPT_STR = (str, type(None))
COUNTER_FIELDS = {
    "name": str, "nation": str, "country": str, "class": str, "ship_class": str, "value": int, "vp": int,
    "speed": int, "gun": OPT_STR, "asw": int, "aa": int, "ssm": int, "ssm_loads": int, "ssm_type": OPT_STR,
    "torpedoes": int, "flotation": int, "air": (dict, type(None)), "aircraft": (dict, type(None)),
    "role": OPT_STR, "source": str, "provisional": list,
}
FILE_FIELDS = {"title": str, "source": str, "provisional": str, "fields": dict, "counters": dict}

# What the text states about the counters (checked against the file, applied by unit_from_counter).
US_CARRIER_COST = 25            # STF 1.4
CLASS_VP = {"Iowa": 10, "Kirov": 8}  # STF 13.1
CV_CG_SSM_LOADS = 2             # STF 13.4
SUB_TORPEDOES = {"US": 4, "NATO": 4, "Soviet": 3}  # STF 13.5, 13.6
EXTRA_AV8_CLASS = "Invincible"  # STF 13.3
TOMAHAWK = "Tomahawk"           # STF 13.9


def load_countermix(dataset: Dataset, name: str = COUNTERMIX_FILE) -> dict:
    """The countermix file checked: every counter against its schema and the text's facts; the
    guesses recorded in ``dataset.provisional()``. Returns the frozen file."""
    doc = dataset.read(name)
    check_fields(name, "(file)", doc, FILE_FIELDS)
    dataset.guess(name, "(file)", None, doc["provisional"])
    counters = dataset.entries(name, doc, "counters", COUNTER_FIELDS)
    for cid, c in counters.items():
        entry = f"counters.{cid}"
        check_choice(name, entry, "nation", c["nation"], NATIONS)
        check_choice(name, entry, "class", c["class"], CLASSES)
        check_choice(name, entry, "gun", c["gun"], GUNS)
        check_choice(name, entry, "role", c["role"], ROLES)
        for f in ("value", "vp", "speed", "asw", "aa", "ssm", "ssm_loads", "torpedoes", "flotation"):
            if c[f] < 0:
                raise DataError(name, entry, f"'{f}' is negative")
        if c["class"] == "CV":
            if not isinstance(c["air"], dict) or sorted(c["air"]) != sorted(AIR_KINDS):
                raise DataError(name, entry, f"a carrier's 'air' gives the strength of {', '.join(AIR_KINDS)}")
            if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in c["air"].values()):
                raise DataError(name, entry, "'air' strengths are whole numbers, 0 or more")
        elif c["air"] is not None:
            raise DataError(name, entry, "only a carrier has 'air'")
        if (c["role"] is not None) != (c["class"] == "FR"):
            raise DataError(name, entry, "a freighter, and only a freighter, has a 'role' (STF 1.11, 1.12)")
        problem = text_conflict(c)
        if problem:
            raise DataError(name, entry, problem)
    return freeze(doc)


def text_conflict(c: dict) -> str | None:
    """What in a counter contradicts the text (a correction may change a guess, never the text)."""
    cls = c["class"]
    if cls == "CV" and c["nation"] == "US" and c["value"] != US_CARRIER_COST:
        return f"a US carrier costs {US_CARRIER_COST} points (STF 1.4)"
    if c["ship_class"] in CLASS_VP and c["vp"] != CLASS_VP[c["ship_class"]]:
        return f"a {c['ship_class']}-class ship is worth {CLASS_VP[c['ship_class']]} VP (STF 13.1)"
    if cls in ("CV", "CG") and c["ssm_loads"] != CV_CG_SSM_LOADS:
        return "CV and CG carry (x2) SSM (STF 13.4)"
    if cls in SUBS and c["torpedoes"] != SUB_TORPEDOES[c["nation"]]:
        return f"{c['nation']} subs carry (x{SUB_TORPEDOES[c['nation']]}) torpedoes (STF 13.5, 13.6)"
    if cls == "FF" and TOMAHAWK in (c["ssm_type"] or ""):
        return "no Tomahawk on a FF (STF 13.9)"
    if cls in ("DD", "FF", "PC") and c["ssm_loads"] > 2:
        return "a DD, FF or PC carries at most (x2) SSM (STF 13.7, 13.8)"
    if cls == "FR" and c["value"] != 0:
        return "freighters come free (STF 1.11, 1.12)"
    return None


def _dataset() -> Dataset:
    from domain.rulesets.stf.rules import DATA
    return DATA


COUNTERMIX: Any = load_countermix(_dataset())
COUNTERS = COUNTERMIX["counters"]
