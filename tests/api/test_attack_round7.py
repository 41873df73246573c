"""The seventh attack round: requests a careless client or an attacker could send that the earlier
rounds missed, each answered as the service promises (docs/api.md): a clear 4xx naming the rule,
never a 5xx, nothing lost. SQLite only: what these tests check is the API's answer, not the store."""

from __future__ import annotations


import pytest

from tests.api.conftest import make_game
from tests.api.test_attack_round6 import seal_and_reveal
from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures: a live server, a player)


def url(game, tail=""):
    return f"/api/v1/games/{game.game_id}{tail}"


# ------------------------------------------------------------- a roll's target of odd JSON ----
@pytest.mark.parametrize("compare", [[], {}, [">="], {">=": 1}])
def test_a_roll_target_compare_not_a_string_is_refused_naming_ff_3_not_a_500(sqlite_client, compare):
    """FF 3: "optionally against a target"; a target's compare is one of >= > <= < ==. A list or an
    object there is malformed (422 naming FF 3), not a server error (it was 500: unhashable type)."""
    c = sqlite_client
    game = make_game(c)
    order = {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": compare, "value": 8}}
    r = game.order(c, "Blue", order, "roll-1")
    assert r.status_code == 422 and r.json["code"] == "invalid_order", r.get_data(as_text=True)
    assert r.json["rule"] == "FF 3" and r.json["field"] == "target", r.json
    assert c.get(url(game, "/events?after=0&limit=500"), headers=game.admin).json["events"][-1]["type"] != "DiceRolled"


def test_a_sealed_roll_target_compare_not_a_string_is_recorded_refused_and_the_round_goes_on(sqlite_client):
    """FF 8: "an order the rules refuse then is recorded as refused and the rest go on". A sealed
    order whose target's compare is a list must not make every reveal a 500 (the round could then
    never be carried out): it is recorded refused naming FF 3, and the seat's next order runs."""
    c = sqlite_client
    game = make_game(c, sealed_orders=True)
    orders = {"Blue": [{"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": [], "value": 8}},
                       {"kind": "note", "text": "after the bad roll"}],
              "Red": []}
    r = seal_and_reveal(c, game, orders)
    types = [line["type"] for line in r.json["events"]]
    refused = [line["data"] for line in r.json["events"] if line["type"] == "SealedOrderRefused"]
    assert [(d["index"], d["rule"]) for d in refused] == [(0, "FF 3")], r.json
    assert "SealedRoundOpened" in types, types  # the round was carried out, the next one opened


# ------------------------------------------------------- a freeform turn of repeated phases ----
def test_a_freeform_game_whose_phases_repeat_a_name_is_refused_naming_ff_2(sqlite_client):
    """FF 2: "'advance' moves to the next phase, and after the last phase to the next turn". With a
    phase name given twice (["Move", "Fight", "Move"]) the game finds its place by name: advancing
    from the last "Move" went back to "Fight", and the turn (and with it the dice epoch) never
    ended. Phase names must differ, as side names must (FF 1)."""
    c = sqlite_client
    r = c.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"],
                                                                         "phases": ["Move", "Fight", "Move"]}})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup", r.json
    assert r.json["detail"].startswith("FF 2") and "differ" in r.json["detail"], r.json



