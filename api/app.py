"""The Flask app factory (flaskr style). The game API of issue 3 is built on this."""

from __future__ import annotations

from flask import Flask, jsonify

from domain.rulesets import find_ruleset, ruleset_names
from domain.service import Warlog


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(MAX_CONTENT_LENGTH=256 * 1024)
    if test_config:
        app.config.from_mapping(test_config)
    service = app.config.get("WARLOG_SERVICE") or Warlog()
    app.extensions["warlog"] = service

    @app.get("/healthz")
    def health():
        # A real round trip to the store: the notification log's head.
        head = service.recorder.max_notification_id()
        return jsonify(status="ok", store=service.config.kind, events=head or 0)

    @app.get("/api/v1/rulesets")
    def rulesets():
        return jsonify([{"name": n, "title": find_ruleset(n).title} for n in ruleset_names()])

    return app
