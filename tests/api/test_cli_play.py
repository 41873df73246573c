"""Playing from the command line in the game's own words (issue 29, items 14 and 15): ``legal``
prints every field with its choices and a command line that records the order as printed, for
every kind of order of both rulesets; ``state`` lists the units by area; the log names units and
areas as the game does. Against a live server (the fixtures of test_client)."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def commands(out: str, game_id: str) -> list[list[str]]:
    """The ready-to-edit command lines ``legal`` printed, as argv (without 'warlog')."""
    return [shlex.split(line.strip())[1:] for line in out.splitlines()
            if line.strip().startswith(f"warlog order {game_id} ")]


def falklands_game(server, alice, bob) -> str:
    code, out, err = alice("new", "falklands", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["UK"], "--handle", "alice")[0] == 0
    assert bob("join", game_id, invites["AR"], "--handle", "bob", "--server", server.url)[0] == 0
    return game_id


def uk_passes_until_the_ar_moves(alice, game_id: str) -> None:
    """The UK (alice) passes until the AR is to move (1-1 is in effect at the start: FS 5.4)."""
    for _ in range(4):
        if "AR" in alice.json("show", game_id)["whose_move"]:
            return
        assert alice("order", game_id, "pass")[0] == 0


def test_freeform_legal_prints_fields_and_command_lines_that_record_each_kind(server, alice, bob):
    game_id = started_game(server, alice, bob, vp_track=True)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "  dice: NdS | dS | d66" in out and "  winner: one of Blue | Red | null" in out
    assert "take-back" not in out and f"warlog concede {game_id}" in out  # no order of Blue's to take back yet
    lines = {argv[2]: argv for argv in commands(out, game_id)}
    assert set(lines) == {"note", "roll", "vp", "advance", "end"}
    assert lines["roll"] == ["order", game_id, "roll", "--set", "dice=DICE", "--set", "purpose=PURPOSE"]
    edits = {"TEXT": "dig in", "DICE": "2d6", "PURPOSE": "barrage", "DELTA": "2", "REASON": "held the ridge"}
    for kind in ("note", "roll", "vp", "advance", "end"):  # each as printed, its placeholders filled in
        argv = [a.replace(a.partition("=")[2], edits.get(a.partition("=")[2], a.partition("=")[2])) for a in lines[kind]]
        code, out, err = alice(*argv)
        assert code == 0, (kind, err)
        assert "recorded" in out
        if kind == "note":  # now Blue's last order: it may ask to take it back (FF 6)
            assert f"warlog take-back {game_id}" in alice("legal", game_id)[1]
    code, out, err = alice("legal", game_id)  # after the end: no order, no take-back, no concession
    assert code == 0 and out.startswith("the game has ended: Blue wins")
    assert "take-back" not in out and "concede" not in out


def test_order_takes_every_field_of_a_freeform_kind_as_set(server, alice, bob):
    game_id = started_game(server, alice, bob, vp_track=True)
    code, out, err = alice("order", game_id, "roll", "--set", "dice=3d6", "--set", "purpose=volley")
    assert code == 0 and "Blue rolled 3d6 for volley" in out, err
    code, out, err = alice("order", game_id, "vp", "--set", "side=Red", "--set", "delta=-1", "--set", "reason=lost")
    assert code == 0 and "VP -1 Red for lost" in out, err
    code, out, err = alice("order", game_id, "note", "--set", "text=quiet")
    assert code == 0 and "Blue orders note: quiet" in out, err


def test_falklands_legal_offers_every_kind_with_names_and_its_command_line_records_it(server, alice, bob):
    game_id = falklands_game(server, alice, bob)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert out.startswith("setup (FS 3.3) — the UK places Spartan and Splendid in the TEZ\n  submarines: JSON {id: choice}: Spartan (spartan): one of ")
    (setup,) = commands(out, game_id)
    assert setup[:3] == ["order", game_id, "setup"]
    kinds = [_run(alice, setup)]

    # UK: Op #20 takes the fleet from Sea Area 4 to the Falklands; AR: Op #18 strikes it, and the
    # UK owes a decision (interception or defensive fire), offered with its answers.
    code, out, err = alice("legal", game_id)
    assert "operation Op #20: " in out and "Sea Area 4 (sa4)" in out and "Hermes (hermes)" in out
    state = alice.json("state", game_id)["state"]
    fleet = [u for u, x in state["units"].items() if x["location"] == "sa4" and x["in_play"] and x["side"] == "UK"]
    kinds.append(_run(alice, ["order", game_id, "operation", "--set", "op=20", "--set", f"units={json.dumps(fleet)}",
                              "--set", "destination=falklands"]))
    kinds.append(_run(alice, _first(alice, game_id, "pass")))
    a4s = [u for u in state["units"] if u.startswith("a4_")]
    kinds.append(_run(bob, ["order", game_id, "operation", "--set", "op=18", "--set", "area=falklands",
                            "--set", f"aircraft={json.dumps(a4s)}", "--set", f"refuel={json.dumps(a4s)}"]))
    code, out, err = alice("legal", game_id)
    assert out.startswith("decide (FS ") and "  choice: one of {" in out, out
    code, state_out, err = bob("state", game_id)
    assert "waiting for UK: UK: " in state_out and f"its answers: warlog legal {game_id}" in state_out
    assert "pending:" not in state_out and '"context"' not in state_out
    kinds.append(_run(alice, _first(alice, game_id, "decide")))
    for _ in range(12):  # passes until the submarine phase, then its order as printed
        for player in (alice, bob):
            code, out, err = player("legal", game_id)
            found = {argv[2]: argv for argv in commands(out, game_id)}
            for kind in ("submarines", "decide", "pass"):
                if kind in found:
                    kinds.append(_run(player, found[kind]))
                    break
        if "submarines" in kinds:
            break
    assert {"setup", "operation", "pass", "decide", "submarines"} <= set(kinds), kinds


def _first(player, game_id: str, kind: str) -> list[str]:
    code, out, err = player("legal", game_id)
    found = [argv for argv in commands(out, game_id) if argv[2] == kind]
    assert found, out
    return found[0]


def _run(player, argv: list[str]) -> str:
    code, out, err = player(*argv)
    assert code == 0, (argv, err)
    return argv[2]


def test_falklands_state_lists_units_by_area_and_the_log_speaks_names(server, alice, bob):
    game_id = falklands_game(server, alice, bob)
    _run(alice, _first(alice, game_id, "setup"))
    code, out, err = alice("state", game_id)
    assert code == 0, err
    lines = out.splitlines()
    assert "units (97):" in lines
    assert any(line.startswith("  Argentina: 25 de Mayo (AR, 1 step)") for line in lines), out
    assert any(line.startswith("  Sea Area 4: ") and "Hermes (UK" in line for line in lines), out
    assert all(len(line) < 2000 for line in lines) and '"25_de_mayo"' not in out
    code, out, err = alice("history", game_id)
    # Numbered by seq, after the joins with their keys, the epoch, the order and its signature.
    assert code == 0 and re.search(r"\n +#\d+ Spartan moved to Falkland Islands Sea Area\n", out), out
    assert "spartan" not in out and "falklands (standard)" in out


def test_legal_prints_a_draws_winner_as_null_which_set_takes_back_ff5(server, alice, bob):
    """FF 5: the winner of an end is a side or null (a draw); legal prints the choice as the
    JSON that ``--set winner=...`` reads, so the printed word can be pasted back."""
    game_id = started_game(server, alice, bob)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert "  winner: one of Blue | Red | null" in out, out
    printed = out.split("  winner: one of ")[1].splitlines()[0].split(" | ")[-1]
    code, out, err = alice("order", game_id, "end", "--set", f"winner={printed}", "--set", "reason=mutual exhaustion")
    assert code == 0, err
    code, out, err = alice("show", game_id)
    assert "ended: a draw" in out, out


def test_show_and_state_print_falklands_one_vp_track_as_its_number_fs41(server, alice, bob):
    """FS 4.1: Falklands keeps one signed VP track (key "VP"); show and state print its value
    ("VP: 8", then which side they favour: test_cli_round12), not the key before it ("VP: VP 8"),
    while freeform's per-side VP keep their sides."""
    game_id = falklands_game(server, alice, bob)
    vp = alice.json("show", game_id)["vp"]
    assert list(vp) == ["VP"], vp
    for command in ("show", "state"):
        code, out, err = alice(command, game_id)
        assert code == 0, err
        assert f"\nVP: {vp['VP']} (positive favours the AR" in out, out
        assert "VP: VP" not in out



