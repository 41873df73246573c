"""The command line as a new player met it (the new user's round 12): ``legal`` offers a take-back
only when the seat has an order to take back, and offers it too when the seat has nothing to
order. Against a live server (the fixtures of test_client)."""

from __future__ import annotations

from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)
from tests.api.test_cli_play import falklands_game, uk_passes_until_the_ar_moves


def test_fs_5_1_legal_offers_a_take_back_only_to_the_seat_whose_order_is_the_last(server, alice, bob):
    """FS 5.1: a player takes back only his own last order. The first 'warlog legal' of a game
    offered the take-back ("or ask to take back your last order: warlog take-back …") to a seat that
    had ordered nothing, and the server refused it as printed ("a player may take back only his own
    last order"); after the UK's order, the AR was offered it too."""
    game_id = falklands_game(server, alice, bob)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "setup" in out and f"warlog concede {game_id}" in out, out
    assert "take-back" not in out and "take back" not in out, out  # nothing ordered yet
    assert alice.json("legal", game_id)["take_back"] is False

    assert alice("order", game_id, "setup", "--set",
                 'submarines={"spartan": "sa6", "splendid": "falklands"}')[0] == 0
    code, out, err = alice("legal", game_id)  # the UK's first operation; the set-up is its last order
    assert code == 0, err
    assert f"or ask to take back your last order: warlog take-back {game_id} --reason TEXT" in out, out
    assert alice.json("legal", game_id)["take_back"] is True

    code, out, err = bob("legal", game_id)  # the AR ordered nothing: no take-back for it
    assert code == 0, err
    assert "AR has no legal order now (to move: UK)" in out and "take-back" not in out, out
    assert bob.json("legal", game_id)["take_back"] is False


def test_fs_5_1_legal_offers_the_take_back_to_a_seat_with_nothing_to_order(server, alice, bob):
    """After his order a player may still take it back while the opponent is to move (FS 5.1:
    before anything else is ordered); 'legal' said only "has no legal order now" and hid it."""
    game_id = falklands_game(server, alice, bob)
    assert alice("order", game_id, "setup", "--set",
                 'submarines={"spartan": "sa6", "splendid": "falklands"}')[0] == 0
    uk_passes_until_the_ar_moves(alice, game_id)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "UK has no legal order now (to move: AR)" in out, out
    assert f"ask to take back your last order: warlog take-back {game_id} --reason TEXT" in out, out
    assert alice("take-back", game_id, "--reason", "meant to move")[0] == 0  # as offered


def test_fs_4_1_show_says_which_side_the_signed_vp_favours(server, alice, bob):
    """FS 4.1: one signed VP track, the AR's VP positive and the UK's negative; FS 4.6: zero or
    less wins the competitive game for the UK. 'warlog show' printed "VP: 8", and a new player
    could not tell whether 8 was good for him."""
    game_id = falklands_game(server, alice, bob)
    code, out, err = bob("show", game_id)
    assert code == 0, err
    assert "VP: 8 (positive favours the AR, zero or negative the UK: FS 4.1, 4.6)" in out, out
    assert bob.json("show", game_id)["vp"] == {"VP": 8}  # the summary itself is as it was
    code, out, err = bob("state", game_id)
    assert code == 0 and "VP: 8 (positive favours the AR" in out, out


def test_show_adds_no_note_to_vp_per_side(server, alice, bob):
    game_id = started_game(server, alice, bob, vp_track=True)
    code, out, err = alice("show", game_id)
    assert code == 0, err
    assert "VP: Blue 0, Red 0\n" in out, out


def stf_game_after_its_campaign(server, alice) -> str:
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
    return game_id


def test_stf_1_the_dice_and_the_state_of_turn_0_are_read_as_they_are_printed(server, alice):
    """STF's campaign (STF 1.1-4.1) is turn 0: 'warlog dice' printed its rolls "(turn 0, epoch 0)",
    and 'warlog dice --turn 0' and 'warlog state --turn 0' were refused ("turn: Must be greater
    than or equal to 1")."""
    game_id = stf_game_after_its_campaign(server, alice)
    code, out, err = alice("dice", game_id, "--turn", "0")
    assert code == 0, err
    assert "for the mission" in out and "(turn 0, epoch 0)" in out, out
    code, out, err = alice("state", game_id, "--turn", "0")
    assert code == 0, err
    assert "turn 0, Campaign phase" in out, out


def test_dice_for_a_seat_the_game_has_not_names_its_seats(server, alice):
    """'warlog dice --seat GameSystem' (the name the narration uses) or '--seat player' answered
    "no dice rolled that match", as if the seat had rolled nothing; the server now refuses a seat
    the game has not, naming those it has."""
    game_id = stf_game_after_its_campaign(server, alice)
    for typed in ("GameSystem", "player"):
        code, out, err = alice("dice", game_id, "--seat", typed)
        assert code == 1, out
        assert f"no seat {typed!r} in this game: its seats are Player, system" in err, err
    code, out, err = alice("dice", game_id, "--seat", "system")
    assert code == 0 and "for the mission" in out, err


