"""Whole campaigns played against the STF text (../shared/rules/003_74ca0e4e298164eb.txt), as an
examiner would: seeded random campaigns (domain/rulesets/stf/play.py) folded event by event, with
what the text says always or never checked after each event; and, for each disagreement those
campaigns found, a small scenario from the text named after its rule."""

from __future__ import annotations

import pytest

from domain.rulesets.stf import forces
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, play, pool_of, ship, system_group


# ---- STF 11.1 with 8.7: a long-range hit on an Accurate task force makes it Precise ---------------
def accurate_tf_with_its_set_aside_cv() -> dict:
    """An Accurate Rear Admiral task force whose air strike revealed its air strength: 10.8 set
    a Kiev aside as its CV (the only unit it holds before its composition is known)."""
    st = combat_state(commitment=93)
    add_group(st, "P1", "Player", "0505", {"ticonderoga": ship("CG", 5, nation="US", ssm=8, ssm_loads=2)})
    st["groups"]["TF1"] = system_group("TF1", hex="0506", intel="accurate", chit="Rear Admiral", size="large",
                                       air_known=True)
    kiev = forces.unit_from_counter(st, "sov-cv-kiev", "sov-cv-kiev")
    st["units"]["sov-cv-kiev"] = {**kiev, "group": "TF1", "set_aside": True}
    st["groups"]["TF1"]["units"] = ["sov-cv-kiev"]
    st["pool"] = pool_of("Soviet", CG=2, DD=2, FF=4)
    return st


def test_stf_11_1_a_hit_on_an_accurate_task_force_holding_its_set_aside_cv_draws_its_composition():
    """11.1: "If any hits are recorded, the target is immediately Precise and hits are recorded at
    random"; 8.7: a Precise force's exact composition becomes known (Soviet Rear Admiral TF with a
    revealed air strength, +4: a 1 reads row 5, 1CV 1CG 1DD 3FF), and its chit is turned onto its
    normal side. The Kiev set aside for its air strike is its 1CV (10.8). Campaigns reached this with
    a group holding only the Kiev: it was made Precise as a lone carrier on its EMCON side, every hit
    fell on the Kiev and the deployment total never counted the task force."""
    st = accurate_tf_with_its_set_aside_cv()
    out, after = play(st, {"kind": "ssm", "target": "TF1", "hits": 1, "spent": {"ticonderoga": 8}},
                      FixedDice(1, default=1))
    g = after["groups"]["TF1"]
    assert g["intel"] == "precise" and g["emcon"] is False
    assert sorted(after["units"][u]["class"] for u in g["units"]) == ["CG", "CV", "DD", "FF", "FF", "FF"]
    assert "sov-cv-kiev" in g["units"] and after["units"]["sov-cv-kiev"]["set_aside"] is False
    assert after["deployment"]["groups"]["TF1"]["points"] == 10 + 6 + 4 + 9
    assert sum(u.get("hits", 0) for u in after["units"].values()) == 1  # the one hit, at random


# ---- whole campaigns: what the text says always or never, checked after every event --------------
import collections  # noqa: E402
import hashlib  # noqa: E402
import random  # noqa: E402
from uuid import UUID  # noqa: E402

from domain.errors import InvalidOrder, RuleViolation  # noqa: E402
from domain.game import Game  # noqa: E402
from domain.rulesets.stf import maps, play as random_play, retirement  # noqa: E402

CAMPAIGNS = 45  # seeded campaigns, a fifth of a second each
META = ("originator_id", "originator_version", "timestamp", "prev_hash", "hash", "concealed", "stream",
        "originator_topic")
INTEL = ["unknown", "approximate", "good", "accurate", "precise"]
SSM_ORDER = ["FR", "BB", "CG", "CL", "DD", "FF", "PC"]  # 11.2 (a CL after the CG: data/combat.json)


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"stf-examiner-{epoch}".encode()).digest()


def fields(e) -> dict:
    return {k: v for k, v in e.__dict__.items() if k not in META}


def afloat(st: dict, gid: str) -> list[dict]:
    return [st["units"][u] for u in st["groups"][gid].get("units", [])
            if u in st["units"] and not st["units"][u].get("sunk") and not st["units"][u].get("retired")]


