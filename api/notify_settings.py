"""Notification settings: a seat's e-mail and opt-out, and a game's webhook.

- ``PUT /api/v1/games/{id}/notifications`` (the seat's token): ``{"email"?: ..., "notify": bool}``
  for the caller's own seat; without ``email`` the address given before is kept.
- ``PUT /api/v1/games/{id}/webhook`` (the admin token): ``{"url": ..., "secret"?: ..., "format"?: ...}``;
  deliveries are signed as Standard Webhooks says; without a secret one is generated and returned
  once. ``format``: "warlog" (its JSON, the default), "discord" or "slack" (a chat message).
  ``{"url": null}`` removes the webhook. A URL whose host resolves to an internal address is
  refused with 422 naming why (workers/webhook_target).

Addresses and secrets never go into the event log (it is exported whole) and are never logged.
"""

from __future__ import annotations

from urllib.parse import urlparse

from flask import Blueprint, current_app, jsonify
from marshmallow import Schema, ValidationError, fields, validate, validates

from api.auth import ADMIN, SEAT, access, caller_for
from api.games import load
from api.problems import ApiProblem
from api.schemas import dump
from workers import notify, webhook_target
from workers.dispatch import NotifyStore
from workers.notify_jobs import public_url

bp = Blueprint("notify_settings", __name__, url_prefix="/api/v1")


class NotificationSettings(Schema):
    email = fields.Email(load_default=None, allow_none=True,
                         metadata={"description": "where turn mails go; omitted keeps the one given before"})
    notify = fields.Boolean(required=True, metadata={"description": "false: no turn mails for this seat"})


class NotificationSettingsOut(Schema):
    game_id = fields.String()
    seat = fields.String()
    email = fields.String(allow_none=True, metadata={"description": "the seat's address (only the seat sees it)"})
    notify = fields.Boolean()


class Webhook(Schema):
    url = fields.String(required=True, allow_none=True, validate=validate.Length(max=2000),
                        metadata={"description": "http(s) URL that receives a signed JSON POST when a seat's "
                                                 "turn begins; null removes the webhook. Refused when its host "
                                                 "resolves to a loopback, private, link-local, multicast or "
                                                 "reserved address (unless WARLOG_WEBHOOK_ALLOW lists it)"})
    secret = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                           metadata={"description": "a Standard Webhooks secret: 'whsec_' and the base64 of 24 "
                                                    "to 64 bytes; omitted: the server makes one and returns it "
                                                    "once"})
    format = fields.String(load_default=notify.DEFAULT_FORMAT, validate=validate.OneOf(notify.FORMATS),
                           metadata={"description": "the body: 'warlog' (warlog's JSON), 'discord' "
                                                    "({\"content\": ...}) or 'slack' ({\"text\": ...}), a message "
                                                    "naming the game and the seats to move, with its link"})

    @validates("secret")
    def _secret(self, value, **kwargs):
        problem = None if value is None else notify.secret_problem(value)
        if problem:
            raise ValidationError(problem)

    @validates("url")
    def _url(self, value, **kwargs):
        if value is None:
            return
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc or any(c.isspace() for c in value):
            raise ValidationError("an http:// or https:// URL")


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


@bp.put("/games/<game_id>/notifications")
def put_notifications(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    body = load(NotificationSettings)
    email = body["email"] or (access().contacts(caller.game_id).get(caller.seat) or {}).get("email")
    if body["notify"] and not email:
        raise ApiProblem("invalid_request", "give an email to be notified",
                         errors={"email": ["required when notify is true and no address was given before"]})
    access().set_contact(caller.game_id, caller.seat, email, body["notify"])
    return jsonify(dump(NotificationSettingsOut, {"game_id": caller.game_id, "seat": caller.seat,
                                                   "email": email, "notify": body["notify"] and bool(email)}))


def _check_target(url: str) -> None:
    """Refuse, before storing it, a URL the worker would refuse to POST to (workers/webhook_target)."""
    try:
        webhook_target.check(url, own=public_url())
    except webhook_target.Refused as exc:
        raise ApiProblem("invalid_request", str(exc), errors={"url": [str(exc)]}) from None


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
