"""Exports that say what they are, joins that say what they need, prefixes and saved games
everywhere (issue 29, item 16). Against a live server (the fixtures of test_client)."""

from __future__ import annotations

from tests.api.test_client import Player, alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def test_a_seats_export_says_it_holds_commitments_and_verifies_and_the_umpires_opens_them(server, alice, bob, tmp_path):
    game_id = started_game(server, alice, bob)
    alice("order", game_id, "note", "--set", "text=the plan", "--set", "private=true")
    mine = tmp_path / "bob.jsonl"
    code, out, err = bob("export", game_id, "--server", server.url, "-o", mine)
    assert code == 0, err
    # The private note's OrderAccepted, and its OrderSigned, whose signature is hidden with it.
    assert "this is your seat's copy: 2 line(s) hold fields hidden from you as commitments" in err
    assert f"'warlog verify {mine}' checks it offline" in err and "the plan" not in mine.read_text()
    assert mine.read_text().startswith('{"warlog_export":{"server_key":')  # export v2's header, once
    assert mine.read_text().count("warlog_export") == 1
    code, out, err = bob("verify", mine)
    assert code == 0 and out.startswith("OK ") and "0 concealed field(s) opened, 4 still concealed" in out, out
    assert alice("umpire-propose", game_id, "Carol")[0] == 0  # the seats agree to an umpire (item 2)
    assert alice("umpire-answer", game_id, "--accept")[0] == 0 and bob("umpire-answer", game_id, "--accept")[0] == 0
    umpire = alice.json("umpire-token", game_id)["token"]
    exact = tmp_path / "umpire.jsonl"
    code, out, err = alice("export", game_id, "--server", server.url, "--token", umpire, "-o", exact)
    assert code == 0 and "nothing in it is redacted" in err and f"warlog verify {exact}" in err
    code, out, _ = alice("verify", exact)
    assert code == 0 and "4 concealed field(s) opened, 0 still concealed" in out, out


def test_a_format_1_seats_export_says_it_is_redacted_and_how_to_get_the_verifiable_one(capsys):
    from api.cli import _say_what_the_export_is

    _say_what_the_export_is("bob.jsonl", {"redacted": 2, "concealed": 0}, "g-1")
    err = capsys.readouterr().err
    assert "this is your seat's copy: 2 line(s) hidden from you are redacted" in err
    assert "warlog umpire-token g-1" in err and "--token UMPIRE_TOKEN" in err
    assert "warlog umpire-propose g-1 NAME" in err  # an umpire is agreed first (item 2)


def test_a_local_export_of_a_missing_game_says_where_it_looked_and_leaves_no_file(alice, tmp_path, monkeypatch):
    monkeypatch.setenv("WARLOG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    from api.app import migrate
    from domain.storage import config_from_env

    migrate(config_from_env())
    out_file = tmp_path / "game.jsonl"
    code, out, err = alice("export", "00000000-0000-4000-8000-000000000000", "-o", out_file)
    assert code == 1 and "no game 00000000-0000-4000-8000-000000000000" in err
    assert f"sqlite:{tmp_path / 'data'}" in err and "--server URL" in err
    assert not out_file.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".export-")] == []


def test_id_prefixes_work_for_local_commands_and_for_games_only_the_server_knows(server, alice, bob, tmp_path,
                                                                                 monkeypatch):
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--public", "--server", server.url)
    game_id = out.split()[1]
    carol = Player("carol", tmp_path, monkeypatch, alice._capsys)  # never saved this game
    code, out, err = carol("show", game_id[:8], "--server", server.url)
    assert code == 0 and out.startswith(game_id), err
    monkeypatch.setenv("WARLOG_DATA_DIR", str(server.config.sqlite_path).rsplit("/", 1)[0])
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    code, out, err = alice("check", game_id[:8])  # local, by the prefix of a saved game
    assert code == 0 and out.startswith(f"OK game {game_id}"), err


def test_join_from_another_machine_says_it_needs_the_server_and_new_prints_it(server, alice, bob):
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    assert f"warlog join {game_id} INVITE --handle NAME --server {server.url}" in out
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    code, out, err = bob("join", game_id, invite, "--handle", "bob")
    assert code == 2 and "--server URL" in err and "no server" in err
    assert bob("join", game_id, invite, "--handle", "bob", "--server", server.url)[0] == 0


def test_join_as_a_seat_takes_its_saved_invite(server, alice):
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    for seat in ("Blue", "Red"):
        code, out, err = alice("join", game_id[:8], "--as", seat, "--handle", f"solo-{seat}")
        assert code == 0 and f"as {seat} (solo-{seat})" in out, err
    assert set(alice.saved()["games"][game_id]["seats"]) == {"Blue", "Red"}
    code, out, err = alice("join", game_id, "--as", "Green", "--handle", "x")
    assert code == 2 and "no saved invite for seat Green" in err


def test_games_lists_the_private_games_saved_in_the_config(server, alice, bob):
    game_id = started_game(server, alice, bob)  # private
    code, out, err = alice("games")
    assert code == 0 and out.startswith(game_id) and "active" in out, (out, err)
    assert [g["game_id"] for g in alice.json("games")["games"]] == [game_id]
    assert alice("games", "--status", "ended")[1].startswith("no games: none public on ")
    code, out, err = bob("games", "--player", "bob")
    assert code == 0 and game_id in out


