"""Generated export lines for the pure statistics (no store needed): a freeform game with the
rolls, d66 rolls, VP changes, turns and ending asked for."""

from __future__ import annotations

import uuid


def line(lines: list[dict], kind: str, data: dict) -> dict:
    return {"game_id": lines[0]["game_id"] if lines else str(uuid.uuid4()), "seq": len(lines) + 1, "type": kind,
            "data": data, "timestamp": "2026-01-01T00:00:00+00:00", "prev_hash": "", "hash": ""}


def generated_game(rolls=(), d66=(), vp=(), winner="Blue", turns=1, sides=("Blue", "Red")) -> list[dict]:
    """``rolls``: (seat, faces, target or None, outcome or None); ``d66``: (seat, [tens, units], …);
    ``vp``: (side, new total); ``turns``: the turn the game ends in; ``winner``: a side, None
    (a draw) or "-" (not ended)."""
    lines: list[dict] = []
    setup = {"turn": 1, "phase": "Turn", "phases": ["Turn"], "sides": list(sides), "vp": {s: 0 for s in sides}}
    lines.append(line(lines, "GameCreated", {"ruleset": "freeform", "scenario": "freeform", "seats": list(sides),
                                             "options": {}, "setup": setup}))
    for seat in sides:
        lines.append(line(lines, "SeatJoined", {"seat": seat, "handle": seat.lower(), "client_seed": ""}))
    lines.append(line(lines, "DiceEpochOpened", {"epoch": 1, "commitment": "0" * 64, "client_entropy": ""}))
    nonce = 0
    n = 0
    for notation, batch in (("", rolls), ("d66", d66)):
        for seat, faces, target, outcome in batch:
            n += 1
            order = {"kind": "roll", "dice": notation or f"{len(faces)}d6", "purpose": "fire"}
            lines.append(line(lines, "OrderAccepted", {"seat": seat, "order_id": f"o{n}", "order": order}))
            dice = []
            for f in faces:
                dice.append({"sides": 6, "value": f, "nonce": nonce})
                nonce += 1
            data = {"seat": seat, "epoch": 1, "purpose": "fire", "dice": dice, "units": [], "rule": None,
                    "replaces": None, "notation": notation or f"{len(faces)}d6", "target": None, "outcome": None}
            if target is not None:
                data["target"] = {**target, "result": sum(faces)}
                data["outcome"] = outcome
            lines.append(line(lines, "DiceRolled", data))
    for side, total in vp:
        n += 1
        lines.append(line(lines, "OrderAccepted", {"seat": side, "order_id": f"o{n}", "order": {"kind": "vp"}}))
        lines.append(line(lines, "VPScored", {"side": side, "delta": 1, "total": total, "reason": "r", "rule": "FF 4"}))
    for turn in range(2, turns + 1):
        n += 1
        lines.append(line(lines, "OrderAccepted", {"seat": sides[0], "order_id": f"o{n}", "order": {"kind": "advance"}}))
        lines.append(line(lines, "TurnAdvanced", {"turn": turn, "phase": "Turn", "rule": "FF 2"}))
    if winner != "-":
        n += 1
        lines.append(line(lines, "OrderAccepted", {"seat": sides[0], "order_id": f"o{n}", "order": {"kind": "end"}}))
        lines.append(line(lines, "GameEnded", {"winner": winner, "level": None, "reason": "r", "rule": "FF 5"}))
    return lines
