"""Two players of Falklands Showdown by mail, each at their own terminal (round 13): what they
tripped on, against a live server (the fixtures of test_client)."""

from __future__ import annotations

from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def falklands(server, alice, bob) -> str:
    """alice creates a Falklands game and takes the UK; bob takes the AR from his own machine."""
    code, out, err = alice("new", "falklands", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    ar_invite = next(line.split(": ")[1] for line in out.splitlines() if line.startswith("invite for AR: "))
    assert alice("join", game_id, "--as", "UK", "--handle", "ursula")[0] == 0
    assert bob("join", game_id, ar_invite, "--handle", "alberto", "--server", server.url)[0] == 0
    return game_id


def test_state_lists_the_sas_aboard_hermes_where_hermes_is_fs_3_3(server, alice, bob):
    """FS 3.3: the UK's SAS starts "loaded onboard the Hermes". 'warlog state' listed it among the
    units "not in play" (a unit aboard a ship has no area of its own), while 'legal' offered it for
    Op #7. It is now listed with Hermes's area, "(UK, 1 step, aboard Hermes)"."""
    game_id = falklands(server, alice, bob)
    code, out, err = bob("state", game_id)
    assert code == 0, err
    sea_area_4 = next(line for line in out.splitlines() if line.startswith("  Sea Area 4: "))
    assert "Hermes (UK, 2 steps)" in sea_area_4 and "22 SAS, D Squadron (UK, 1 step, aboard Hermes)" in sea_area_4, out
    not_in_play = next(line for line in out.splitlines() if line.startswith("  not in play: "))
    assert "22 SAS, D Squadron" not in not_in_play, out
    assert "Conqueror" in not_in_play, out  # a reinforcement (FS 3.4) is still not in play


def test_an_area_or_unit_typed_by_its_name_is_refused_with_the_id_to_type_fs_3_3_fs_7_1(server, alice, bob):
    """A player types what the rules text and 'legal' print, "Sea Area 6" or "Hermes", where the
    order takes the id. The refusal said "Spartan is placed in one of the TEZ sea areas (Falkland
    Islands Sea Area, Sea Area 6, Sea Area 7)", naming as allowed the very words refused, and "no
    area 'Falklands' on the map". It now gives the ids, and the one meant."""
    game_id = falklands(server, alice, bob)
    code, out, err = alice("order", game_id, "setup", "--set", 'submarines={"spartan": "Sea Area 6", "splendid": "sa7"}')
    assert code == 1, out
    assert ("Spartan is placed in one of the TEZ sea areas (Falkland Islands Sea Area ('falklands'), Sea Area 6 ('sa6'), "
            "Sea Area 7 ('sa7')); type its id: 'sa6' (Sea Area 6) [FS 3.3]") in err, err
    code, out, err = alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa5", "splendid": "sa7"}')
    assert code == 1 and "type its id" not in err and "Sea Area 6 ('sa6')" in err, err  # sa5 is an id, not in the TEZ
    assert alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa6", "splendid": "sa7"}')[0] == 0
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["Hermes"]',
                           "--set", "destination=falklands")
    assert code == 1 and "no unit 'Hermes' in this game; type its id: 'hermes' (Hermes) [FS 7.1 Op #20]" in err, err
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes"]',
                           "--set", "destination=Falklands")
    assert code == 1, out
    assert "no area 'Falklands' on the map; type its id: 'falklands' (Falkland Islands Sea Area) [FS 7.1 Op #20]" in err
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes"]',
                           "--set", "destination=Narnia")
    assert code == 1 and "no area 'Narnia' on the map [FS 7.1 Op #20]" in err, err
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes"]',
                           "--set", "destination=pebble")  # half a name: the one it starts
    assert code == 1 and "no area 'pebble' on the map; did you mean 'pebble_island' (Pebble Island)?" in err, err
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes"]',
                           "--set", "destination=sa 6")  # a slip of the keys
    assert code == 1 and "no area 'sa 6' on the map; did you mean 'sa6' (Sea Area 6)?" in err, err
    code, out, err = alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes"]',
                           "--set", "destination=sa")  # starts seven areas and San Carlos: none is meant
    assert code == 1 and err.rstrip().endswith("no area 'sa' on the map [FS 7.1 Op #20]"), err


