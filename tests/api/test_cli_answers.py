"""The CLI on a server whose answers are not of the shape the API promises (docs/api.md): `{}`
where a game is promised, a list where an object is, a field of another type. Each command says
so in one line, naming the command and the field, and exits non-zero: no Python traceback.

The server is a stub answering every request with the body a test gives (api.cli.main runs
in-process, as in test_cli_terminal.py)."""

from __future__ import annotations

import json

import pytest

from api.cli import EXIT_USAGE, main

GAME = "0f0f0f0f-0000-4000-8000-000000000000"
PROMISE = "was not what the API promises"


class Stub:
    """Answers every request with ``body`` (JSON, 200), or ``by_path[path]`` where given."""

    def __init__(self):
        self.body: object = {}
        self.by_path: dict[str, object] = {}

    def __call__(self, environ, start_response):
        body = self.by_path.get(environ["PATH_INFO"], self.body)
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]


@pytest.fixture
def stub(serve_stub):
    answers = Stub()
    answers.url = serve_stub(answers)
    return answers


# Every client command that reads an answer, with arguments that reach the request.
COMMANDS = [
    ["new", "freeform", "--option", "sides=Blue,Red"],
    ["sandbox", GAME, "--at", "3"],
    ["kinds", "freeform"],
    ["join", GAME, "wli_x", "--handle", "alice"],
    ["games"],
    ["show", GAME],
    ["legal", GAME],
    ["order", GAME, "advance"],
    ["state", GAME],
    ["history", GAME],
    ["dice", GAME],
    ["take-back", GAME, "--reason", "misclick"],
    ["answer-take-back", GAME, "--accept"],
    ["concede", GAME],
    ["annotate", GAME, "3", "a comment"],
    ["spectator-token", GAME, "Sam"],
    ["spectator-tokens", GAME],
    ["spectator-revoke", GAME, "--name", "Sam"],
    ["vacation", GAME, "2"],
    ["extend", GAME, "2"],
    ["claim-win", GAME],
    ["client-seed", GAME, "my seed"],
    ["standing", GAME],
    ["standing", GAME, "--set", "p1", "--kind", "opportunity_fire", "--policy", '{"fire": "always"}'],
    ["notify", GAME],
    ["umpire-token", GAME],
    ["umpire-propose", GAME, "Ann"],
    ["umpire-answer", GAME, "--accept"],
    ["umpire-tokens", GAME],
    ["umpire-revoke", GAME, "--role"],
    ["webhook", GAME, "--remove"],
    ["replay", GAME, "--wait", "1"],
    ["stats", GAME, "--wait", "1"],
]


# The fields of the answers a command may read.
FIELDS = ["game_id", "ruleset", "status", "seats", "whose_move", "version", "chain_head", "events", "orders",
          "games", "turns", "rolls", "state", "token", "seat", "invites", "admin_token", "order_kinds",
          "job_id", "id", "policies", "annotation", "tokens", "umpire", "settings", "clock", "vp", "text",
          "kind", "rule", "fields", "phases", "operations", "lines", "type", "seq", "url", "result",
          "download", "accepted", "turn", "phase", "ended", "notify", "events_wanted", "name", "token_id"]


def run(stub, argv, capsys) -> tuple[int, str, str]:
    code = main([*argv, "--server", stub.url, "--token", "wls_x"])
    out, err = capsys.readouterr()
    return code, out, err


def no_traceback(code, err, command) -> None:
    """A command that reads what it needs with defaults may go on (exit 0); any other says the
    one line."""
    if code != 0:
        said_not_promised(code, err, command)


def said_not_promised(code, err, command) -> str:
    """The one line a wrong answer gives, last (after a job's progress): the command, the
    promise, exit status 2."""
    lines = err.strip().splitlines()
    assert code == EXIT_USAGE, err
    assert lines and lines[-1].startswith(f"warlog {command}: the server's answer "), err
    assert PROMISE in lines[-1] and not any(line.startswith("warlog") for line in lines[:-1]), err
    return lines[-1]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:3]))
def test_an_empty_object_for_an_answer_is_said_naming_the_command_and_the_field(stub, capsys, argv):
    stub.body = {}
    code, _, err = run(stub, argv, capsys)
    no_traceback(code, err, argv[0])
    if code:
        assert "no field '" in err, err


# What a field may hold instead of what the API promises: a list for an object, a text or a
# number; a number, true, null, a text, an object for a list.
WRONG = [[{"x": 1}], 7, True, None, "x", {"x": 1}]


@pytest.mark.parametrize("value", WRONG, ids=["list", "number", "true", "null", "text", "object"])
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:3]))
def test_a_field_of_another_shape_is_said_in_one_line_never_a_traceback(stub, capsys, argv, value):
    """Every field a reader may look at holds the same value of another shape than promised."""
    stub.body = {name: value for name in FIELDS}
    code, _, err = run(stub, argv, capsys)
    if argv[0] in ("replay", "stats") and value == "x":  # a job's status is rq's, any text: waited out
        assert code == EXIT_USAGE and "job is still x after 1 s" in err and "Traceback" not in err, err
        return
    no_traceback(code, err, argv[0])


def test_join_names_the_request_and_the_missing_field(stub, capsys):
    stub.body = {"game_id": GAME, "seat": "Blue"}
    code, _, err = run(stub, ["join", GAME, "wli_x", "--handle", "alice"], capsys)
    line = said_not_promised(code, err, "join")
    assert f"POST /api/v1/games/{GAME}/join" in line and "no field 'token'" in line, line


def test_a_game_id_that_is_not_text_is_said_and_nothing_is_saved(stub, capsys, tmp_path):
    stub.body = {"game_id": ["x"], "seats": ["Blue"], "invites": {"Blue": "wli_x"}, "admin_token": "wla_x"}
    code, _, err = run(stub, ["new", "freeform", "--option", "sides=Blue"], capsys)
    line = said_not_promised(code, err, "new")
    assert "'game_id' is a list, not a text" in line, line
    assert not (tmp_path / "client.json").exists()


def test_a_seat_that_is_a_list_of_texts_names_the_field_within(stub, capsys):
    stub.body = {"game_id": GAME, "ruleset": "freeform", "status": "active", "turn": 1, "phase": "Move",
                 "whose_move": ["Blue"], "version": 7, "chain_head": "ab" * 32, "seats": [["Blue", "alice"]],
                 "vp": {"Blue": 1}}
    code, _, err = run(stub, ["show", GAME], capsys)
    line = said_not_promised(code, err, "show")
    assert "seats[0]" in line, line