def base_game_result(st: dict, rng: random.Random) -> dict | None:
    """A result the base game may give in the Strike or Combat phase, reported unasked: a unit
    sunk, a carrier's squadron destroyed or its flight deck made inoperable, hits on an airbase
    (so campaigns reach STF 9.4, 12.3 and 12.5-12.9, which the offered orders seldom do)."""
    if st.get("pending") or st.get("phase") not in ("Strike", "Combat"):
        return None
    live = [u for u in st["units"].values() if (st["groups"].get(u.get("group")) or {}).get("status") == "on map"
            and not u.get("sunk") and not u.get("retired") and u.get("class") != "SOSUS"]
    cvs = [u for u in live if st["groups"][u["group"]]["owner"] == "system" and u.get("class") == "CV" and u.get("air")]
    r = rng.random()
    if r < 0.4 and cvs:
        cv = rng.choice(cvs)
        kinds = [k for k, v in cv["air"].items() if v and k in ("L", "M", "H")]
        return {"kind": "report", "squadrons_destroyed": [f"{cv['id']}:{rng.choice(kinds)}"]} if kinds else None
    if r < 0.5 and cvs:
        return {"kind": "report", "flight_deck_inoperable": [rng.choice(cvs)["id"]]}
    if r < 0.8 and live:
        return {"kind": "report", "sunk": [rng.choice(live)["id"]]}
    bases = sorted(st.get("airbases") or {})
    return {"kind": "report", "airbase_hits": {rng.choice(bases): rng.randint(1, 3)}} if bases else None


def campaign(n: int, end_chance: float, results: float = 0.0) -> tuple[Game, list[tuple[dict, str]]]:
    """Campaign ``n`` played to its end by the random Player, reporting a base game result unasked
    before ``results`` of its orders; with the refusals it met."""
    g = Game.create("stf", game_id=UUID(int=0xE7A000 + n), seed_for=seed_for)
    g.join("Player", "player", f"e{n}", seed_for)
    player, refused, accepted = random_play.RandomPlayer(random.Random(n), end_chance=end_chance), [], 0
    rng = random.Random(-n)
    while not g.is_ended:
        extra = base_game_result(g.state, rng) if rng.random() < results else None
        for order in [extra] * bool(extra) + list(player.candidates(g.rules, g.state, "Player")):
            before = g.state
            try:
                g.submit("Player", f"o{accepted}", order, seed_for)
            except (RuleViolation, InvalidOrder) as no:
                refused.append((order, str(no)))
                continue
            player.accepted(before, order)
            accepted += 1
            break
        else:
            raise random_play.Stalled(f"campaign {n}: no order accepted")
        assert accepted < 5000, n
    return g, refused