def _ordered_and_taken_back(server, alice, bob) -> str:
    """Blue rolls, notes and rolls again, asks to take the last roll back, and Red accepts."""
    game_id = started_game(server, alice, bob)
    for argv in (["roll", "--set", "dice=2d6", "--set", "purpose=barrage"], ["note", "--set", "text=dig in"],
                 ["roll", "--set", "dice=1d6", "--set", "purpose=assault"]):
        assert alice("order", game_id, *argv)[0] == 0
    assert alice("take-back", game_id, "--reason", "wrong unit")[0] == 0
    assert bob("answer-take-back", game_id, "--accept")[0] == 0
    return game_id


def test_history_heads_a_run_of_one_seats_commands_once(server, alice, bob):
    """Back-to-back commands of one seat (joined, keyed; three orders and a take-back) sit under
    one heading; each order's lines under its id."""
    game_id = _ordered_and_taken_back(server, alice, bob)
    code, out, err = alice("history", game_id)
    assert code == 0, err
    headings = [line.strip() for line in out.splitlines() if line.startswith("    ") and not line.startswith("      ")]
    assert headings == ["the game", "Blue", "Red", "Blue", "Red"], out
    orders = alice.json("history", game_id)["turns"][0]["phases"][0]["operations"]
    for op in (o for o in orders if o["order_id"]):
        assert f"\n      order {op['order_id']}\n        #{op['lines'][0]['seq']} " in out, out


