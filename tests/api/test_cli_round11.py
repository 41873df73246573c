"""The command line as a new player met it (the new user's round 11): a seat asked to take an
order back is told by ``legal`` how to answer it, the seat that asked that it waits for the
answer, a game without take-backs offers none, a join without an invite names the seats whose
invites are saved here, and a mistyped command is answered with the command meant. Against a
live server (the fixtures of test_client) where one is needed."""

from __future__ import annotations

import pytest

from api import cli
from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def test_legal_tells_the_seat_asked_for_a_take_back_how_to_answer_it_and_the_asker_that_it_waits(server, alice, bob):
    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "note", "--set", "text=dig in")[0] == 0
    assert alice("take-back", game_id, "--reason", "wrong ridge")[0] == 0

    code, out, err = bob("legal", game_id)
    assert code == 0, err
    assert "Blue asks to take back its last order: wrong ridge" in out, out
    assert f"warlog answer-take-back {game_id} --accept" in out and "--decline" in out, out
    assert "no legal order" not in out, out

    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "waits for Red's answer to its take-back" in out, out

    assert bob("answer-take-back", game_id, "--decline")[0] == 0
    code, out, err = bob("legal", game_id)  # answered: nothing waits for Red any more
    assert code == 0 and "answer-take-back" not in out, out


def test_legal_offers_no_take_back_in_a_game_that_allows_none(server, alice):
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "campaign" in out and f"warlog concede {game_id}" in out
    assert "take-back" not in out and "take back" not in out, out  # STF has no take-backs (docs/rulesets.md)


def test_join_without_an_invite_names_the_seats_saved_here(server, alice):
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    code, out, err = alice("join", game_id, "--handle", "carol")
    assert code == 2
    assert "--as Player" in err, err


@pytest.mark.parametrize("typed, meant", [("ordr", "order"), ("take_back", "take-back"), ("leagl", "legal")])
def test_a_mistyped_command_names_the_command_meant_in_one_line(capsys, typed, meant):
    """argparse answered 'warlog ordr' with the usage of every command and the list of all 47, in
    four long lines; the player looked for the one meant. One line now names it."""
    with pytest.raises(SystemExit) as exited:
        cli.main([typed, "2886fa44"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == f"warlog: no command '{typed}'; did you mean '{meant}'? ('warlog --help' lists them)\n", err


def test_a_command_like_none_is_told_where_the_list_is(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["xyzzy"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == "warlog: no command 'xyzzy' ('warlog --help' lists them)\n"


def test_fs_7_1_op_18_the_command_line_legal_prints_records_the_attack(server, alice, bob):
    """FS 7.1 Op #18 attacks with aircraft and/or carriers, at least one. Both fields were optional,
    so the AR's ready-to-edit line was 'operation --set op=18 --set area=sa4', which the server
    refused ("name the aircraft and/or carriers that attack"), and the carriers it could not name
    read "a list of any of ; optional". The line now names the first aircraft of the first area."""
    from tests.api.test_cli_play import commands, falklands_game, uk_passes_until_the_ar_moves

    game_id = falklands_game(server, alice, bob)
    code, out, err = alice("legal", game_id)
    assert alice(*commands(out, game_id)[0])[0] == 0  # the set-up as printed
    uk_passes_until_the_ar_moves(alice, game_id)
    code, out, err = bob("legal", game_id)
    assert code == 0, err
    assert "a list of any of ;" not in out and "carriers: none now" in out, out
    (line,) = [argv for argv in commands(out, game_id) if "op=18" in argv]
    code, out, err = bob(*line)
    assert code == 0, (line, err)
    assert "Air-to-Sea Attack" in out


def test_stf_the_command_lines_legal_prints_send_the_whole_order_offered(server, alice):
    """STF's legal orders are whole orders (a purchase, its task forces, a path). ``legal`` left out
    every value that is a list or an object, so STF 1.5's purchase printed 'buy --set sosus=0',
    which the server refused ("1 carrier(s) need 3 ASW ships of frigate level or higher; the
    purchase has 0"), and never said which units it offered. Each line now sends the order as
    offered, and prints its values."""
    from tests.api.test_cli_play import commands

    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    for kind in ("campaign", "draw_carriers", "buy", "form_groups"):
        code, out, err = alice("legal", game_id)
        lines = [argv for argv in commands(out, game_id) if argv[2] == kind]
        if kind == "draw_carriers" and not lines:
            continue  # a commitment without carriers draws none (STF 1.7)
        assert lines, (kind, out)
        if kind == "buy":
            assert "  units: [" in out, out
        code, said, err = alice(*lines[0])
        assert code == 0, (kind, lines[0], err)


def test_dice_says_what_unrevealed_means(server, alice, bob):
    """'warlog dice' marked a roll of the turn "[unrevealed]" and said no more; no doc uses the
    word. It now says when the roll is checked."""
    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "roll", "2d6", "--purpose", "barrage")[0] == 0
    code, out, err = alice("dice", game_id)
    assert code == 0, err
    assert "[unrevealed]" in out
    assert "unrevealed: its dice epoch's seed is revealed at the end of the turn" in out, out


def test_legal_before_every_seat_joined_says_whom_the_game_waits_for(server, alice):
    """A seat that joined first read "UK has no legal order now (to move: nobody)"; the order it
    then tried was refused "the game starts when every seat has joined; waiting for AR". legal
    says so first."""
    code, out, err = alice("new", "falklands", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "UK", "--handle", "erin")[0] == 0
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert out == "the game starts when every seat has joined: waiting for AR\n", out
