"""Signed orders and heads in the domain (domain/signatures.py, Game.submit, verify): the encodings,
a fixed vector, signing, checking and refusing (issue 34, part 3; docs/dice.md)."""

from __future__ import annotations

import json

import pytest

from domain import chain, signatures
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
