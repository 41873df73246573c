"""Notification settings: a seat's e-mail, opt-out and choices, and a game's webhook.

- ``PUT /api/v1/games/{id}/notifications`` (the seat's token): ``{"email"?, "notify"?, "events"?,
  "channels"?, "digest"?, "webhook_url"?, "webhook_secret"?, "webhook_format"?}`` for the caller's
  own seat; a field left out keeps what was set before (the defaults: every reason, by mail, no
  digest, no webhook, which would get warlog's JSON). ``webhook_format`` takes the game webhook's
  formats.
  A seat webhook without a secret gets one generated, returned once. A seat that registered a key
  signs the body (Warlog-Signature, Warlog-Head; kind "notifications"), else 422 and nothing changes;
  each signature is used once (``AccessStore.use_signature``: a captured PUT sent again is 422
  ``signature_reused``), and ``"nonce"`` lets the same settings be signed again over the same head.
  An address gets no turn mail until its owner confirms it: a new address (or one not confirmed,
  given again) is sent one confirmation mail whose link opens ``/confirm-email`` (api/pages); at
  most ``CONFIRM_PER_ADDRESS`` such mails per address and ``CONFIRM_PER_SEAT`` per seat a day
  (domain/access), beyond which a new address is 429 ``too_many_confirmations`` and the PUT
  changes nothing (the seat's address given again is kept, with no mail).
- ``GET /api/v1/games/{id}/notifications`` (the seat's token): the seat's settings, no secret.
- ``POST /api/v1/email-confirmations`` (no token: the code is the proof): ``{"code": ...}``, the
  single-use secret of a confirmation mail; 200 once, then 409 ``confirmation_used``; 410
  ``confirmation_expired`` after ``CONFIRM_TTL``; 404 for a code never issued.
- ``PUT /api/v1/games/{id}/webhook`` (the admin token): ``{"url": ..., "secret"?: ..., "format"?: ...}``;
  deliveries are signed as Standard Webhooks says; without a secret one is generated and returned
  once. ``format``: "warlog" (its JSON, the default), "discord" or "slack" (a chat message).
  ``{"url": null}`` removes the webhook. A URL whose host is written as an internal address (or is
  a localhost name) is refused with 422 naming why; a name is not resolved here, but at each
  delivery, which refuses an internal address (workers/webhook_target).

Addresses and secrets never go into the event log (it is exported whole) and are never logged.
"""

from __future__ import annotations

from urllib.parse import urlparse

from flask import Blueprint, current_app, jsonify
from marshmallow import Schema, ValidationError, fields, validate, validates

from api.auth import ADMIN, SEAT, access, caller_for
from api.games import _signed_by_seat, load, service
from api.jsonbody import read_body
from api.problems import ApiProblem
from api.schemas import dump
from domain import signatures
from domain.access import CONFIRM_PREFIX, TooManyConfirmations
from domain.errors import SignatureReused
from workers import notify, webhook_target
from workers.notify import CHANNELS, CHOICES, Prefs
from workers.dispatch import NotifyStore
from workers.notify_jobs import public_url

bp = Blueprint("notify_settings", __name__, url_prefix="/api/v1")


def format_field(**kwargs) -> fields.String:
    """A webhook's ``format``, one of notify.FORMATS; the game's webhook and a seat's own take the same
    (a 422 names the field and the formats allowed)."""
    return fields.String(validate=validate.OneOf(notify.FORMATS), **kwargs)


FORMAT_TEXT = ("'warlog' (warlog's JSON), 'discord' ({\"content\": ...}) or 'slack' ({\"text\": ...}), a message "
               "naming the game and the seats to move, with its link")


