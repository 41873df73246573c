"""A new Solitaire Task Force player's campaign (round 12) over HTTP: orders the offer held that the
server then refused."""

from __future__ import annotations

import pytest

from domain.rulesets.stf import play as splay
from tests.api.test_examiner_documented_orders import (_player_cv_tf, _system_tf, accepted, legal, refused,
                                                       state_of, stf_combat_position, stf_game)
from tests.api.test_examiner_stf_api import _lines

HARPOON_AIRCRAFT = ("A-6 Intruder", "Buccaneer")


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


def test_stf_13_11_no_harpoon_strike_is_offered_from_carriers_whose_a6s_are_lost(client, monkeypatch):
    """STF 13.11: a carrier's A-6 Intruder (or Buccaneer) squadrons fire Harpoons with an air strike,
    each once. After the Player reported his carrier's A-6 squadron destroyed ("squadrons_destroyed":
    ["us-cv-…:H"]), legal-orders still offered the strike with "asm": [{"aircraft": "A-6 Intruder"}]
    from its task force, and the server refused it as sent: "P1's carriers have 0 A-6 Intruder
    squadron(s) left, not 1 to fire Harpoons"."""
    chosen = {}

    def edit(state):
        chosen["tf"], chosen["cv"] = _system_tf(state), _player_cv_tf(state)
        state["groups"][chosen["tf"]].update(intel="accurate", chit="Commodore", size="medium")
        for uid in state["groups"][chosen["cv"]]["units"]:
            unit = state["units"][uid]
            if unit["class"] == "CV":  # every squadron that fires Harpoons is lost (the report's air_lost)
                unit["air_lost"] = [t for t, a in (unit.get("aircraft") or {}).items()
                                    for n in range(len(unit["air"][t]) if isinstance(unit["air"][t], list) else 1)
                                    if any(h in str(a) for h in HARPOON_AIRCRAFT)]
    game = stf_combat_position(client, monkeypatch, edit, phase="Strike",
                               campaign={"kind": "campaign", "map": "giuk", "side": "US"},
                               wanted=lambda st: _player_cv_tf(st) is not None)
    cv, tf = chosen["cv"], chosen["tf"]
    strikes = [o for o in legal(client, game, "Player") if o["kind"] == "air_strike" and o["from"] == cv]
    assert {"kind": "air_strike", "from": cv, "target": tf} in strikes, strikes  # the strike itself flies
    assert not [o for o in strikes if o.get("asm")], strikes
    problem = refused(client, game, "Player", {"kind": "air_strike", "from": cv, "target": tf,
                                               "asm": [{"aircraft": "A-6 Intruder", "damage": 0}]})
    assert problem["rule"] == "STF 13.11", problem


def test_stf_11_7_the_history_tells_the_whole_placement_the_player_sets_up(client, monkeypatch):
    """STF 11.7: the Player calls on the GameSystem to place a group's ships on the tactical display
    and sets them up as it says. The history cut the placement's line at 160 characters ("ships
    unit sov-pc-zyb, ring 1, position 1, unit sov-pc-groza, ring 2, position 1, unit sov-pc-r-14,
    ri…"), so a player reading it could not place the rest; a gunnery round's targets and its
    instruction were cut the same way. What the Player carries out at the table is told whole."""
    chosen = {}

    def edit(state):
        tf = chosen["tf"] = _system_tf(state)
        ships = [uid for uid, u in sorted(state["pool"].items())  # those the GameSystem has not drawn
                 if u.get("nation") == "Soviet" and u.get("class") in ("CG", "CL", "DD", "FF", "PC")][:9]
        assert len(ships) == 9, (sorted(state["pool"])[:20], state["campaign"])
        for uid in ships:  # a large force, as the Precise Composition Table gives one
            state["units"][uid] = {**state["pool"].pop(uid), "id": uid, "counter": uid, "group": tf, "hits": 0,
                                   "sunk": False}
        state["groups"][tf].update(intel="precise", chit="Rear Admiral", size="large", units=ships)
        chosen["ships"] = ships
    game = stf_combat_position(client, monkeypatch, edit, phase="Combat",
                               campaign={"kind": "campaign", "map": "giuk", "side": "US"})
    tf = chosen["tf"]
    accepted(client, game, "Player", {"kind": "placement", "group": tf})
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Player"]).json
    lines = [li["text"] for li in _lines(history) if li["type"] == "SystemActs" and "placement" in li["text"]]
    assert lines, history
    line = lines[-1]
    assert "…" not in line and "more" not in line, line
    told = line.split(" (STF 11.7)")[0]
    assert told.count(", ring ") == len(chosen["ships"]), line  # every ship's spot, the ninth's too
    assert all(uid in told for uid in chosen["ships"]), line
    assert line.endswith("(STF 11.7): highest value in the centre ring, then from the top left of each next ring "
                         "clockwise, every second location on ring 4; freighters above CG (STF 11.8)"), line