def test_an_a4_out_of_range_is_refused_with_the_refuel_field_to_name_fs_9_4(server, alice, bob):
    """FS 9.4: "up to four Argentina-based A-4 units may be designated as using aerial refueling,
    and they can thereby extend their range to include the Falkland Islands Sea Area". An air
    strike on the fleet there with A-4s not named in 'refuel' was refused "A-4 Skyhawk 1 cannot
    reach Falkland Islands Sea Area from Argentina": no word of what would let it. The refusal now
    names the field; a Dagger (range line) or an A-4 already refuelled gets no such hint."""
    game_id = falklands(server, alice, bob)
    assert alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa6", "splendid": "sa7"}')[0] == 0
    assert alice("order", game_id, "operation", "--set", "op=20", "--set", 'units=["hermes", "invincible"]',
                 "--set", "destination=falklands")[0] == 0
    assert alice("order", game_id, "pass")[0] == 0
    code, out, err = bob("order", game_id, "operation", "--set", "op=18", "--set", "area=falklands",
                         "--set", 'aircraft=["dagger_1", "a4_1"]')
    assert code == 1, out
    assert err.rstrip().endswith("A-4 Skyhawk 1 cannot reach Falkland Islands Sea Area from Argentina without "
                                 "aerial refuelling: name it in 'refuel' too (up to four A-4s an operation) [FS 9.4]"), err
    code, out, err = bob("order", game_id, "operation", "--set", "op=3", "--set", "origin=argentina",
                         "--set", 'aircraft=["a4_2"]', "--set", "destination=port_stanley")
    assert code == 1 and "name it in 'refuel' too" in err and "[FS 9.4]" in err, err


def test_a_field_op_1_has_not_is_refused_listing_its_fields_without_op_10s_fs_7_1_op_1(server, alice, bob):
    """FS 7.1 Op #1 moves "up to two ground units from Argentina to Port Stanley airfield": an
    AR player who added a destination was told "its fields: op, units, with_op_10", offering the
    UK's Op #10 (a UK attack's rider) to the AR's airlift. The list now names Op #1's own fields;
    'with_op_10' is still refused under Op #10 where it rides on nothing."""
    game_id = falklands(server, alice, bob)
    assert alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa6", "splendid": "sa7"}')[0] == 0
    assert alice("order", game_id, "pass")[0] == 0 and alice("order", game_id, "pass")[0] == 0
    code, out, err = bob("order", game_id, "operation", "--set", "op=1", "--set", 'units=["ri_3"]',
                         "--set", "destination=port_stanley")
    assert code == 1, out
    assert "'destination' is not a field of Op #1 (its fields: op, units) [FS 7.1 Op #1]" in err, err
    code, out, err = bob("order", game_id, "operation", "--set", "op=1", "--set", 'units=["ri_3"]',
                         "--set", "with_op_10=true")
    assert code == 1 and err.rstrip().endswith("[FS 7.1 Op #10]"), err


def test_op_2_refused_for_the_texts_abbreviation_gives_the_ids_fs_7_1_op_2(server, alice, bob):
    """FS 7.1 Op #2: "one of the following units: 3M or 2 or SF Anf". An AR player who typed the
    text's '3M' was told "the units to mobilize are 3rd Marine Battalion, 2nd Infantry Regiment,
    Amphibious Commandos": names, where the order takes an id. The refusal now gives each id."""
    game_id = falklands(server, alice, bob)
    assert alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa6", "splendid": "sa7"}')[0] == 0
    assert alice("order", game_id, "pass")[0] == 0 and alice("order", game_id, "pass")[0] == 0
    code, out, err = bob("order", game_id, "operation", "--set", "op=2", "--set", "unit=3M")
    assert code == 1, out
    assert ("the units to mobilize are 3rd Marine Battalion ('bim_3'), 2nd Infantry Regiment ('ri_2'), "
            "Amphibious Commandos ('sf_anf') [FS 7.1 Op #2]") in err, err
    code, out, err = bob("order", game_id, "operation", "--set", "op=2", "--set", "unit=Amphibious Commandos")
    assert code == 1 and "type its id: 'sf_anf' (Amphibious Commandos) [FS 7.1 Op #2]" in err, err


