"""Signed orders and heads in the domain (domain/signatures.py, Game.submit, verify): the encodings,
a fixed vector, signing, checking and refusing (issue 34, part 3; docs/dice.md)."""

from __future__ import annotations

import json

import pytest

from domain import chain, sealed, signatures
from domain.errors import BadSignature, InvalidOrder, SignatureRequired, UnknownHead
from domain.verify import verify_head, verify_text

# RFC 8032 section 7.1, TEST 2: a secret key, its public key, and the signature of the one byte 0x72.
RFC_SECRET = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
RFC_PUBLIC = bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
RFC_SIGNATURE = bytes.fromhex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                              "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")


def test_the_rfc_8032_vector_through_our_encoding():
    key = signatures.private_key_from_text(signatures.b64url(RFC_SECRET))
    assert signatures.public_key_of(key) == signatures.b64url(RFC_PUBLIC)
    assert signatures.sign(key, b"\x72") == signatures.b64url(RFC_SIGNATURE)
    assert signatures.signature_valid(signatures.b64url(RFC_PUBLIC), signatures.b64url(RFC_SIGNATURE), b"\x72")
    assert not signatures.signature_valid(signatures.b64url(RFC_PUBLIC), signatures.b64url(RFC_SIGNATURE), b"\x73")


def test_the_signed_bytes_are_the_chains_canonical_json():
    message = signatures.order_message("g-1", "o-1", {"kind": "note", "text": "é"}, "ab" * 32)
    assert message == ('{"game":"g-1","head":"' + "ab" * 32 + '","order":{"kind":"note","text":"é"},'
                       '"order_id":"o-1"}').encode("utf-8")
    assert signatures.head_message("g-1", 7, "cd" * 32) == ('{"game":"g-1","hash":"' + "cd" * 32 + '","seq":7}').encode()


@pytest.mark.parametrize("text", [None, 12, "", "abc", signatures.b64url(b"\0" * 31), signatures.b64url(b"\0" * 33),
                                  signatures.b64url(RFC_PUBLIC) + "=", signatures.b64url(RFC_PUBLIC).replace("-", "+"),
                                  signatures.b64url(RFC_PUBLIC)[:-1] + "x",
                                  " " + signatures.b64url(RFC_PUBLIC)])
def test_only_one_spelling_of_32_bytes_is_a_public_key(text):
    assert signatures.public_key_problem(text) is not None
    assert signatures.public_key_problem(signatures.b64url(RFC_PUBLIC)) is None


def keyed(sqlite_app):
    created = sqlite_app.create_game("freeform", options={"sides": ["Blue", "Red"]})
    key = signatures.new_private_key()
    sqlite_app.join(created.game_id, "Blue", "blue", public_key=signatures.public_key_of(key))
    joined = sqlite_app.join(created.game_id, "Red", "red")
    return created.game_id, key, joined.chain_head


def test_a_keyed_seat_signs_and_the_log_keeps_the_signature(sqlite_app):
    gid, key, head = keyed(sqlite_app)
    order = {"kind": "roll", "dice": "d6", "purpose": "x"}
    with pytest.raises(SignatureRequired):
        sqlite_app.submit_order(gid, "Blue", "o-1", order)
    with pytest.raises(UnknownHead):
        sqlite_app.submit_order(gid, "Blue", "o-1", order, signature="x", head="f" * 64)
    with pytest.raises(BadSignature):
        sqlite_app.submit_order(gid, "Blue", "o-1", order, head=head,
                                signature=signatures.sign_order(key, gid, "o-1", {**order, "dice": "d8"}, head))
    with pytest.raises(BadSignature):  # signed for another game
        sqlite_app.submit_order(gid, "Blue", "o-1", order, head=head,
                                signature=signatures.sign_order(key, "another", "o-1", order, head))
    version = sqlite_app.get_game(gid).version
    sig = signatures.sign_order(key, gid, "o-1", order, head)
    result = sqlite_app.submit_order(gid, "Blue", "o-1", order, signature=sig, head=head)
    assert result.events[0]["seq"] == version + 1
    assert [line["type"] for line in result.events[:2]] == ["OrderAccepted", "OrderSigned"]
    assert result.events[1]["data"] == {"order_id": "o-1", "seat": "Blue", "head": head, "signature": sig}
    # Red has no key: whatever it sends is not needed.
    sqlite_app.submit_order(gid, "Red", "r-1", {"kind": "note", "text": "hi"})
    report, _ = verify_text(list(sqlite_app.export(gid)))
    assert report.ok and report.signatures_verified == 1, report.summary()