def to_place(state: dict) -> int:
    """The Player's groups and SOSUS units not yet placed (the offer holds the next SOSUS unit only)."""
    return (sum(1 for g in state["groups"].values() if g["owner"] == "Player" and g.get("hex") is None)
            + sum(1 for u in state["units"].values() if u.get("class") == "SOSUS" and u.get("megahex") is None))


def test_stf_6_1_the_deploy_that_ends_the_deployment_is_titled_so(client):
    """STF 6.1: the deploy placing the last group or SOSUS unit ends the deployment (6.2, turn 1).
    legal-orders offered it untitled, as every other deploy; it now carries a title saying so (the
    game page's radio, 'warlog legal''s line), and the order sent with it is taken."""
    game = stf_game(client)
    accepted(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "US"})
    while state_of(client, game, "Player")["phase"] != "Deployment":
        accepted(client, game, "Player", splay.order_of(legal(client, game, "Player")[0]))
    while True:
        deploys = [o for o in legal(client, game, "Player") if o["kind"] == "deploy"]
        if to_place(state_of(client, game, "Player")) > 1:
            assert not [o for o in deploys if "title" in o], deploys
            accepted(client, game, "Player", splay.order_of(deploys[0]))
            continue
        assert deploys and all("it ends your deployment" in o["title"] for o in deploys), deploys
        break
    accepted(client, game, "Player", deploys[-1])  # with its title: a word for readers, taken
    st = state_of(client, game, "Player")
    assert (st["turn"], st["phase"]) == (1, "Random Events"), (st["turn"], st["phase"])


def test_stf_12_2_12_3_the_state_claims_no_retirement_limit_and_index_it_does_not_keep(client):
    """STF 12.2, 12.3: the retirement limit is half the 1.5 commitment, the index the net VP sunk
    plus 2 a squadron. The state read held "retirement": {"limit": null, "index": 0} from the first
    event to the last, never updated (retirement.py computes both when the Terminal phase needs
    them): a player reading 'warlog state' after sinking half the GameSystem's fleet was told the
    limit was unknown and the index 0. The state no longer claims what it does not keep."""
    from domain.rulesets.stf import retirement

    game = stf_game(client)
    accepted(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "US"})
    st = state_of(client, game, "Player")
    assert retirement.limit(st) == st["campaign"]["commitment_table"]["system"] / 2
    told = st.get("retirement") or {}
    assert told.get("limit", retirement.limit(st)) == retirement.limit(st), told
    assert told.get("index", retirement.index(st)) == retirement.index(st), told


def test_stf_11_2_the_combat_question_says_what_its_answers_mean(client):
    """STF 11.2-11.6: each wave, gunnery round and torpedo attack asks which unit the base game's
    result sank; its answers are {"sunk": <unit>}, {"sunk": null} and {"ended": true}. The question
    said only "which unit did it sink?", and a player choosing among the answers could not tell
    what {"ended": true} did (docs/rulesets.md alone said it: the base game ended the combat). The
    question now says, before its rule."""
    from tests.api.test_examiner_stf_api import _combat_question

    game, st = _combat_question(client)
    prompt = st["pending"][0]["prompt"]
    assert prompt.endswith('which unit did it sink? ({"sunk": null}: none; {"ended": true}: the base game ended '
                           'the combat) (STF 11.2)'), prompt
    offer = legal(client, game, "Player")
    assert {"sunk": None} in [o["choice"] for o in offer] and {"ended": True} in [o["choice"] for o in offer], offer
