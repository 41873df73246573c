"""One game played over the HTTP API for the leak test: its seats, the readers, the planted
secrets, and every check of what each reader reads."""

from __future__ import annotations

import random
import uuid
from typing import Any

from domain import signatures
from domain.access import AccessStore
from tests.leak.harness import API, Leak, Reader, Secrets, Texts, game_reads, search, seen_anywhere, withheld


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class Table:
    """A public game of ``body`` (the create request), every seat joined with an e-mail address
    for notifications; one seat, chosen at random, signs its orders with a key of its own. With
    ``seat_webhook``, one seat also has its own webhook and one (maybe the same) a daily digest."""

    def __init__(self, client, service, label: str, body: dict, rng: random.Random, *, mail_domain: str,
                 webhook: tuple[str, str, str] | None = None, seat_webhook: tuple[str, str] | None = None):
        self.client, self.service, self.label, self.rng = client, service, label, rng
        self.secrets = Secrets()
        self.leaks: list[Leak] = []
        self.errors: list[str] = []
        self.said: dict[str, Texts] = {}  # reader name -> the answers to its own requests
        self.sandboxes: list[dict] = []  # {game_id, admin}: sandboxes forked by a seat (public)
        self.shown = 0  # sealed rolls a seat showed before the end (FF 9)
        self.final: dict[str, list[tuple[str, str]]] = {}  # reader name -> what it read at the end
        self.mails: dict[str, int] = {}  # seat -> mails it got (after the end)
        self.webhooks = 0  # webhook deliveries of the game (after the end)
        self.seat_webhooks = self.digests = 0  # a seat's own webhook deliveries; the digest seat's digests
        r = client.post(f"{API}/games", json={**body, "public": True})
        assert r.status_code == 201, r.json
        self.game_id = r.json["game_id"]
        self.admin = bearer(r.json["admin_token"])
        self.seats: list[str] = list(r.json["seats"])
        self.keys: dict[str, Any] = {}
        keyed = rng.choice([*self.seats, None])
        self.headers: dict[str, dict] = {}
        self.emails: dict[str, str] = {}
        for seat in self.seats:
            self.emails[seat] = f"{seat.lower()}.{uuid.uuid4().hex[:10]}@{mail_domain}"
            join = {"invite_code": r.json["invites"][seat], "handle": seat.lower(), "client_seed": f"cs-{seat}",
                    "email": self.emails[seat], "notify": True}
            if seat == keyed:
                self.keys[seat] = signatures.new_private_key()
                join["public_key"] = signatures.public_key_of(self.keys[seat])
            j = client.post(f"{API}/games/{self.game_id}/join", json=join)
            assert j.status_code == 201, j.json
            self.headers[seat] = bearer(j.json["token"])
            self.head = j.json["chain_head"]
        self._confirm_addresses()
        if webhook is not None:
            url, secret, fmt = webhook
            w = client.put(f"{API}/games/{self.game_id}/webhook", json={"url": url, "secret": secret, "format": fmt},
                           headers=self.admin)
            assert w.status_code == 200, w.json
        self.hooked_seat = self.digest_seat = None
        if seat_webhook is not None:  # chosen by the game id, so the game's own rng draws as before
            url, secret = seat_webhook
            choose = random.Random(self.game_id)
            self.hooked_seat, self.digest_seat = choose.choice(self.seats), choose.choice(self.seats)
            for seat, settings in ((self.hooked_seat, {"channels": ["email", "webhook"], "webhook_url": url,
                                                        "webhook_secret": secret}),
                                   (self.digest_seat, {"digest": True})):
                w = client.put(f"{API}/games/{self.game_id}/notifications", json=settings,
                               headers={**self.headers[seat], **self._command_signed(seat, "PUT", "/notifications", settings)})
                assert w.status_code == 200, w.json
        self.readers = [*(Reader(s, s, self.headers[s]) for s in self.seats), Reader("spectator", None, {}),
                        Reader("admin", None, self.admin)]

    def _confirm_addresses(self) -> None:
        """Each seat's owner follows the link of its confirmation mail (its code read as the mail
        job makes it), so that its turn mails go out."""
        access = AccessStore.for_service(self.service)
        for asked in access.confirmations_to_queue(limit=1000):
            if asked["game_id"] == self.game_id:
                _, code = access.confirmation_to_send(asked["request_id"])
                r = self.client.post(f"{API}/email-confirmations", json={"code": code})
                assert r.status_code == 200, r.json

    # -------------------------------------------------------------------------------- playing --
    def _said(self, seat: str, surface: str, response) -> None:
        """Keep the answer to ``seat``'s request, and search it at once for what is hidden from the
        seat now (a sealed order is public by the end; its secrecy is checked here)."""
        text = self.said.setdefault(seat, Texts()).add(surface, response)
        reader = Reader(seat, seat)
        self.leaks += search(f"{self.label} (an answer)", reader, [(surface, text)], self.secrets.hidden_from(reader))
        if response.status_code >= 500:
            self.errors.append(f"{self.label}: {seat}'s {surface}: {response.status_code}")
        if (response.status_code < 300 and isinstance(response.json, dict)
                and response.json.get("game_id") == self.game_id and response.json.get("chain_head")):
            self.head = response.json["chain_head"]  # the head a keyed seat signs its next order over

    def order(self, seat: str, order: dict, order_id: str | None = None):
        """``seat``'s order (signed when the seat has a key); its answer, accepted or refused, is
        one of the texts the seat reads."""
        order_id = order_id or uuid.uuid4().hex
        headers = {**self.headers[seat], "Idempotency-Key": order_id}
        if seat in self.keys:
            headers["Warlog-Signature"] = signatures.sign_order(self.keys[seat], self.game_id, order_id, order,
                                                                self.head)
            headers["Warlog-Head"] = self.head
        r = self.client.post(f"{API}/games/{self.game_id}/orders", json=order, headers=headers)
        self._said(seat, "order answers" if r.status_code < 300 else "refusals", r)
        if r.status_code >= 300:  # a token of an order never recorded is no secret: nobody can read it
            for token in [t for t in self.secrets.items if t in str(order)]:
                self.secrets.forget(token)
        return r

    def signed(self, seat: str, sign) -> dict:
        """The headers of a keyed seat's seal or reveal: ``sign(key, head)`` over the last head it
        saw (docs/dice.md, "Signed orders and heads"); none for a seat without a key."""
        if seat not in self.keys:
            return {}
        return {"Warlog-Signature": sign(self.keys[seat], self.head), "Warlog-Head": self.head}

    def call(self, seat: str, method: str, tail: str, body: Any = None, game_id: str | None = None,
             headers: dict | None = None):
        """Any other request of ``seat`` (take-backs, sealed orders, standing orders, a sandbox,
        a concession), its answer one of the texts the seat reads."""
        url = f"{API}/games/{game_id or self.game_id}{tail}"
        if headers is None and game_id is None:
            headers = self._command_signed(seat, method, tail, body)
        r = self.client.open(url, method=method, json=body, headers={**self.headers[seat], **(headers or {})})
        self._said(seat, "order answers" if r.status_code < 300 else "refusals", r)
        return r

    def _command_signed(self, seat: str, method: str, tail: str, body: Any) -> dict:
        """The headers of a keyed seat's other command (format 2, and its notification settings in
        every format; docs/dice.md, "Signed orders and heads"), signed over the last head it saw; none for another request or a seat without a key."""
        body = body if isinstance(body, dict) else {}
        if tail == "/take-backs" and method == "POST":
            kind, fields = "take_back", {"reason": body.get("reason") or ""}
        elif tail == "/take-backs/answer" and method == "POST":
            kind, fields = "take_back_answer", {"accept": bool(body.get("accept"))}
        elif tail == "/concede" and method == "POST":
            kind, fields = "concede", {}
        elif tail.startswith("/standing-orders/") and method == "PUT":
            kind, fields = "standing_order", {"policy_id": tail.split("/", 2)[2], "decision_kind": body.get(
                "decision_kind"), "policy": body.get("policy")}
        elif tail == "/notifications" and method == "PUT":
            kind, fields = "notifications", {"settings": body}
        elif tail.startswith("/standing-orders/") and method == "DELETE":
            kind, fields = "standing_order_cancel", {"policy_id": tail.split("/", 2)[2]}
        else:
            return {}
        return self.signed(seat, lambda key, head: signatures.sign_command(key, self.game_id, kind, seat, fields, head))

    def annotate(self, seat: str, about_seq: int, text: str, private: bool, annotation_id: str | None = None):
        """``seat``'s annotation on event ``about_seq`` (signed when the seat has a key); its answer
        is one of the texts the seat reads."""
        annotation_id = annotation_id or uuid.uuid4().hex
        kind = signatures.PRIVATE_ANNOTATION if private else signatures.ANNOTATION
        fields = {"annotation_id": annotation_id, "about_seq": about_seq, "text": text}
        headers = {"Idempotency-Key": annotation_id, **self.signed(seat, lambda key, head: signatures.sign_command(
            key, self.game_id, kind, seat, fields, head))}
        return self.call(seat, "POST", "/annotations", {"about_seq": about_seq, "text": text, "private": private},
                         headers=headers)

    def plant(self, what: str, *known_to: str) -> str:
        return self.secrets.plant(what, known_to)

    def state(self) -> dict:
        """The game's whole state: the test is the referee, it reads the store."""
        return self.service.get_game(self.game_id).state

    @property
    def ended(self) -> bool:
        return self.service.get_game(self.game_id).is_ended

    # ------------------------------------------------------------------------------- checking --
    def check(self, label: str, *, full: bool = False) -> None:
        """Read what every reader may read now and search it for the secrets hidden from it (a
        checkpoint during play; ``full``: every read, at the end of the game)."""
        stored = self.service.lines(self.game_id)
        version = stored[-1]["seq"]
        at = sorted(self.rng.sample(range(1, version + 1), min(3, version)))
        for reader in self.readers:
            texts = game_reads(self.client, self.game_id, reader, full=full, page=1 if full else self.rng.randint(2, 4),
                               at=at)
            if full:
                texts.items += self.said[reader.name].items if reader.name in self.said else []
                self.final[reader.name] = texts.items
            self._search(f"{self.label} ({label})", reader, texts, stored)
        if full:
            for sandbox in self.sandboxes:
                self._check_sandbox(sandbox)

    def _search(self, game: str, reader: Reader, texts: Texts, stored: list[dict], at: int | None = None,
                export: str | None = None) -> None:
        """Search ``texts`` for the secrets hidden from ``reader`` (as of event ``at``: see
        ``Secrets.hidden_from``) and for the values its export (read with ``texts``, or given)
        withholds."""
        self.errors += [f"{game}: {reader.name}: {e}" for e in texts.errors]
        if export is None:
            export = next(text for surface, text in texts.items if surface == "export")
        hidden = [*self.secrets.hidden_from(reader, at),
                  *(s for s in withheld(stored, export) if s.value not in self.secrets.items)]
        self.leaks += search(game, reader, texts.items, hidden)

    def _check_sandbox(self, sandbox: dict) -> None:
        """A sandbox a seat forked, read by a spectator and by its own admin: the source's secrets
        are as hidden there as in the source."""
        stored = self.service.lines(sandbox["game_id"])
        for reader in (Reader("spectator", None, {}), Reader("the sandbox's admin", None, sandbox["admin"])):
            texts = game_reads(self.client, sandbox["game_id"], reader, full=True)
            self._search(f"{self.label} (its sandbox)", reader, texts, stored)

    def check_texts(self, reader: Reader, texts: Texts, sent: list[tuple[int, str, str]] = ()) -> None:
        """Texts ``reader`` got after the end (artifacts), and ``sent``: (seq, surface, text) of
        what it was sent about event seq (mails, webhooks), searched as of that event."""
        stored = self.service.lines(self.game_id)
        export = self.client.get(f"{API}/games/{self.game_id}/export", headers=reader.headers).get_data(as_text=True)
        self._search(f"{self.label} (after the end)", reader, texts, stored, export=export)
        for seq, surface, text in sent:
            one = Texts()
            one.add_text(surface, text)
            self._search(f"{self.label} (sent about event {seq})", reader, one, stored, at=seq, export=export)

    def unseen(self) -> list[str]:
        """The planted secrets that none of the seats that may read them found in what they read
        at the end: the harness would be blind to them."""
        return [f"{self.label}: {s.what} ({s.value}) is read by none of {sorted(s.known_to)}"
                for s in self.secrets.items.values()
                if not any(seen_anywhere(self.final.get(seat, []), s.value) for seat in s.known_to)]