def _http_url(value) -> None:
    if value is None:
        return
    try:
        parsed = urlparse(value)
    except ValueError:  # an unclosed IPv6 bracket: "http://[::1"
        raise ValidationError("an http:// or https:// URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.netloc or any(c.isspace() for c in value):
        raise ValidationError("an http:// or https:// URL")


class NotificationSettings(Schema):
    email = fields.Email(load_default=None, allow_none=True,
                         metadata={"description": "where turn mails go; omitted keeps the one given before"})
    notify = fields.Boolean(metadata={"description": "false: no mail for this seat; omitted keeps the choice "
                                                     "made before (at first: true)"})
    events = fields.List(fields.String(validate=validate.OneOf(CHOICES)), validate=validate.Length(max=4),
                         metadata={"description": "the reasons that notify the seat: `your_move` (its move, or in "
                                                  "a ruleset where every seat may act, the phase handed over), "
                                                  "`decision` (a decision it owes), `take_back` (a take-back "
                                                  "request it may answer), `game_over`; default all four"})
    channels = fields.List(fields.String(validate=validate.OneOf(CHANNELS)), validate=validate.Length(max=2),
                           metadata={"description": "`email`, `webhook` (the seat's own webhook_url) or both; "
                                                    "default [\"email\"]"})
    digest = fields.Boolean(metadata={"description": "true: one mail a day (WARLOG_DIGEST_HOUR, UTC) with what "
                                                     "happened, instead of one mail per event"})
    webhook_url = fields.String(allow_none=True, validate=[validate.Length(max=2000), _http_url],
                                metadata={"description": "the seat's own webhook, POSTed as the game's is signed, "
                                                         "carrying what this seat may see; null removes it. "
                                                         "The same internal-address rule as the game's webhook"})
    webhook_secret = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                                   metadata={"description": "the seat webhook's Standard Webhooks secret ('whsec_' "
                                                            "and the base64 of 24 to 64 bytes); omitted with a new "
                                                            "webhook_url: the server makes one, returned once"})
    webhook_format = format_field(metadata={"description": "the body the seat's webhook gets, as the game "
                                                           "webhook's `format`: " + FORMAT_TEXT + "; omitted "
                                                           "keeps the one chosen before (at first: 'warlog')"})
    nonce = fields.String(validate=validate.Length(min=1, max=100),
                          metadata={"description": "any text, a new one at each write, stored nowhere: a keyed "
                                                   "seat's signature of its settings is used once (422 "
                                                   "signature_reused again), and a nonce lets it sign the same "
                                                   "settings again over the same head"})

    @validates("webhook_secret")
    def _secret(self, value, **kwargs):
        problem = None if value is None else notify.secret_problem(value)
        if problem:
            raise ValidationError(problem)


class NotificationSettingsOut(Schema):
    game_id = fields.String()
    seat = fields.String()
    email = fields.String(allow_none=True, metadata={"description": "the seat's address (only the seat sees it)"})
    email_confirmed = fields.Boolean(metadata={"description": "whether the address's owner followed the link of "
                                                              "its confirmation mail; until then it gets no turn "
                                                              "mail, only that one mail"})
    confirmation_mail = fields.Boolean(metadata={"description": "true when this request asked for a confirmation "
                                                                "mail to the address (a new address, or one not "
                                                                "confirmed given again)"})
    notify = fields.Boolean()
    events = fields.List(fields.String())
    channels = fields.List(fields.String())
    digest = fields.Boolean()
    webhook_url = fields.String(allow_none=True)
    webhook_format = fields.String(metadata={"description": "the body the seat's webhook gets (warlog, discord "
                                                            "or slack)"})
    webhook_secret = fields.String(allow_none=True, metadata={"description": "the generated secret of a new seat "
                                                                             "webhook, shown once; else null"})


class Webhook(Schema):
    url = fields.String(required=True, allow_none=True, validate=validate.Length(max=2000),
                        metadata={"description": "http(s) URL that receives a signed JSON POST when a seat's "
                                                 "turn begins; null removes the webhook. Refused when its host "
                                                 "is written as a loopback, private, link-local, multicast or "
                                                 "reserved address, or is a localhost name (unless "
                                                 "WARLOG_WEBHOOK_ALLOW lists it); a name is resolved and "
                                                 "checked at each delivery"})
    secret = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                           metadata={"description": "a Standard Webhooks secret: 'whsec_' and the base64 of 24 "
                                                    "to 64 bytes; omitted: the server makes one and returns it "
                                                    "once"})
    format = format_field(load_default=notify.DEFAULT_FORMAT, metadata={"description": "the body: " + FORMAT_TEXT})

    @validates("secret")
    def _secret(self, value, **kwargs):
        problem = None if value is None else notify.secret_problem(value)
        if problem:
            raise ValidationError(problem)

    @validates("url")
    def _url(self, value, **kwargs):
        _http_url(value)