def test_a_bad_key_at_join_is_refused(sqlite_app):
    created = sqlite_app.create_game("freeform", options={"sides": ["Blue", "Red"]})
    with pytest.raises(InvalidOrder):
        sqlite_app.join(created.game_id, "Blue", "blue", public_key="A" * 43 + "x")
    assert sqlite_app.get_game(created.game_id).version == created.version  # nothing recorded


def test_verify_names_a_forged_signature_a_missing_one_and_a_head_from_after_the_order(sqlite_app):
    gid, key, head = keyed(sqlite_app)
    order = {"kind": "note", "text": "the plan"}
    sqlite_app.submit_order(gid, "Blue", "o-1", order, signature=signatures.sign_order(key, gid, "o-1", order, head),
                            head=head)
    lines = [json.loads(t) for t in sqlite_app.export(gid)]
    at = next(n for n, line in enumerate(lines) if line["type"] == "OrderSigned")

    def rehash(edited):
        for n in range(at, len(edited)):
            edited[n]["prev_hash"] = edited[n - 1]["hash"]
            edited[n]["hash"] = chain.line_hash(edited[n])
        return [json.dumps(line) for line in edited]

    forged = json.loads(json.dumps(lines))
    forged[at]["data"]["signature"] = signatures.sign_order(signatures.new_private_key(), gid, "o-1", order, head)
    report, _ = verify_text(rehash(forged))
    assert [n for n, _ in report.failures] == [at], report.summary()  # named at the order's line
    late = json.loads(json.dumps(lines))
    late[at]["data"]["head"] = lines[at - 1]["hash"]  # the order's own line: not a head it could have seen
    report, _ = verify_text(rehash(late))
    assert any(n == at + 1 and "not the hash of a line before it" in m for n, m in report.failures), report.summary()


def test_a_kept_head_of_another_game_or_without_a_key_is_refused(sqlite_app):
    gid, key, head = keyed(sqlite_app)
    server = signatures.new_private_key()
    report, _ = verify_text(list(sqlite_app.export(gid)))
    verify_head(report, signatures.sign_head(server, gid, 1, report.hashes[0]), None)
    assert "names no server key" in report.failures[0][1]
    report, _ = verify_text(list(sqlite_app.export(gid)))
    verify_head(report, signatures.sign_head(server, "other", 1, report.hashes[0]), signatures.public_key_of(server))
    assert "not " + gid in report.failures[0][1]
    report, _ = verify_text(list(sqlite_app.export(gid)))
    verify_head(report, signatures.sign_head(server, gid, 2, report.hashes[1]), signatures.public_key_of(server))
    assert report.ok


def test_an_export_with_its_header_line_and_signatures_imports(sqlite_app, tmp_path):
    from domain.service import Warlog
    from domain.storage import config_from_env
    from domain.verify import header_line

    gid, key, head = keyed(sqlite_app)
    order = {"kind": "note", "text": "kept"}
    sqlite_app.submit_order(gid, "Blue", "o-1", order, signature=signatures.sign_order(key, gid, "o-1", order, head),
                            head=head)
    text = [header_line(signatures.public_key_of(signatures.new_private_key()))] + list(sqlite_app.export(gid))
    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "other")})
    Warlog.migrate(config)
    other = Warlog(config)
    try:
        assert other.import_lines(text) == gid
        assert list(other.export(gid)) == text[1:]
        assert other.get_game(gid).seat_keys == {"Blue": signatures.public_key_of(key)}
    finally:
        other.close()


# ----------------------------------------------------- signed seals and reveals (sealed orders) ----
def test_a_seal_and_a_reveal_sign_the_canonical_json_of_their_kind_seat_round_content_and_head():
    assert signatures.seal_message("g-1", "Blue", 2, "cd" * 32, "ab" * 32) == (
        '{"commitment":"' + "cd" * 32 + '","game":"g-1","head":"' + "ab" * 32 + '","kind":"seal","round":2,'
        '"seat":"Blue"}').encode()
    assert signatures.reveal_message("g-1", "Blue", 2, [{"kind": "note", "text": "é"}], "00" * 16, "ab" * 32) == (
        '{"game":"g-1","head":"' + "ab" * 32 + '","kind":"reveal","orders":[{"kind":"note","text":"é"}],'
        '"round":2,"salt":"' + "00" * 16 + '","seat":"Blue"}').encode("utf-8")


