"""The HTTP floor of benchmark 1: what the same server and client reach when an order costs
nothing. The same gunicorn settings (api/gunicorn_conf.py: 2 workers of the class the store gets, the access log),
the same Flask, the same client, connections and balancing as bench/orders.py, against an app
whose order endpoint only reads the JSON body and the headers an order carries and answers 201
with a body the size of a freeform order's result; no store, no rules, no dice.

Its rate is the most any order endpoint written with this stack can reach on this machine, so
``floor ÷ baseline`` says how far the goal of benchmark 1 is from what the stack itself allows."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid

from flask import Flask, jsonify, request

from bench.http import Connection

BODY = {"kind": "roll", "dice": "2d6", "purpose": "fire at hex 1234",
        "target": {"compare": ">=", "value": 7, "modifiers": [{"value": 1, "reason": "terrain"}]}}


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/healthz")
    def health():
        return jsonify(status="ok")

    @app.post("/api/v1/games/<game_id>/orders")
    def order(game_id: str):
        body = request.get_json()
        if not isinstance(body, dict) or not request.headers.get("Authorization") \
                or not request.headers.get("Idempotency-Key"):
            return jsonify(code="bad_request"), 400
        line = {"game_id": game_id, "type": "OrderAccepted", "timestamp": "2026-11-22T00:00:00+00:00",
                "prev_hash": "0" * 64, "hash": "1" * 64, "text": "an order"}
        response = jsonify({"game_id": game_id, "version": 2, "chain_head": "1" * 64, "replayed": False,
                            "order_id": request.headers["Idempotency-Key"],
                            "events": [{**line, "seq": 1, "data": body}, {**line, "seq": 2, "data": body}]})
        response.status_code = 201
        return response

    return app


async def load(host: str, port: int, workers: list[int], connections: int, warmup: float,
               duration: float) -> dict:
    """Orders/s and latencies inside the window, as bench/orders.py counts them."""
    from bench.orders import balance

    conns = [Connection(host, port) for _ in range(connections)]
    for conn in conns:
        await conn.request("GET", "/healthz")
    spread = await balance(conns, workers, port)
    start = time.perf_counter()
    window = (start + warmup, start + warmup + duration)
    latencies: list[float] = []
    status: dict[int, int] = {}

    async def drive(conn: Connection) -> None:
        while time.perf_counter() < window[1]:
            began = time.perf_counter()
            got, _, _ = await conn.request("POST", f"/api/v1/games/{uuid.uuid4()}/orders", BODY,
                                           {"Authorization": "Bearer wls_floor", "Idempotency-Key": uuid.uuid4().hex})
            done = time.perf_counter()
            if window[0] <= began and done <= window[1]:
                latencies.append(done - began)
                status[got] = status.get(got, 0) + 1

    try:
        await asyncio.gather(*(drive(c) for c in conns))
    finally:
        for conn in conns:
            await conn.close()
    lat = sorted(latencies)
    return {"orders_per_s": status.get(201, 0) / duration, "status": status, "spread": spread,
            "p50_ms": statistics.median(lat) * 1000 if lat else None,
            "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else None}