class Examiner:
    """Folds a campaign's events one by one, checking each against the state it applies to."""

    def __init__(self) -> None:
        self.bad: list[str] = []
        self.spent: dict[str, int] = {}
        self.checked_turns: set[int] = set()
        self.split_rest: list[str] = []
        self.must_go: dict[str, str] = {}
        self.strikes: dict[str, list[int]] = collections.defaultdict(list)

    def fail(self, rule: str, msg: str) -> None:
        self.bad.append(f"STF {rule}: {msg}")

    def run(self, g: Game, refused: list) -> list[str]:
        for order, msg in refused:
            if "STF " not in msg:
                self.fail("(refusal)", f"{order} refused without naming a rule: {msg}")
        st = None
        for e in g.pending_events:
            t, f = type(e).__name__, fields(e)
            if st is not None and st.get("groups") is not None:
                getattr(self, "on_" + t, lambda st, f: None)(st, f)
                if t == "TurnAdvanced":
                    self.turn_ends(st)
            before, st = st, g.rules.evolve(st, e)
            if before and before.get("groups"):
                self.after(before, st, t)
        self.game_ends(g.state)
        return self.bad

    # -- each event against the state it applies to
    def on_UnitChanged(self, st: dict, f: dict) -> None:
        u, ch = st["units"].get(f["unit"]), f["changes"]
        if not u:
            return
        if (u.get("sunk") or u.get("retired")) and set(ch) - {"retired", "hits", "sunk"}:
            self.fail("12.9/11.1", f"{f['unit']}, sunk or retired, changes {ch}")
        for k in ("ssm_left", "torpedoes_left"):  # 11.2, 13.4-13.7: spent, never more than carried
            if k in ch and not 0 <= ch[k] <= u.get(k, 0):
                self.fail("11.2/13", f"{f['unit']} {k} {u.get(k)} -> {ch[k]}")
            if k == "ssm_left" and k in ch:
                self.spent[f["unit"]] = u.get(k, 0) - ch[k]

    def on_UnitsAssigned(self, st: dict, f: dict) -> None:
        for uid, u in f["units"].items():
            cls = u.get("class")
            if cls in ("CV", "CG") and u.get("ssm_loads") != 2:
                self.fail("13.4", f"{uid} carries (x{u.get('ssm_loads')}) SSM")
            if cls in ("SSN", "SS") and u.get("torpedoes") != (3 if u.get("nation") == "Soviet" else 4):
                self.fail("13.5/13.6", f"{uid} has (x{u.get('torpedoes')}) torpedoes")
            if "ssm_left" in u and u["ssm_left"] != u.get("ssm", 0) * u.get("ssm_loads", 1):
                self.fail("11.2", f"{uid} starts with {u['ssm_left']} SSM, not {u.get('ssm')} x{u.get('ssm_loads')}")
            if cls == "PC" and u.get("ssm_loads", 1) > 1 or cls not in ("DD", "FF", "CV", "CG") and u.get("ssm") \
                    and u.get("ssm_loads", 1) > 1:
                self.fail("13.7/13.8", f"{uid} ({cls}) carries (x{u.get('ssm_loads')}) SSM")
            if cls == "FF" and "tomahawk" in str(u.get("ssm_type")).lower():
                self.fail("13.9", uid)
            if (u.get("ship_class"), u.get("vp")) in (("Iowa", u.get("vp")), ("Kirov", u.get("vp"))) \
                    and u["vp"] != {"Iowa": 10, "Kirov": 8}[u["ship_class"]]:
                self.fail("13.1", f"{uid} is worth {u['vp']} VP")

    def on_GroupMoved(self, st: dict, f: dict) -> None:
        gr = st["groups"].get(f["group"])
        if not gr:
            return
        if gr.get("status") != "on map" or (gr.get("units") and not afloat(st, f["group"])):
            self.fail("11.1/12.9", f"turn {st['turn']}: {f['group']} moves while {gr.get('status')}")
        if gr["owner"] != "system":
            return
        steps = len(f["path"])
        if st["campaign"].get("system_ccl_turn") == st["turn"] and steps > 1:
            self.fail("5.2", f"turn {st['turn']}: {f['group']} moves {steps} hexes under command control loss")
        if gr["kind"] == "subron":
            conventional = any(u.get("class") == "SS" for u in afloat(st, f["group"]))
            most = 1 if gr.get("intel") == "precise" and conventional else 2
            if steps > most:
                self.fail("7.1", f"turn {st['turn']}: {f['group']} ({gr.get('intel')}) moves {steps} hexes")
        elif f["rule"] != "STF 7.11":  # 7.10 "except" 7.11's last ditch, which ignores all other movement rules
            m = st["campaign"]["map"]
            bbs = [p["hex"] for p in st["groups"].values() if p["owner"] == "Player" and p.get("kind") == "tf"
                   and p.get("status") == "on map" and any(u.get("class") == "BB" for u in afloat(st, p["id"]))]
            for h in f["path"]:
                if any(maps.distance(m, h, b) <= 1 < maps.distance(m, gr["hex"], b) for b in bbs):
                    self.fail("7.10", f"turn {st['turn']}: {f['group']} enters {h}, by a Player BB task force")

    def on_GroupPlaced(self, st: dict, f: dict) -> None:
        gr = f["group"]
        if gr["owner"] == "Player" and gr.get("kind") == "tf" and gr.get("points") is not None:
            pts = gr["points"]
            leader = "Rear Admiral" if pts >= 21 else "Commodore" if pts >= 11 else "Captain"
            if gr.get("leader") != leader:
                self.fail("1.14", f"{gr['id']} of {pts} points has a {gr.get('leader')}")
        if f["rule"] == "STF 12.7":
            self.escorts_of_a_retiring_cv(st, f)
        if gr["owner"] == "system" and st["campaign"].get("commitment_reached") and f["rule"] != "STF 12.7":
            self.fail("1.9", f"{gr['id']} placed after the commitment is reached")
        if (gr["owner"] == "system" and gr.get("kind") == "tf" and st["campaign"].get("surface_limit_reached")
                and f["rule"] != "STF 12.7"):
            self.fail("1.10", f"{gr['id']} placed after the surface commitment limit is reached")

    def on_GroupChanged(self, st: dict, f: dict) -> None:
        gr, ch = st["groups"][f["group"]], f["changes"]
        if f["rule"] == "STF 12.7" and "units" in ch:
            self.split_rest = ch["units"]
        if ch.get("status") == "on map" and gr["owner"] == "system" and st["campaign"].get("commitment_reached"):
            self.fail("1.9", f"{f['group']} deployed after the commitment is reached")
        if "intel" in ch and gr.get("intel") in INTEL and INTEL.index(ch["intel"]) < INTEL.index(gr["intel"]):
            if gr["intel"] == "precise" or gr["intel"] == "accurate" and gr.get("air_known") or f["rule"] != "STF 8.11":
                self.fail("8.7/8.11", f"{f['group']} {gr['intel']} -> {ch['intel']} by {f['rule']}")
        if ch.get("mode") == "shallow" and "precise" not in (gr.get("intel"), ch.get("intel")):
            m = st["campaign"]["map"]
            tfs = [p["hex"] for p in st["groups"].values() if p["owner"] == "Player" and p.get("kind") == "tf"
                   and p.get("status") == "on map"]
            if not any(maps.distance(m, gr["hex"], h) <= 2 for h in tfs):
                self.fail("7.3", f"turn {st['turn']}: {f['group']} leaves Deep mode, no Player task force near")

    def on_AirbaseChanged(self, st: dict, f: dict) -> None:
        rec, ch = st["airbases"].get(f["name"]) or {}, f["changes"]
        if "hits" in ch and ch["hits"] < rec.get("hits", 0):  # 9.5: 1 hit a turn, not in a turn it is attacked
            if ch["hits"] != rec["hits"] - 1 or rec.get("attacked") == st["turn"]:
                self.fail("9.5", f"turn {st['turn']}: {f['name']} {rec['hits']} -> {ch['hits']} hits, attacked "
                                 f"in turn {rec.get('attacked')}")

    def escorts_of_a_retiring_cv(self, st: dict, f: dict) -> None:
        """12.7: the three best frigates (ASW, then AA, then lowest SSM), DD then CG when fewer."""
        party = [st["units"][u] for u in f["group"]["units"]]
        cv = next(u for u in party if u.get("class") == "CV")
        ships = [u for u in party + [st["units"][u] for u in self.split_rest] if u is not cv
                 and not u.get("sunk") and not u.get("retired")]
        want: list = []
        for cls in ("FF", "DD", "CG"):
            of = sorted((u for u in ships if u.get("class") == cls),
                        key=lambda u: (-u.get("asw", 0), -u.get("aa", 0), u.get("ssm", 0)))
            want += [(u.get("asw", 0), u.get("aa", 0), u.get("ssm", 0), cls) for u in of[:3 - len(want)]]
        got = sorted((u.get("asw", 0), u.get("aa", 0), u.get("ssm", 0), u["class"]) for u in party
                     if u is not cv and u.get("role") != "fast resupply")
        if got != sorted(want):
            self.fail("12.7", f"{cv['id']} retires with {got}, not the best {sorted(want)}")

    def on_CampaignFixed(self, st: dict, f: dict) -> None:
        if f["key"] == "commitment_reached":  # 1.9: "all counters ... at 'Good' or lower ... immediately removed"
            self.must_go = {gid: gr.get("intel") for gid, gr in st["groups"].items() if gr.get("owner") == "system"
                            and gr.get("status") == "on map" and gr.get("intel") in INTEL[:3]}

    def on_PlayerAirAction(self, st: dict, f: dict) -> None:
        target = (f.get("detail") or {}).get("target")
        gr = st["groups"].get(target)
        if f["what"] == "air strike" and gr and gr.get("intel") not in ("accurate", "precise"):
            self.fail("10.1", f"turn {st['turn']}: a Player air strike at {target}, {gr.get('intel')}")
        base = st["airbases"].get((f.get("detail") or {}).get("from"))
        if f["what"] == "air strike" and base and base.get("hits", 0) >= 3:
            self.fail("9.4", f"an air strike from {f['detail']['from']} with {base['hits']} hits")

    def on_SystemActs(self, st: dict, f: dict) -> None:
        d, what = f.get("detail") or {}, f["what"]
        gid = d.get("group")
        if gid in st["groups"] and st["groups"][gid].get("units") and not afloat(st, gid):
            self.fail("11.1", f"turn {st['turn']}: {gid} acts ({what}) with nothing afloat")
        if what == "SSM wave":
            self.ssm_wave(st, d)
        elif what == "gunnery" and d.get("fire") and f["rule"] == "STF 11.3" and d["ships"] < d["player_ships"]:
            self.fail("11.3", f"{gid} fires {d['level']} guns with {d['ships']} ships against {d['player_ships']}")
        elif what == "sub placement" and len(set(d["areas"].values())) != len(d["areas"]):
            self.fail("11.5", f"two subs in one entry area: {d['areas']}")
        elif what == "air strike":
            if d.get("megahexes") is not None and d["megahexes"] > (2 if d.get("target_kind") == "SAG" else 6):
                self.fail("10.3", f"{gid} strikes a {d.get('target_kind')} {d['megahexes']} megahexes away")
            base = st["airbases"].get(gid)
            if base and base.get("hits", 0) >= 3:
                self.fail("9.4", f"{gid} launches aircraft with {base['hits']} hits")
        elif what == "retirement check":
            idx, lim = retirement.index(st), retirement.limit(st)
            heavy = retirement.net_vp(st) * 100 >= retirement.commitment(st) * 66
            if st["phase"] != "Terminal" or not idx > lim or heavy != (f["rule"] == "STF 12.6"):
                self.fail("12.5/12.6", f"a retirement check in {st['phase']}, index {idx}, limit {lim}, {f['rule']}")
            self.checked_turns.add(st["turn"])

    def ssm_wave(self, st: dict, d: dict) -> None:
        gid = d["group"]
        if sum(d["fired_by"].values()) != d["missiles"]:
            self.fail("11.2", f"a wave of {d['missiles']} fired by {d['fired_by']}")
        for uid, k in d["fired_by"].items():
            if self.spent.pop(uid, None) != k or st["units"][uid].get("group") != gid:
                self.fail("11.2", f"{uid} fires {k} SSMs for {gid} without spending them")
        if d.get("long_range") and st["groups"][gid].get("intel") != "precise":
            self.fail("11.1", f"{gid}, {st['groups'][gid].get('intel')}, fires long-range SSMs")
        live = afloat(st, d["target_group"])
        cls = st["units"][d["target"]].get("class")
        if d["missiles"] > (10 if cls == "CV" else 6):
            self.fail("11.2", f"a wave of {d['missiles']} at a {cls}")
        if cls != "CV" and any(u.get("class") == "CV" for u in live):
            self.fail("11.2", f"a wave at a {cls} while the CV is afloat")
        elif cls != "CV" and cls != min((u["class"] for u in live if u.get("class") in SSM_ORDER),
                                        key=SSM_ORDER.index, default=cls):
            self.fail("11.2", f"a wave at a {cls} among {[u.get('class') for u in live]}")

    def on_StrikeFlown(self, st: dict, f: dict) -> None:
        gr = st["groups"].get(f["group"])
        if gr is None:
            return  # an airbase's: 10.13 binds a task force
        two_cvs = gr.get("intel") == "precise" and sum(u.get("class") == "CV" for u in afloat(st, f["group"])) >= 2
        if f["turn"] - 1 in self.strikes[f["group"]] and not two_cvs:
            self.fail("10.13", f"{f['group']} strikes in turns {f['turn'] - 1} and {f['turn']}")
        self.strikes[f["group"]].append(f["turn"])

    # -- at turn ends, after each event, at the end
    def turn_ends(self, st: dict) -> None:
        idx, lim = retirement.index(st), retirement.limit(st)
        if st["turn"] >= 1 and lim is not None and idx > lim and not st["campaign"].get("system_retiring") \
                and st["turn"] not in self.checked_turns:
            self.fail("12.5", f"turn {st['turn']}: index {idx} exceeds {lim} and no retirement die is rolled")

    def after(self, before: dict, st: dict, t: str) -> None:
        for gid, gr in st["groups"].items():
            was = before["groups"].get(gid) or {}
            if gr.get("owner") == "system" and was.get("intel") == "precise" and gr.get("intel") != "precise":
                self.fail("8.7", f"{gid} is no longer Precise after {t}")
        if t not in ("TurnAdvanced", "PhaseAdvanced"):
            return
        for gid, gr in st["groups"].items():
            if gr.get("status") == "on map" and gr.get("units") and not afloat(st, gid):
                self.fail("11.1/12.9", f"turn {st['turn']}: {gid} is on the map with nothing afloat")
            if gr.get("owner") != "system" or gr.get("status") != "on map":
                continue
            if gr.get("intel") == "precise" and gr.get("kind") == "tf" and gr.get("emcon"):
                self.fail("8.7", f"turn {st['turn']}: {gid} is Precise on its EMCON side")
            if st["campaign"].get("system_retiring") is not None and not gr.get("retiring"):
                self.fail("12.5", f"turn {st['turn']}: {gid} is not retiring though the GameSystem retires")
            if gid in self.must_go:
                self.fail("1.9", f"turn {st['turn']}: {gid} was {self.must_go[gid]} when the commitment was reached, "
                                 "and is still in play")
        self.must_go = {}

    def game_ends(self, st: dict) -> None:
        c = st["campaign"]
        if c["commitment"].get("system_submarines") != c["commitment"]["system"] // 3:
            self.fail("1.10", f"{c['commitment']}")
        if c["map"] == "caribbean":
            us = 5 if c["player_side"] == "US" else -5
            table, now = c["commitment_table"], c["commitment"]
            if (now["Player"]["points"], now["system"]) != (table["Player"]["points"] + us, table["system"] - us):
                self.fail("1.6", f"{table} -> {now}")
        purchase = c.get("player_purchase") or {}
        if purchase.get("points", 0) > purchase.get("limit", 0):
            self.fail("1.5", f"the Player spent {purchase}")
        for key, used in (st.get("lbna") or {}).get("used", {}).items():
            if used > 6:
                self.fail("2.6", f"{used} {key} units flown")
        for gid, gr in st["groups"].items():
            classes = {st["units"].get(u, {}).get("class") for u in gr.get("units", [])}
            if gr.get("owner") == "system" and gr.get("kind") == "subron" and {"SSN", "SS"} <= classes:
                self.fail("8.9", f"{gid} holds SSN and SS")