def sealed_keyed(app):
    """A freeform game of sealed rounds (FF 8) whose Blue registered a key (Red did not): its id,
    the key and the head after the last join."""
    created = app.create_game("freeform", options={"sides": ["Blue", "Red"], "sealed_orders": True})
    key = signatures.new_private_key()
    app.join(created.game_id, "Blue", "blue", public_key=signatures.public_key_of(key))
    return created.game_id, key, app.join(created.game_id, "Red", "red").chain_head


BLUE = [{"kind": "roll", "dice": "d6", "purpose": "fire"}, {"kind": "note", "text": "hold the ford"}]
SALT = "ab" * 16


def types_of(result) -> list[str]:
    return [line["type"] for line in result.events]


def test_a_keyed_seats_seal_and_reveal_are_refused_unsigned_or_badly_signed_and_nothing_is_recorded(sqlite_app):
    app = sqlite_app
    gid, key, head = sealed_keyed(app)
    commitment = sealed.commitment(gid, "Blue", 1, BLUE, SALT)
    before = app.get_game(gid).version
    with pytest.raises(SignatureRequired):
        app.seal(gid, "Blue", commitment)
    with pytest.raises(UnknownHead):
        app.seal(gid, "Blue", commitment, signature=signatures.sign_seal(key, gid, "Blue", 1, commitment, "f" * 64),
                 head="f" * 64)
    for forged in (signatures.sign_seal(signatures.new_private_key(), gid, "Blue", 1, commitment, head),  # not Blue's key
                   signatures.sign_seal(key, gid, "Blue", 1, "0" * 64, head),  # another commitment
                   signatures.sign_seal(key, gid, "Blue", 2, commitment, head),  # another round
                   signatures.sign_seal(key, gid, "Red", 1, commitment, head),  # another seat
                   signatures.sign_seal(key, "another", "Blue", 1, commitment, head),  # another game
                   signatures.sign_reveal(key, gid, "Blue", 1, BLUE, SALT, head)):  # a reveal's signature
        with pytest.raises(BadSignature, match="seal, round, commitment"):
            app.seal(gid, "Blue", commitment, signature=forged, head=head)
    assert app.get_game(gid).version == before
    signature = signatures.sign_seal(key, gid, "Blue", 1, commitment, head)
    result = app.seal(gid, "Blue", commitment, signature=signature, head=head)
    assert types_of(result) == ["OrderSealed", "SealedOrdersSigned"]
    assert result.events[1]["data"] == {"kind": "seal", "seat": "Blue", "round": 1, "head": head, "signature": signature}
    # A retry signed again over a newer head: the first seal, nothing recorded (the log keeps the first signature).
    newer = result.chain_head
    again = app.seal(gid, "Blue", commitment, signature=signatures.sign_seal(key, gid, "Blue", 1, commitment, newer),
                     head=newer)
    assert again.replayed and app.get_game(gid).version == result.version
    app.seal(gid, "Red", sealed.commitment(gid, "Red", 1, [], SALT))  # Red has no key: unsigned, as before

    before = app.get_game(gid).version
    with pytest.raises(SignatureRequired):
        app.reveal(gid, "Blue", BLUE, SALT)
    for forged in (signature,  # the seal's own signature, replayed as the reveal's
                   signatures.sign_reveal(key, gid, "Blue", 1, BLUE[:1], SALT, head),  # other orders
                   signatures.sign_reveal(key, gid, "Blue", 1, BLUE, "cd" * 16, head),  # another salt
                   signatures.sign_order(key, gid, "sealed:1:Blue:0", BLUE[0], head)):  # an order's signature
        with pytest.raises(BadSignature, match="reveal, round, orders, salt"):
            app.reveal(gid, "Blue", BLUE, SALT, signature=forged, head=head)
    assert app.get_game(gid).version == before
    result = app.reveal(gid, "Blue", BLUE, SALT, signature=signatures.sign_reveal(key, gid, "Blue", 1, BLUE, SALT, head),
                        head=head)
    assert types_of(result) == ["OrderRevealed", "SealedOrdersSigned"]
    app.reveal(gid, "Red", [], SALT)
    report, _ = verify_text(list(app.export(gid)))
    assert report.ok and report.sealed_signatures_verified == 2 and report.reveals_verified == 2, report.summary()