def test_dice_marks_a_roll_rolled_again_with_the_roll_that_counts_ff_3_fs_11_3_4_1(server, alice, bob):
    """FS 11.3 4-1 "make/allow the rolling player to roll that die again" (and FF 3's re-roll): an
    umpire reading 'warlog dice' saw the first die as it fell ("#268 … rolled 4, needed ≤ 5: hit")
    with nothing on its line to say it no longer counts; only the re-roll, further down, said
    "re-roll of #268". The replaced roll now says "[rolled again: #N counts, …]"."""
    game_id = started_game(server, alice, bob)
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "scouting")
    assert code == 0, err
    first = int(next(line for line in out.splitlines() if "rolled" in line).split()[0].lstrip("#"))
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "scouting again", "--replaces", str(first))
    assert code == 0, err
    again = int(next(line for line in out.splitlines() if "rolled" in line).split()[0].lstrip("#"))
    code, out, err = bob("dice", game_id)
    assert code == 0, err
    lines = {int(line.split()[0].lstrip("#")): line for line in out.splitlines() if line.startswith("#")}
    assert f"[rolled again: #{again} counts, unrevealed]" in lines[first], out
    assert "rolled again" not in lines[again], out


def test_state_says_an_area_both_sides_stand_in_is_contested_fs_3_6(server, alice, bob, monkeypatch):
    """FS 3.6: "A land area is contested if both sides simultaneously have one or more ground
    units in it." After the UK's Op #24 attack into Port Stanley left units of both sides there,
    'warlog state' still printed "control: AR Port Stanley, …" (the game's control map keeps the
    side that held it last). A land area both sides stand in is now listed as contested. The
    position is the server's own, with the SAS put ashore in Port Stanley (reaching it takes dice)."""
    from api.client import WarlogClient

    game_id = falklands(server, alice, bob)
    code, out, err = bob("state", game_id)
    control = next(line for line in out.splitlines() if line.startswith("control: "))
    assert control.startswith("control: AR Port Stanley, ") and "contested" not in control, out
    real = WarlogClient.state

    def sas_ashore(self, *args, **kwargs):
        body = real(self, *args, **kwargs)
        body["state"]["units"]["sas_d"].update(location="port_stanley", aboard=None)
        return body

    monkeypatch.setattr(WarlogClient, "state", sas_ashore)
    code, out, err = bob("state", game_id)
    assert code == 0, err
    control = next(line for line in out.splitlines() if line.startswith("control: "))
    assert control.startswith("control: contested Port Stanley; AR Mount Kent, "), out
    assert "AR Port Stanley" not in control, out


def test_history_reads_one_turn_of_a_long_game(server, alice, bob):
    """A whole Falklands game printed by 'warlog history' ran to 1,515 lines (26 turns), with no
    way to read the turn a mail is about. '--turn N' (repeatable) prints those turns alone; a turn
    the game has not reached is said so."""
    game_id = falklands(server, alice, bob)
    assert alice("order", game_id, "setup", "--set", 'submarines={"spartan": "sa6", "splendid": "sa7"}')[0] == 0
    code, out, err = bob("history", game_id, "--turn", "1")
    assert code == 0, err
    assert out.splitlines()[0] == "Turn 1" and "Spartan moved to Sea Area 6" in out, out
    assert [line for line in out.splitlines() if line.startswith("Turn ")] == ["Turn 1"], out
    code, out, err = bob("history", game_id, "--turn", "7")
    assert code == 0 and out.strip() == "no turn 7 in this game yet", out
    assert [t["turn"] for t in bob.json("history", game_id, "--turn", "1", "--turn", "7")["turns"]] == [1]