# ------------------------------------------------------------------ warlog verify and import ----
@pytest.mark.parametrize("command", ["verify", "import"])
def test_a_file_that_is_not_utf8_text_is_named_so_by_verify_and_import_without_a_traceback(
        command, tmp_path, monkeypatch, capsys):
    """README: "warlog verify game.jsonl ... non-zero on failure"; "warlog import game.jsonl refuses a
    file that does not verify". A file that is not UTF-8 text (a binary file given by mistake) ended
    both in a UnicodeDecodeError traceback."""
    from api.cli import main

    monkeypatch.setenv("WARLOG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    path = tmp_path / "game.jsonl"
    path.write_bytes(b'{"game_id": "\xb2\xff"}\n')
    code = main([command, str(path)])
    err = capsys.readouterr().err
    assert code != 0, err
    assert f"warlog {command}: " in err and "not UTF-8 text" in err and str(path) in err, err


def test_an_empty_file_does_not_verify(tmp_path, capsys):
    """README: "warlog verify game.jsonl  # chain + every revealed die, offline; non-zero on failure".
    Every game's log starts with its GameCreated line, so a file without a single event is no
    export (truncated, or the wrong file): verify said "OK game None: 0 events" and exited 0, where
    import refuses the same file ("the file holds no events")."""
    from api.cli import main

    for name, text in [("empty.jsonl", ""), ("header-only.jsonl", '{"warlog_export": {"version": 2}}\n')]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        code = main(["verify", str(path)])
        out = capsys.readouterr().out
        assert code == 1 and out.startswith("FAILED") and "holds no events" in out, (name, out)


def test_a_head_file_that_is_not_utf8_text_is_named_so_by_verify_without_a_traceback(tmp_path, capsys):
    """README: "warlog verify --head" takes a signed head kept, as JSON or a file holding one; a
    binary file given there ended in a UnicodeDecodeError traceback."""
    from api.cli import main

    export, head = tmp_path / "game.jsonl", tmp_path / "head.bin"
    export.write_text("", encoding="utf-8")
    head.write_bytes(b"\xb2\xff\x00")
    code = main(["verify", str(export), "--head", str(head)])
    err = capsys.readouterr().err
    assert code == 2 and "--head" in err and "neither a signed head's JSON nor a readable file" in err, err


def test_the_cli_prints_a_field_error_once_when_the_detail_already_says_it(capsys):
    """README, exit status: "1 the server refused, printed as warlog <command>: <detail> [<rule>]".
    'warlog webhook GAME URL' with a host that does not resolve printed the reason twice: "webhook
    host x does not resolve (...) (url: webhook host x does not resolve (...))". A field's error the
    detail does not say is still added."""
    from api.cli import _problem_text
    from api.client import ProblemError

    said = "webhook host discord.invalid does not resolve"
    once = ProblemError(422, "invalid_request", said, body={"errors": {"url": [said]}})
    assert _problem_text(once) == said
    more = ProblemError(422, "invalid_request", "invalid fields: days",
                        body={"errors": {"days": ["Must be greater than or equal to 1."]}})
    assert _problem_text(more) == "invalid fields: days (days: Must be greater than or equal to 1.)"


@pytest.mark.parametrize("command", ["export", "replay", "stats"])
def test_an_output_that_is_a_folder_is_said_before_any_work(command, tmp_path, capsys):
    """README: "warlog export GAME_ID --server URL -o game.jsonl", "warlog replay GAME_ID [-o
    replay.html]", "warlog stats GAME_ID [-o stats.json]". A folder given as -o was found only after
    the download (or the job's wait), as "[Errno 21] Is a directory: '/.export-x.jsonl' -> '/tmp'",
    naming a file in the folder above that the user never asked for. It is said first, and no
    server is asked (this one does not answer)."""
    from api.cli import main

    game_id = "0cc7e92b-f324-4172-a805-5134851ef386"
    code = main([command, game_id, "-o", str(tmp_path), "--server", "http://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2 and f"warlog {command}: -o {tmp_path} is a folder: give a file's name" in err, err


# ------------------------------------------------------- a control character in a query string ----
@pytest.mark.parametrize("query", ["player=a%00b", "ruleset=%00", "turn_of=%00", "player=%1b[2J"])
def test_a_games_list_filter_holding_a_control_character_is_refused_naming_it_not_a_500(client, query):
    """docs/api.md: "No request a client can make gets a 5xx but a 503". A NUL in ?player=,
    ?ruleset= or ?turn_of= reached the games index's SQL, and PostgreSQL refuses NUL in text: 500.
    A query value is text like a body's, which never holds a control character (api/jsonbody.py):
    422 invalid_request naming the parameter, on every store."""
    make_game(client, public=True)
    r = client.get(f"/api/v1/games?{query}")
    assert r.status_code == 422 and r.json["code"] == "invalid_request", r.get_data(as_text=True)
    assert query.split("=")[0] in r.json["errors"], r.json


def test_revoking_spectator_tokens_by_a_name_holding_a_control_character_is_refused_not_a_500(client):
    """DELETE .../spectator-tokens?name=NAME (docs/api.md, "Spectators"): a NUL in the name reached
    the token store's SQL: 500 on PostgreSQL. A spectator's name never holds one (its body at
    creation is refused so), so no token can be named so: 422 invalid_request naming `name`."""
    game = make_game(client)
    r = client.delete(url(game, "/spectator-tokens?name=Sam%00"), headers=game.admin)
    assert r.status_code == 422 and r.json["code"] == "invalid_request" and "name" in r.json["errors"], \
        r.get_data(as_text=True)


# ----------------------------------------------------------- the CLI's server URL and token ----
@pytest.mark.parametrize("server", ["http://[::1", "http://127.0.0.1:8000/é", "http://exa mple.org", "http://a\tb"])
def test_a_server_url_that_cannot_be_sent_is_named_by_the_cli_without_a_traceback(server, capsys):
    """README, exit status: "2 a usage error or a server that cannot be reached". A server URL
    with an unclosed IPv6 bracket (ValueError) or a character outside printable ASCII
    (UnicodeEncodeError) ended in a traceback."""
    from api.cli import main

    code = main(["show", "0cc7e92b-f324-4172-a805-5134851ef386", "--server", server, "--token", "wls_x"])
    err = capsys.readouterr().err
    assert code == 2 and "warlog show: not an http(s) server URL" in err and "Traceback" not in err, err


@pytest.mark.parametrize("token", ["wls_abc\n", "wls_a\r\nX-Evil: 1", "wls_€", "wls_a b"])
def test_a_token_that_cannot_be_sent_is_named_by_the_cli_without_a_traceback_nor_itself(token, capsys):
    """README: "--token, else WARLOG_TOKEN": a token pasted with its line break (a file's "\\r\\n"),
    or holding a character outside printable ASCII, ended in "ValueError: Invalid header value
    b'Bearer wls_...'" or a UnicodeEncodeError: a traceback printing the token. It is refused as a
    usage error that does not print it, before anything is sent."""
    from api.cli import main

    code = main(["show", "0cc7e92b-f324-4172-a805-5134851ef386", "--server", "http://127.0.0.1:1", "--token", token])
    err = capsys.readouterr().err
    assert code == 2 and "warlog show: the token" in err and "Traceback" not in err, err
    assert token.strip() not in err, err  # never the token itself (api/client.py)


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "1e308"])
def test_a_timeout_that_is_no_number_of_seconds_is_a_usage_error_not_a_traceback(value, capsys):
    """Every server command's --timeout SECONDS "per request (default 30)": a negative, NaN or
    infinite value reached the socket ("ValueError: Timeout value out of range", "OverflowError:
    timestamp out of range"): a traceback. argparse refuses it, naming the option."""
    from api.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["show", "0cc7e92b-f324-4172-a805-5134851ef386", "--server", "http://127.0.0.1:1", "--timeout", value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--timeout" in err and "seconds" in err, err


def test_a_replay_wait_that_is_nan_is_a_usage_error(capsys):
    """`warlog replay --wait SECONDS`: "give up waiting after this long"; NaN compares false with
    every time waited, so the command would never give up. argparse refuses it."""
    from api.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["replay", "0cc7e92b-f324-4172-a805-5134851ef386", "--server", "http://127.0.0.1:1", "--wait", "nan"])
    assert exit_.value.code == 2 and "--wait" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["order", "GAME", "note", "hi", "--order-id", "x\ny"],
                                  ["order", "GAME", "note", "hi", "--order-id", "é€"],
                                  ["annotate", "GAME", "1", "hi", "--annotation-id", "a\r\nb"],
                                  ["vacation", "GAME", "1", "--key", "a\nb"]])