def signed_round(app, orders=BLUE) -> str:
    """A game where keyed Blue sealed and revealed ``orders``, signing both, and Red did unsigned."""
    gid, key, head = sealed_keyed(app)
    commitment = sealed.commitment(gid, "Blue", 1, orders, SALT)
    app.seal(gid, "Blue", commitment, signature=signatures.sign_seal(key, gid, "Blue", 1, commitment, head), head=head)
    head = app.seal(gid, "Red", sealed.commitment(gid, "Red", 1, [], SALT)).chain_head
    app.reveal(gid, "Blue", orders, SALT, signature=signatures.sign_reveal(key, gid, "Blue", 1, orders, SALT, head),
               head=head)
    app.reveal(gid, "Red", [], SALT)
    return gid


def rechained(lines: list[dict]) -> list[str]:
    """What a forger does after an edit: every seq, link and hash made right again."""
    prev = chain.GENESIS
    for n, line in enumerate(lines, start=1):
        line["seq"], line["prev_hash"] = n, prev
        line["hash"] = prev = chain.line_hash(line, 2)
    return [json.dumps(line) for line in lines]


def where(lines, type_, **data) -> int:
    """The 1-based line number of the first line of ``type_`` whose data has these items."""
    return next(n for n, line in enumerate(lines, start=1)
                if line["type"] == type_ and all(line["data"].get(k) == v for k, v in data.items()))


def test_verify_names_a_missing_forged_or_replayed_seal_or_reveal_signature_at_its_line(sqlite_app):
    gid = signed_round(sqlite_app)
    lines = [json.loads(t) for t in sqlite_app.export(gid)]
    report, _ = verify_text([json.dumps(line) for line in lines])
    assert report.ok and report.sealed_signatures_verified == 2, report.summary()
    seal, reveal = where(lines, "OrderSealed", seat="Blue"), where(lines, "OrderRevealed", seat="Blue")
    assert lines[seal]["type"] == lines[reveal]["type"] == "SealedOrdersSigned"

    def failures(edit) -> list[tuple[int, str]]:
        edited = json.loads(json.dumps(lines))
        edit(edited)
        report, _ = verify_text(rechained(edited))
        return report.failures

    # The signature of the seal dropped: named at the seal.
    found = failures(lambda x: x.pop(seal))
    assert found[0][0] == seal and "seal of seat Blue, who registered a key, for round 1 is not followed by its " \
                                   "signature" in found[0][1], found

    # The reveal's signature forged by another key (the server's): named at the reveal.
    def forge(x):
        x[reveal]["data"]["signature"] = signatures.sign_reveal(
            signatures.new_private_key(), gid, "Blue", 1, BLUE, SALT, x[reveal]["data"]["head"])
    assert failures(forge) == [(reveal, f"the signature on line {reveal + 1} is not seat Blue's of its reveal for "
                                        "round 1 as recorded here (the reveal or its signature was altered)")]

    # The seal's signature replayed as the reveal's (same head): the kind tag tells them apart.
    def replay(x):
        x[reveal]["data"].update(head=x[seal]["data"]["head"], signature=x[seal]["data"]["signature"])
    assert [n for n, _ in failures(replay)] == [reveal]

    # The seal's whole signature line moved after the reveal: it names another kind.
    def move(x):
        x[reveal]["data"] = dict(x[seal]["data"])
    assert failures(move) == [(reveal + 1, f"SealedOrdersSigned names the seal of Blue for round 1, not the reveal of "
                                           f"Blue for round 1 on line {reveal}")]

    # The commitment rewritten (and the reveal with it, rehashed): neither signature matches any more.
    def rewrite(x):
        orders = [{"kind": "note", "text": "retreat"}]
        x[seal - 1]["data"]["commitment"] = sealed.commitment(gid, "Blue", 1, orders, SALT)
        x[reveal - 1]["data"]["orders"] = orders
    found = failures(rewrite)
    assert found[0][0] == seal and "not seat Blue's of its seal" in found[0][1], found
    assert any(n == reveal and "not seat Blue's of its reveal" in m for n, m in found), found

    # A head the seat cannot have seen: its own seal's hash.
    def late(x):
        x[seal]["data"]["head"] = x[seal - 1]["hash"]
    assert any(n == seal + 1 and "the head this seal was signed over is not the hash of a line before it" in m
               for n, m in failures(late))

    # A signature line where no keyed seat sealed: Red's seal gets one.
    red = where(lines, "OrderSealed", seat="Red")
    found = failures(lambda x: x.insert(red, {**x[seal], "data": {**x[seal]["data"], "seat": "Red"}}))
    assert found[0][0] == red + 1 and "does not follow a seal or reveal of sealed orders" in found[0][1], found