class WebhookOut(Schema):
    game_id = fields.String()
    url = fields.String(allow_none=True)
    secret = fields.String(allow_none=True, metadata={"description": "the generated secret, shown once; "
                                                                     "null when the caller chose it"})
    format = fields.String(allow_none=True, metadata={"description": "the body's format; null once removed"})
    signature = fields.String(metadata={"description": "how deliveries are signed (docs/api.md, \"Webhooks\")"})


SIGNATURE_TEXT = ("Standard Webhooks (https://www.standardwebhooks.com): webhook-signature = 'v1,' + "
                  "base64(HMAC-SHA256(key of the secret, webhook-id + '.' + webhook-timestamp + '.' + raw body)); "
                  "verify with standardwebhooks.Webhook(secret).verify(body, headers)")


def store() -> NotifyStore:
    found = current_app.extensions.get("warlog_notify")
    if found is None:
        found = current_app.extensions["warlog_notify"] = NotifyStore.for_service(current_app.extensions["warlog"])
    return found


class EmailConfirmation(Schema):
    code = fields.String(required=True, validate=validate.Length(min=len(CONFIRM_PREFIX) + 1, max=100),
                         metadata={"description": "the code of the confirmation mail's link (`wlc_...`)"})


class EmailConfirmed(Schema):
    game_id = fields.String()
    seat = fields.String()
    confirmed = fields.Boolean(metadata={"description": "true: the seat's turn mails go to this address now"})


# What a confirmation code that confirms nothing answers: (problem code, detail).
NOT_CONFIRMED = {
    "unknown": ("not_found", "no confirmation mail was sent with this code"),
    "used": ("confirmation_used", "this confirmation link was used already: the address is confirmed"),
    "expired": ("confirmation_expired", "this confirmation link has expired; give the address again for a new one"),
}


def confirm_code(code: str) -> dict:
    """Use a confirmation code once (AccessStore.confirm): the game and seat it confirmed an
    address for, or an ApiProblem naming why not."""
    outcome, found = access().confirm(code)
    if outcome != "confirmed":
        problem, detail = NOT_CONFIRMED[outcome]
        raise ApiProblem(problem, detail)
    return {"game_id": found["game_id"], "seat": found["seat"], "confirmed": True}


def _settings(game_id: str, seat: str, contact: dict | None, prefs: Prefs, secret: str | None = None,
              asked: bool = False) -> dict:
    email = (contact or {}).get("email")
    return dump(NotificationSettingsOut, {
        "game_id": game_id, "seat": seat, "email": email,
        "email_confirmed": bool(email) and (contact or {}).get("confirmed", False), "confirmation_mail": asked,
        "notify": bool(email) and (contact or {}).get("notify", True),
        "events": [c for c in CHOICES if c in prefs.events],
        "channels": [c for c in CHANNELS if c in prefs.channels], "digest": prefs.digest,
        "webhook_url": prefs.webhook_url, "webhook_format": prefs.webhook_format, "webhook_secret": secret})


