"""STF's open readings settled against the text (../shared/rules/003_74ca0e4e298164eb.txt): each test
quotes the sentences that decide the case and sets up the case where the two readings part."""

from __future__ import annotations

from domain.rulesets.stf import maps
from tests.unit.stf.helpers import NoDice, add_group, combat_state, events_of, run_step, ship


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 11.4: "in the objective Megahex or adjacent to it" -------------------------------------
def test_stf_11_4_adjacent_to_the_objective_megahex_is_a_megahex_next_to_it_not_only_a_hex():
    """11.4: "If the GameSystem task force is defending against a player invasion, and is in the
    objective Megahex or adjacent to it, it will ignore Rule 11.3 and continue with as many rounds
    of gunnery and torpedo combat as possible." The sentence places the task force by megahexes
    ("it" is the Megahex); the text says "hex" where it means one ("a hex or adjacent hex", 7.10;
    "the same or adjacent hex", 9.8). 0912 is in megahex 22, next to megahex 30, but 2 hexes from
    every hex of megahex 30: 11.4 applies (one C gun fires at an A-gunned BB). Three megahexes off,
    11.3 holds it back."""
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion")}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    assert maps.megahex_distance("giuk", "1212", "0912") == 1 and maps.megahex_number("giuk", "0912") == 22
    assert min(maps.distance("giuk", "0912", h) for h in maps.megahex_hexes("giuk", 30)) == 2
    for where, fires, rule in (("0912", True, "STF 11.4"), ("2010", False, "STF 11.3")):
        st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
        add_group(st, "P1", "Player", where, player)
        add_group(st, "TF1", "system", where, system)
        out, _ = run_step(st, "surface_combat", NoDice())
        g = acts(out, "gunnery")[0]
        assert (g["rule"], g["detail"]["fire"]) == (rule, fires)
