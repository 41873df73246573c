"""The signed head the CLI keeps (docs/dice.md, "Signed heads") is the proof a player holds that the
log went at least so far: a server must not be able to make it weaker. Against a live server seen
through a stub of a hostile one that relays every request and puts another head in the answers."""

from __future__ import annotations

import http.client
import json
import urllib.parse

from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def _relaying(to: str, answer: dict):
    """A server that relays each request to ``to`` and gives its answer back, with ``answer["head"]``
    (when set; a callable is given the answer's own head) in place of the signed head an answer holds, and the fields of ``answer["fields"]`` over
    the answer's own."""
    target = urllib.parse.urlsplit(to)

    def app(environ, start_response):
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size) if size else None
        headers = {name[5:].replace("_", "-").title(): value for name, value in environ.items()
                   if name.startswith("HTTP_") and name not in ("HTTP_HOST", "HTTP_CONNECTION")}
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        path = environ["PATH_INFO"] + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else "")
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        conn.request(environ["REQUEST_METHOD"], path, body=body, headers=headers)
        got = conn.getresponse()
        data = got.read()
        conn.close()
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and "signed_head" in parsed and answer.get("head"):
            head = answer["head"](parsed["signed_head"]) if callable(answer["head"]) else answer["head"]
            parsed = {**parsed, "signed_head": head, **answer.get("fields", {})}
            data = json.dumps(parsed).encode()
        kept = [(k, v) for k, v in got.getheaders() if k.lower() not in ("content-length", "transfer-encoding",
                                                                         "connection", "server", "date")]
        start_response(f"{got.status} {got.reason}", kept + [("Content-Length", str(len(data)))])
        return [data]

    return app


def _file(alice, server, game_id, tmp_path, lines: int):
    """alice's export of the game, cut after ``lines`` events (the header line kept)."""
    exported = tmp_path / "game.jsonl"
    code, out, err = alice("export", game_id, "--server", server.url, "-o", exported)
    assert code == 0, err
    text = exported.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(text[:1 + lines]) + "\n")
    return cut


def test_an_answer_holding_an_older_head_does_not_replace_the_one_kept(server, alice, bob, serve_stub, tmp_path):
    """The server answered alice's order with the signed head of her join (a real head, the server's
    signature, of an earlier line): the CLI kept it in place of the head of her order before, so a
    log cut after the join, which drops both her orders, verified OK against the head she kept."""
    game_id = started_game(server, alice, bob)
    joined = alice.saved()["games"][game_id]["signed_head"]
    assert alice("order", game_id, "note", "--set", "text=first")[0] == 0
    first = alice.saved()["games"][game_id]["signed_head"]
    assert first["seq"] > joined["seq"]
    hostile = serve_stub(_relaying(server.url, {"head": joined}))
    code, out, err = alice("order", game_id, "note", "--set", "text=second", "--server", hostile)
    assert code == 0, err
    assert f"the server's answer holds a signed head of line {joined['seq']}" in err, err
    assert alice.saved()["games"][game_id]["signed_head"] == first  # not the older one

    cut = _file(alice, server, game_id, tmp_path, joined["seq"])
    assert alice("verify", cut)[0] == 0  # a sound chain, shorter: only a kept head shows the cut
    code, out, err = alice("verify", cut, "--head", json.dumps(alice.saved()["games"][game_id]["signed_head"]))
    assert code == 1 and f"line {first['seq']}: the server signed a head at line {first['seq']}" in out, out


def test_an_answer_whose_head_is_not_of_its_version_is_not_kept(server, alice, bob, serve_stub):
    """A head is kept only when it is the answer's own: of this game, its seq the answer's version
    and its hash the answer's chain head, the seq a JSON integer. The server answered with the head
    of alice's join and a version and chain head to match: a head no newer than the one kept, though
    the order was recorded (not a replay), is said and not kept."""
    game_id = started_game(server, alice, bob)
    joined = alice.saved()["games"][game_id]["signed_head"]
    assert alice("order", game_id, "note", "--set", "text=first")[0] == 0
    first = alice.saved()["games"][game_id]["signed_head"]
    cases = [
        ({**first, "seq": float(first["seq"])}, {}),  # 12.0: JSON.parse reads 12, Python a float
        ({**first, "game": game_id.upper()}, {}),
        (joined, {"version": joined["seq"], "chain_head": joined["hash"]}),
        (first, {}),  # the order was recorded: its answer's head must be newer than the one kept
    ]
    for head, fields in cases:
        hostile = serve_stub(_relaying(server.url, {"head": head, "fields": fields}))
        code, out, err = alice("order", game_id, "note", "--set", "text=again", "--server", hostile)
        assert code == 0, err
        assert "not kept" in err, (head, err)
        assert alice.saved()["games"][game_id]["signed_head"] == first