@bp.get("/games/<game_id>/notifications")
def get_notifications(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    prefs = store().prefs(caller.game_id).get(caller.seat, Prefs())
    return jsonify(_settings(caller.game_id, caller.seat, access().contacts(caller.game_id).get(caller.seat), prefs))


@bp.put("/games/<game_id>/notifications")
def put_notifications(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(NotificationSettings)
    # A keyed seat signs its settings, the body as sent: a stolen token alone cannot silence its
    # mails or webhook (kind "notifications", docs/dice.md, "Signed orders and heads").
    checked = service().check_seat_request(caller.game_id, caller.seat, signatures.NOTIFICATIONS,
                                           {"settings": read_body()}, signature=signature, head=head)
    before = access().contacts(caller.game_id).get(caller.seat) or {}
    email = body["email"] or before.get("email")
    on = body.get("notify", before.get("notify", True))
    old = store().prefs(caller.game_id).get(caller.seat, Prefs())
    # A field left out keeps what the seat chose before.
    prefs = Prefs(frozenset(body.get("events", old.events)), frozenset(body.get("channels", old.channels)),
                  body.get("digest", old.digest), body.get("webhook_url", old.webhook_url),
                  body.get("webhook_format", old.webhook_format))
    if on and not email and (body.get("notify") or "email" in body.get("channels", ())):
        raise ApiProblem("invalid_request", "give an email to be notified",
                         errors={"email": ["required when notify is true and no address was given before"]})
    if "webhook" in prefs.channels and not prefs.webhook_url:
        raise ApiProblem("invalid_request", "give a webhook_url to be notified by webhook",
                         errors={"webhook_url": ["required when channels holds webhook"]})
    generated = None
    secret = body["webhook_secret"]
    if "webhook_url" in body and body["webhook_url"] is not None:
        _check_target(body["webhook_url"], field="webhook_url")
        # Only a new URL gets a new secret: the same one sent again (settings read and put back)
        # keeps the secret its receiver verifies with, unless that is no Standard Webhooks secret.
        kept = store().seat_webhook(caller.game_id, caller.seat) if body["webhook_url"] == old.webhook_url else None
        if secret is None and (kept is None or notify.secret_problem(kept["secret"])):
            secret = generated = notify.new_secret()
    # A keyed seat's signature is used once, before anything is stored: a PUT captured and sent
    # again (after the seat changed its settings) is refused, as a signed command is recorded once.
    if checked is not None and not access().use_signature(caller.game_id, caller.seat, signatures.NOTIFICATIONS,
                                                          checked[1]):
        raise SignatureReused(f"this signature of seat {caller.seat}'s notification settings was used already: "
                              "each write is signed anew (add a new 'nonce' to sign the same settings again "
                              "over the same head; docs/api.md, \"Notifications\")")
    # Before anything else is stored: a 429 changes nothing (and leaves the signature unused). A new
    # address given asks for its confirmation mail, in the one step that stores it
    # (AccessStore.save_contact); beyond the limits the seat's own address given again (a settings
    # form saved) keeps the rest, without a mail.
    asked = False
    if email:
        try:
            asked = access().save_contact(caller.game_id, caller.seat, email, on, ask=bool(body["email"]),
                                          refuse_new=True)
        except TooManyConfirmations as exc:
            if checked is not None:
                access().release_signature(checked[1])
            raise ApiProblem("too_many_confirmations", str(exc), {"Retry-After": str(exc.retry_after)}) from None
    if any(k in body for k in ("events", "channels", "digest", "webhook_url", "webhook_format")) or secret:
        store().set_prefs(caller.game_id, caller.seat, prefs, secret)
    return jsonify(_settings(caller.game_id, caller.seat, access().contacts(caller.game_id).get(caller.seat), prefs,
                             generated, asked))


@bp.post("/email-confirmations")
def post_email_confirmation():
    return jsonify(dump(EmailConfirmed, confirm_code(load(EmailConfirmation)["code"])))


def _check_target(url: str, field: str = "url") -> None:
    """Refuse, before storing it, a URL the worker would refuse to POST to, as far as that is known
    without asking DNS (workers/webhook_target.check_written): a slow resolver must not hold the
    request. A name is resolved at each delivery, which refuses an internal address."""
    try:
        webhook_target.check_written(url, own=public_url())
    except webhook_target.Refused as exc:
        raise ApiProblem("invalid_request", str(exc), errors={field: [str(exc)]}) from None


@bp.put("/games/<game_id>/webhook")
def put_webhook(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    body = load(Webhook)
    generated = None
    if body["url"] is None:
        store().set_webhook(caller.game_id, None)
    else:
        _check_target(body["url"])
        secret = body["secret"]
        if secret is None:
            secret = generated = notify.new_secret()
        store().set_webhook(caller.game_id, body["url"], secret, body["format"])
    return jsonify(dump(WebhookOut, {"game_id": caller.game_id, "url": body["url"], "secret": generated,
                                      "format": body["format"] if body["url"] else None,
                                      "signature": SIGNATURE_TEXT}))