def test_an_idempotency_key_that_cannot_be_sent_is_a_usage_error_not_a_traceback(argv, capsys):
    """docs/api.md: an Idempotency-Key is "1 to 200 characters without control characters". One
    given with --order-id, --annotation-id or --key holding a line break, or a character a header
    cannot carry, ended in "ValueError: Invalid header value" or a UnicodeEncodeError traceback."""
    from api.cli import main

    argv = [a.replace("GAME", "0cc7e92b-f324-4172-a805-5134851ef386") for a in argv]
    code = main([*argv, "--server", "http://127.0.0.1:1", "--token", "wls_x"])
    err = capsys.readouterr().err
    assert code == 2 and "Idempotency-Key" in err and "Traceback" not in err, err


@pytest.mark.parametrize("entry", [[], 5, {"server": 5}])
def test_a_client_config_holding_a_game_that_is_not_a_saved_game_is_named_without_a_traceback(
        entry, tmp_path, monkeypatch, capsys):
    """README: the config file ~/.config/warlog/client.json (WARLOG_CLIENT_CONFIG). One edited by
    hand so that a game's entry is not an object, or its server not text, ended in "AttributeError:
    'list' object has no attribute 'get'" (or 'int' ... 'strip'). It is named, with the game."""
    import json as json_

    from api.cli import main

    game_id = "0cc7e92b-f324-4172-a805-5134851ef386"
    config = tmp_path / "client.json"
    config.write_text(json_.dumps({"games": {game_id: entry}}), encoding="utf-8")
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(config))
    monkeypatch.delenv("WARLOG_SERVER", raising=False)
    monkeypatch.delenv("WARLOG_TOKEN", raising=False)
    code = main(["show", game_id])
    err = capsys.readouterr().err
    assert code == 2 and f"game {game_id} is not a saved game" in err and "Traceback" not in err, err