def test_history_marks_what_a_take_back_replaced_as_dice_does(server, alice, bob):
    """The events of a taken-back order are marked [superseded], as ``dice`` marks its roll
    (both from TakeBackAccepted's span); the orders before it are not."""
    game_id = _ordered_and_taken_back(server, alice, bob)
    code, out, err = alice("history", game_id)
    assert code == 0, err
    marked = [line for line in out.splitlines() if line.endswith(" [superseded]")]
    assert any("Blue orders roll: assault" in line for line in marked), out
    assert not any("barrage" in line or "dig in" in line for line in marked), out
    code, dice_out, err = alice("dice", game_id)
    assert "assault" in next(line for line in dice_out.splitlines() if "superseded" in line)


def _help(capsys, *argv: str) -> str:
    from api.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal's width


def test_the_top_level_help_names_every_client_command(capsys):
    """``warlog --help``'s list of the client commands names each one the parser has."""
    from api.cli import build_parser

    text = _help(capsys)
    listed = text.split("Client commands (")[1].split(") talk to")[0]
    client = [name for name, p in build_parser()._subparsers._group_actions[0].choices.items()
              if p.get_default("client")]
    assert client and [name for name in client if name not in re.split(r",\s*|\s+", listed)] == []


def test_games_help_says_what_it_lists(capsys):
    text = _help(capsys, "games")
    assert "public games" in text and "--token" in text and "saved in the config file" in text
    assert "sandboxes" in text


def test_the_seat_a_command_uses_without_as_is_the_one_last_joined_here(capsys):
    """Without --as a command uses the seat this machine last joined the game as (Session.token:
    the config's "token"; the signing key of its "seat"); --token / WARLOG_TOKEN come before."""
    for command in ("order", "legal", "take-back", "concede"):
        text = _help(capsys, command, "GAME")
        assert "without --as: the seat this machine last joined the game as" in text, (command, text)


def test_the_readmes_show_seq_shows_the_sealed_roll_of_that_seq_ff9(server, alice, bob):
    """README: ``warlog order GAME_ID show SEQ``, SEQ the # of the sealed roll in its order's answer."""
    game_id = started_game(server, alice, bob)
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "scouting", "--sealed")
    assert code == 0, err
    seq = re.search(r"#(\d+) Sealed: Blue rolled 2d6 for scouting", out).group(1)
    code, out, err = alice("order", game_id, "show", seq)
    assert code == 0 and f"Blue shows sealed roll #{seq}" in out, err