def test_a_prefix_that_matches_nothing_says_where_it_was_looked_for(server, alice, bob):
    started_game(server, alice, bob)
    code, out, err = bob("show", "abcdef12")
    assert code == 2 and "'abcdef12' is not a game id, nor the start" in err
    assert str(bob.config) in err and "listed by" in err and "give the whole id" in err


def test_take_back_and_concede_after_the_end_are_refused_naming_the_rule(server, alice, bob):
    game_id = started_game(server, alice, bob)
    alice("order", game_id, "note", "last words")
    bob("order", game_id, "end", "Red", "--reason", "held")
    for argv in (("take-back", game_id), ("concede", game_id), ("answer-take-back", game_id, "--accept")):
        code, out, err = alice(*argv)
        assert code == 1 and "ended" in err and err.rstrip().endswith(("[FF 5]", "[FF 6]")), (argv, err)


def test_a_local_export_where_nothing_was_ever_stored_says_so_without_a_traceback(alice, tmp_path, monkeypatch):
    """Run in a folder with no store (the default ./var): no traceback, where it looked, no file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WARLOG_DATA_DIR", raising=False)
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    code, out, err = alice("export", "00000000-0000-4000-8000-000000000000", "-o", "game.jsonl")
    assert code == 1 and f"no warlog store at sqlite:{tmp_path / 'var' / 'warlog.sqlite3'}" in err
    assert "--server URL" in err and not (tmp_path / "game.jsonl").exists()
    code, out, err = alice("check", "00000000-0000-4000-8000-000000000000")
    assert code == 1 and "no warlog store at" in err
    # looking is not making: the folder holds no ./var afterwards, so the message stays true
    assert not (tmp_path / "var").exists(), sorted(p.name for p in (tmp_path / "var").iterdir())


def test_join_run_again_after_its_answer_was_lost_gets_the_seat_a_token_that_signs(server, alice, bob, monkeypatch):
    """A join whose answer is lost used the invite: the same 'warlog join' run again sends the same
    Idempotency-Key and signing key, and gets the seat a fresh token (docs/api.md, "Idempotency")."""
    from api import client as client_module

    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    real_json = client_module.WarlogClient._json

    def answer_lost(self, method, path, **kwargs):
        real_json(self, method, path, **kwargs)  # recorded by the server...
        raise client_module.ConnectionFailed(f"{self.base_url} stopped answering")  # ...its answer never came

    monkeypatch.setattr(client_module.WarlogClient, "_json", answer_lost)
    code, out, err = bob("join", game_id, invite, "--handle", "bob", "--server", server.url)
    assert code != 0 and "run the same 'warlog join' again" in err, err
    monkeypatch.setattr(client_module.WarlogClient, "_json", real_json)
    code, out, err = bob("join", game_id, invite, "--handle", "bob", "--server", server.url)
    assert code == 0 and "as Red (bob)" in out, err
    assert bob.saved()["games"][game_id].get("pending_joins") == {}  # answered: nothing kept to send again
    assert alice("join", game_id, "--as", "Blue", "--handle", "ann")[0] == 0
    code, out, err = bob("order", game_id, "note", "--set", "text=hello")  # signed with the kept key
    assert code == 0, err


def test_join_help_and_its_docs_say_a_join_is_run_again_within_the_retry_window(capsys):
    """A join's answer is asked for again only within JOIN_RETRY_WINDOW of the join (api/games.py):
    `warlog join --help`, the README's line on a lost answer and docs/api.md say how long."""
    from pathlib import Path

    from api.games import JOIN_RETRY_WINDOW
    from tests.api.test_cli_play import _help

    within = f"within {int(JOIN_RETRY_WINDOW.total_seconds() // 60)} minutes of the join"
    assert within in _help(capsys, "join")
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert within in next(line for line in readme.splitlines() if "a join whose answer was lost" in line)
    assert within in " ".join((root / "docs" / "api.md").read_text(encoding="utf-8").split())


def test_join_takes_the_invite_link_the_lobby_gives(server, alice, bob):
    """The lobby's creator sends each player an invite link, /games/ID#invite=CODE; 'warlog join LINK'
    said the link "is not a game id" (and as the invite, "Length must be between 1 and 100"). The link
    names the server, the game and the code: join takes all three from it."""
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    code, out, err = bob("join", f"{server.url}/games/{game_id}#invite={invite}", "--handle", "bob")
    assert code == 0, err
    assert f"joined game {game_id} as Red (bob)" in out
    code, out, err = bob("show", game_id[:8])  # the server was saved with the game
    assert code == 0 and "Red=bob" in out, err


def test_new_prints_each_seats_invite_link_for_a_player_in_a_browser(server, alice, bob):
    """A game made with 'warlog new' printed invite codes and a 'warlog join' line only: a player
    who plays in a browser had to find the lobby's join form and copy two values into it. 'new' now
    prints each seat's invite link too, which opens the game page's join form (and which 'warlog
    join' takes as well)."""
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    link = f"{server.url}/games/{game_id}#invite={invite}"
    assert f"  Red: {link}" in out.splitlines(), out
    code, out, err = bob("join", link, "--handle", "bob")
    assert code == 0 and "as Red (bob)" in out, err