def test_a_format_1_games_keyed_seat_seals_and_reveals_unsigned_as_it_always_did(sqlite_app, monkeypatch):
    """Format 1 keeps everything as it was (docs/dice.md): no signature asked, none recorded, the log verifies."""
    from domain import game as game_module

    monkeypatch.setattr(game_module, "FORMAT", 1)
    app = sqlite_app
    gid, key, head = sealed_keyed(app)
    for seat in ("Blue", "Red"):
        app.seal(gid, seat, sealed.commitment(gid, seat, 1, [], SALT))
    for seat in ("Blue", "Red"):
        app.reveal(gid, seat, [], SALT)
    text = list(app.export(gid))
    assert "format" not in json.loads(text[0])["data"] and not any("SealedOrdersSigned" in t for t in text)
    report, _ = verify_text(text)
    assert report.ok and report.reveals_verified == 2 and report.sealed_signatures_verified == 0, report.summary()


def test_a_reveals_signature_is_hidden_with_the_orders_it_reveals_and_a_seals_is_shown(sqlite_app):
    from domain.rulesets import find_ruleset
    from domain.visibility import filter_lines

    gid = signed_round(sqlite_app, [{"kind": "note", "text": "SECRET-FORD", "private": True}])
    lines = sqlite_app.lines(gid)
    rules = find_ruleset("freeform")
    at = where(lines, "SealedOrdersSigned", kind="reveal")
    for viewer, hidden in (("Red", True), (None, True), ("Blue", False), ("umpire", False)):
        signed = [line for line in filter_lines(rules, lines, viewer) if line["type"] == "SealedOrdersSigned"]
        assert [line["data"]["kind"] for line in signed] == ["seal", "reveal"]
        assert signed[0]["data"]["signature"] and "redacted" not in signed[0]  # a commitment is public
        real = lines[at - 1]["data"]["signature"]
        # Hidden: a commitment in its place, its salt withheld (concealed fields, docs/dice.md).
        assert (signed[1]["data"]["signature"] != real) is hidden and "redacted" not in signed[1]
        assert (signed[1]["data"]["concealed"] == {"signature": None}) is hidden
        # A page of the log that begins with the reveal's signature, without its reveal, shows it the same.
        page = filter_lines(rules, lines[at - 1:], viewer)
        assert page[0]["data"]["signature"] == signed[1]["data"]["signature"]


def test_warlog_verify_fails_a_kept_head_file_naming_a_key_twice(sqlite_app, tmp_path, capsys):
    """docs/dice.md section 6: verify reads every line refusing a key written twice, and so a kept
    head: `warlog verify --head` read the head with json.loads (the last value), so a head whose
    other reader takes the first value, a head the server never signed, verified OK."""
    from api.cli import main
    from domain.verify import header_line

    gid, _, _ = keyed(sqlite_app)
    server = signatures.new_private_key()
    export = tmp_path / "game.jsonl"
    export.write_text("\n".join([header_line(signatures.public_key_of(server))] + list(sqlite_app.export(gid))) + "\n",
                      encoding="utf-8")
    report, _ = verify_text(export.read_text(encoding="utf-8").splitlines())
    kept = json.dumps(signatures.sign_head(server, gid, 2, report.hashes[1]))
    head = tmp_path / "head.json"
    head.write_text(kept, encoding="utf-8")
    assert main(["verify", str(export), "--head", str(head)]) == 0
    capsys.readouterr()
    head.write_text('{"seq":1,' + kept[1:], encoding="utf-8")
    assert main(["verify", str(export), "--head", str(head)]) == 1
    out = capsys.readouterr().out
    assert "line 0: kept head: the key 'seq' is written twice in one object" in out, out