@pytest.mark.parametrize("end_chance,results,first", [(0.35, 0.0, 0), (0.1, 0.0, 1000), (0.2, 0.5, 2000)])
def test_whole_campaigns_keep_what_the_stf_text_says_always_or_never(end_chance, results, first):
    """Seeded campaigns from creation to the end: after every event, the invariants the text states
    (see ``Examiner``); the first ones found are listed whole."""
    bad = []
    for n in range(first, first + CAMPAIGNS // 3):
        g, refused = campaign(n, end_chance, results)
        assert g.state["ended"]["rule"].startswith("STF ")
        bad += [f"campaign {n}: {b}" for b in Examiner().run(g, refused)]
    assert bad == [], "\n".join(bad[:20])


# ---- STF 12.5 with 6.4: once the GameSystem retires, all its units retire -------------------------
def test_stf_12_5_a_task_force_deployed_after_the_gamesystem_retired_retires_too():
    """12.5: on a '1' "all the GameSystem units retire towards their nearest 'Base' hex"; 6.4 still
    deploys a third of the counters off the map each turn. Campaigns deployed such counters after
    the GameSystem had retired, and they fought on for the rest of the game."""
    from tests.unit.stf.helpers import at_phase, run_step
    st = at_phase(combat_state(commitment=93, system_retiring=7), "Random Events", turn=8)
    st["groups"]["TF1"] = system_group("TF1", hex=None, status="off map")
    add_group(st, "P1", "Player", "0505", {"p_dd": ship("DD", 4, nation="US")})
    out, after = run_step(st, "reinforcements", FixedDice(default=1))
    g = after["groups"]["TF1"]
    assert g["status"] == "on map" and g["retiring"] is True and g["destination"] is not None


# ---- STF 12.7 with 12.9: a carrier reaching its base with every escort sunk -----------------------
def test_stf_12_7_a_carrier_whose_escorts_were_all_sunk_leaves_no_empty_sag_at_its_base():
    """12.7: "Upon reaching the base the CV is removed from the task force and the escort force may
    continue in the game as a SAG"; 12.9: retiring units reaching the base leave the map. With its
    escorts all sunk on the way there is no escort force: the group leaves with its carrier.
    Campaigns kept such a group of sunk ships on the map, moving and searched as a SAG."""
    from domain.rulesets.stf import retirement
    from tests.unit.stf.helpers import NoDice, run_step
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    base = retirement.base_hexes(st, "Soviet")[0]
    units = {c: forces.unit_from_counter(st, c, c) for c in ("sov-cv-kiev", "sov-ff-bditelny", "sov-ff-razumny")}
    add_group(st, "TF7", "system", base, units, retiring=True, carrier_retiring="sov-cv-kiev", destination=base)
    for ff in ("sov-ff-bditelny", "sov-ff-razumny"):
        st["units"][ff]["sunk"] = True
    out, after = run_step(st, "retirement", NoDice())
    assert after["groups"]["TF7"]["status"] == "retired" and after["units"]["sov-cv-kiev"]["retired"] is True