# --------------------------------------------------------------- a scenario the ruleset lacks ----
@pytest.mark.parametrize("body", [{"ruleset": "falklands", "scenario": "standrad"},
                                  {"ruleset": "falklands", "scenario": "x", "position": "midgame"},
                                  {"ruleset": "proving", "scenario": "mustre"}])
def test_a_scenario_the_ruleset_does_not_have_is_refused_at_creation(sqlite_client, body):
    """docs/api.md: bad input gets a clear error. Falklands Showdown has one scenario and the proving
    ground two (standard, muster); a name neither has (a typo) was taken without a word, the game
    played the standard one and its log recorded the typo as its scenario. Solitaire Task Force
    already refused it ("has one scenario, 'standard', not ..."); so do these now, naming theirs."""
    r = sqlite_client.post("/api/v1/games", json=body)
    assert r.status_code == 422 and r.json["code"] == "invalid_setup", r.json
    assert repr(body["scenario"]) in r.json["detail"] and "'standard'" in r.json["detail"], r.json



# ---------------------------------------------------------- an output that goes away early ----
class ClosedPipe:
    """Standard output whose reader has gone (``warlog join ... | head -1``): every write fails."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_new_and_join_save_the_tokens_before_printing_so_a_closed_output_loses_none(server, alice, monkeypatch):
    """README: "new and join save the server, the invite codes, the admin token and your seat's
    token there". They printed first and saved after, so with an output whose reader stopped
    early (warlog join ... | head -1) the command ended at the first line: the game was created,
    the invite used, and the admin token or the seat's token (never printed by join) was lost for
    good. They are saved first now."""
    from api.cli import main

    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(alice.config))
    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["new", "freeform", "--option", "sides=Blue,Red", "--server", server.url]) != 0
    (game_id, saved), = alice.saved()["games"].items()
    assert saved["admin_token"].startswith("wla_") and set(saved["invites"]) == {"Blue", "Red"}, saved
    assert main(["join", game_id, "--as", "Blue", "--handle", "alice"]) != 0
    assert alice.saved()["games"][game_id]["seats"]["Blue"].startswith("wls_")


def test_a_join_whose_token_cannot_be_saved_prints_it(server, alice, monkeypatch, capsys):
    """'warlog join' could not save (a full disk): it said "keep the codes and tokens printed
    above", but join prints no token, so the seat's token was lost. It is printed."""
    from api import cli

    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    invite = alice.saved()["games"][game_id]["invites"]["Blue"]

    def disk_full(self, game_id, **fields):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.Session, "remember", disk_full)
    code = cli.main(["join", game_id, invite, "--handle", "alice", "--server", server.url])
    out, err = capsys.readouterr()
    assert code == 2 and "could not save" in err, err
    assert "the Blue token (keep it, give it with --token): wls_" in out, out