@pytest.mark.parametrize("argv, want", [
    (["order", "GAME", "--as", "Blue", "roll", "2d6", "--purpose", "fire"],
     {"game_id": "GAME", "kind": "roll", "words": ["2d6"], "as_seat": "Blue", "purpose": "fire"}),
    (["order", "GAME", "--purpose", "fire", "roll", "2d6"], {"kind": "roll", "words": ["2d6"], "purpose": "fire"}),
    (["order", "GAME", "--as", "Blue", "vp", "Blue", "-2", "--reason", "lost"],
     {"kind": "vp", "words": ["Blue", "-2"], "reason": "lost"}),
    (["join", "GAME", "--handle", "bob", "wli_code"], {"game_id": "GAME", "invite": "wli_code", "handle": "bob"}),
    (["seal", "GAME", "--as", "Blue", '{"kind": "advance"}'], {"orders": ['{"kind": "advance"}'], "as_seat": "Blue"}),
    (["webhook", "GAME", "--format", "discord", "https://example.org/hook"],
     {"url": "https://example.org/hook", "format": "discord"}),
])
def test_options_may_stand_between_a_commands_words(argv, want):
    """README: "later commands pick the seat's token (and signing key) with --as SEAT". Written where
    a player writes it, `warlog order GAME --as Blue roll 2d6` stopped with "unrecognized arguments:
    roll 2d6": argparse had given the optional words their empty values at GAME already."""
    from api.cli import build_parser

    args = vars(build_parser().parse_args(argv))
    assert {key: args.get(key) for key in want} == want


def test_games_follows_every_page_of_the_list(serve_stub, capsys):
    """`warlog games` lists every game, not the first page's: it sends each next_after back as
    after until the list says there is no more (docs/api.md, "Lists that grow come in pages")."""
    from urllib.parse import parse_qs

    from api.cli import main

    def game(n: int) -> dict:
        return {"game_id": f"0f0f0f0f-0000-4000-8000-00000000000{n}", "ruleset": "freeform", "status": "active",
                "seats": [], "whose_move": [], "version": n}

    pages = {None: ([game(1), game(2)], "c2"), "c2": ([game(3)], "c3"), "c3": ([game(4)], None)}
    asked = []

    def stub(environ, start_response):
        after = parse_qs(environ["QUERY_STRING"]).get("after", [None])[0]
        asked.append(after)
        games, nxt = pages[after]
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"games": games, "next_after": nxt}).encode()]

    assert main(["games", "--server", serve_stub(stub), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert asked == [None, "c2", "c3", None]  # the first page again, for a game that moved up meanwhile
    assert [g["version"] for g in listed["games"]] == [1, 2, 3, 4] and listed["next_after"] is None


@pytest.mark.parametrize("raw, want", [("sides=Blue", ["Blue"]), ("sides=Blue,Red", ["Blue", "Red"]),
                                       ("phases=Move", ["Move"]), ("last_turn=6", 6),
                                       ("sides=[\"Blue\"]", ["Blue"]), ("vp_track=false", False)])
def test_an_options_value_not_json_is_a_comma_list_even_of_one_name_ff1(raw, want):
    """`warlog new --help`: "VALUE is read as JSON when it parses, as a comma list otherwise".
    `--option sides=Blue` was sent as the text "Blue", and FF 1 refused it ("a list of 1 to 8
    names") with nothing to say that the one name had not been read as a list."""
    from api.cli import build_parser, _pairs

    args = build_parser().parse_args(["new", "freeform", "--option", raw])
    key = raw.partition("=")[0]
    assert _pairs(args.option, "--option") == {key: want}


@pytest.mark.parametrize("command, optional", [("order", "words"), ("seal", "ORDER")])
def test_a_command_without_its_words_names_only_what_is_required(command, optional, capsys):
    """`warlog order` with nothing after it said "the following arguments are required: game_id,
    words": a `*` positional counts as required once options may stand between the words
    (_Intermixed), though none need be given."""
    from api.cli import main

    with pytest.raises(SystemExit):
        main([command])
    err = capsys.readouterr().err
    assert "the following arguments are required: game_id\n" in err, err
    assert optional not in err.splitlines()[-1]