def test_fs_7_1_every_command_line_legal_prints_for_the_ar_is_recorded_as_printed(server, alice, bob):
    """FS 7.1 Op #22 and Op #24 move units from one area. 'warlog legal' printed the first origin
    with the first unit of all and the first destination of all ('--set origin=fox_bay --set
    units=["armd_10"] --set destination=fitzroy'), and the server refused it as printed ("10th
    Armored Reconnaissance Squadron is not in Fox Bay"). Every line the AR is offered at its first
    operation is now sent as printed, and taken back."""
    from tests.api.test_cli_play import commands

    game_id = falklands_game(server, alice, bob)
    assert alice("order", game_id, "setup", "--set",
                 'submarines={"spartan": "sa6", "splendid": "falklands"}')[0] == 0

    def each_line_as_printed(player, opponent, must: set) -> None:
        code, out, err = player("legal", game_id)
        lines = [argv for argv in commands(out, game_id) if argv[2] == "operation"
                 and not any(a.partition("=")[2].isupper() for a in argv)]  # a placeholder (MOVES) is to edit
        assert must <= {a for argv in lines for a in argv}, out
        for argv in lines:
            code, said, err = player(*argv)
            assert code == 0, (argv, err)
            assert player("take-back", game_id, "--reason", "only trying")[0] == 0
            assert opponent("answer-take-back", game_id, "--accept")[0] == 0

    each_line_as_printed(alice, bob, {"op=20"})
    uk_passes_until_the_ar_moves(alice, game_id)
    each_line_as_printed(bob, alice, {"op=3", "op=20", "op=22", "op=24"})


def test_stf_legal_names_each_order_s_rule_and_says_what_it_does(server, alice):
    """STF's templates of draw_carriers, buy, deploy, report… carry no rule: 'warlog legal' headed
    them with the bare kind ("report", then "sunk: []"), and a new player could not tell what a
    report was. The head now takes the rule and the one-line help of the ruleset's order kinds
    ('warlog kinds stf' has them), as every refusal names its rule."""
    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "\ncampaign (STF 1.1) — generate the campaign: the map (or random: 1D3) and your side" in "\n" + out, out
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
    code, out, err = alice("legal", game_id)  # a commitment without carriers draws none (STF 1.7): buy
    assert out.startswith(("draw_carriers (STF 1.7) — draw your commitment's carriers at random",
                           "buy (STF 1.5) — buy the rest of your force within the commitment limit")), out


def test_fs_8_1_a_side_that_moves_no_submarine_is_told_how(server, alice, bob):
    """FS 8.1: in its Submarine Movement Phase a side may move none of its submarines. 'legal'
    offered only "submarines — move your submarines" with every boat to Sea Area 1, and 'pass' was
    refused with "operations are chosen in your Operations Phase, not the UK Submarine phase",
    which does not say how to move none."""
    game_id = falklands_game(server, alice, bob)
    assert alice("order", game_id, "setup", "--set",
                 'submarines={"spartan": "sa6", "splendid": "falklands"}')[0] == 0
    for _ in range(6):  # both sides pass their Operations Phases until the UK Submarine phase
        summary = alice.json("show", game_id)
        if summary["phase"] == "UK Submarine":
            break
        assert (alice if "UK" in summary["whose_move"] else bob)("order", game_id, "pass")[0] == 0
    code, out, err = alice("legal", game_id)
    assert out.startswith("submarines (FS 8.1) — move none, one, some or all of your submarines"), out
    code, out, err = alice("order", game_id, "pass")
    assert code == 1
    assert ("no pass in your Submarine Phase: to move no submarine, order 'submarines' with no moves "
            "[FS 8.1]") in err, err
    code, out, err = alice("order", game_id, "submarines")
    assert code == 0, err
    assert "moved" not in out and alice.json("show", game_id)["phase"] == "AR Submarine", out


def test_new_tells_the_one_player_of_a_solitaire_game_how_to_take_its_seat(server, alice):
    """STF has one seat. 'warlog new stf' said "each player joins from their own machine with:
    warlog join GAME INVITE …", and the player who ran it, on the machine that saved the invite,
    tried 'warlog join GAME --handle NAME', which is refused for want of the invite."""
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert f"one seat, Player: take it here with: warlog join {game_id} --as Player --handle NAME" in out, out
    assert "each player" not in out, out
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0  # as printed


def test_new_still_tells_each_player_of_a_two_seat_game_to_join_from_their_machine(server, alice):
    code, out, err = alice("new", "falklands", "--server", server.url)
    assert code == 0, err
    assert "each player joins from their own machine with: warlog join" in out, out
