"""Replays: the state after every event, and one offline HTML file that steps through them.

Pure functions over export lines (docs/workers.md):

- ``frames(lines, viewer, progress=None)``: one frame per event the viewer may see, with the
  state after it (the ruleset's ``evolve``, exactly the aggregate's fold, through
  ``projections.folds.map_apply``; then ``view`` for the viewer), its readable line, its dice with
  their verification status, the VP totals, and markers for operation, phase and turn boundaries.
  States are stored once per change (``states`` + an index per frame), so a long game whose state
  changes rarely stays small.
- ``replay_html(replay)``: one self-contained HTML file (inline CSS and JS, the frames JSON with
  the VP chart and the ruleset's ``board()`` embedded, nothing fetched from the network). It is
  the live replay page made offline: the same markup (``api/templates/pages/replay_body.html``)
  and the live pages' own ``replay.js``, ``board.js``, ``common.js`` and ``warlog.css``, inlined
  verbatim; ``replay.js`` reads the frames from the page instead of the API.

The fold always sees the whole log (the state needs every event); what the viewer may not see is
removed by ``domain.visibility`` before anything is shown: the state through ``view_state``, the
lines through ``filter_lines``.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from html import escape
from importlib import resources
from typing import Any, Callable

from jinja2 import Template

from domain.rulesets import find_ruleset
from domain.verify import dumps
from domain.visibility import filter_lines, fully_shown, view_state
from projections import folds
from projections.narrate import describe
from workers.stats import line_chart_svg

Progress = Callable[[int, int], None]  # (frames done, frames in all)
PROGRESS_EVERY = 200
OPERATION_STARTS = folds.COMMAND_TYPES | {"OrderAccepted", "GameCreated"}


def frames(lines: list[dict], viewer: str | None = "umpire", progress: Progress | None = None,
           every: int = PROGRESS_EVERY) -> dict:
    """The replay of a game for ``viewer`` ("umpire": everything; None: the public view; a seat)."""
    if not lines or lines[0]["type"] != "GameCreated":
        raise ValueError("a replay needs a game's log from its first line (GameCreated)")
    game_id = lines[0]["game_id"]
    rules = find_ruleset(lines[0]["data"]["ruleset"])
    shown = {line["seq"]: line for line in filter_lines(rules, lines, viewer)}
    rolls, _ = folds.render_dice(folds.fold("dice", lines), rules, viewer, game_id)
    dice_by_seq = {r["seq"]: r for r in rolls}
    gone = folds.taken_back(shown.values())  # lines a take-back replaced, marked as the dice are
    map_view, vp_view = folds.map_empty(), folds.vp_empty()
    out: list[dict] = []
    by_seq: dict[int, dict] = {}  # seq -> its frame, where annotations on it are put
    states: list[dict] = []
    last_state_json = None
    vp_shown = (None, None, None)  # (track, initial, totals): totals change only with the VP view's track
    prev_turn = prev_phase = None
    operation = 0
    total = len(lines)
    for n, line in enumerate(lines, start=1):
        map_view = folds.map_apply(map_view, line)
        vp_view = folds.vp_apply(vp_view, line)
        if progress is not None and (n % every == 0 or n == total):
            progress(n, total)
        seen = shown.get(line["seq"])
        if seen is None:
            continue  # an event this viewer may not know of at all: no frame
        if folds.is_annotation(seen):  # shown beside the event it is about, not as a step of its own
            note = folds.annotation_entry(seen)
            target = by_seq.get(note["about_seq"]) if note else None
            if target is not None:
                target.setdefault("annotations", []).append({k: v for k, v in note.items() if k != "about_seq"})
            continue
        state = view_state(rules, map_view["state"], viewer)
        state_json = json.dumps(state, sort_keys=True)
        if state_json != last_state_json:
            states.append(state)
            last_state_json = state_json
        turn, phase = state.get("turn"), state.get("phase")
        marks = []
        if line["type"] in OPERATION_STARTS or not out:
            operation += 1
            marks.append("operation")
        if out and turn != prev_turn:
            marks.append("turn")
        if out and (phase != prev_phase or turn != prev_turn):
            marks.append("phase")
        prev_turn, prev_phase = turn, phase
        if vp_shown[0] is not vp_view["track"] or vp_shown[1] is not vp_view["initial"]:
            vp_shown = (vp_view["track"], vp_view["initial"], folds.render_vp(vp_view, rules, viewer, game_id)[0])
        totals = vp_shown[2]
        frame = {"seq": line["seq"], "type": line["type"], "text": describe(seen, rules), "turn": turn, "phase": phase,
                 "operation": operation, "marks": marks, "state": len(states) - 1, "vp": totals,
                 "whose_move": map_view["whose_move"], "redacted": not fully_shown(seen),
                 "superseded": line["seq"] in gone}
        roll = dice_by_seq.get(line["seq"])
        if roll is not None:
            frame["dice"] = {"seat": roll["seat"], "purpose": roll["purpose"], "notation": (seen.get("data") or {}).get("notation"),
                             "faces": [d.get("value") for d in roll["dice"] or [] if isinstance(d, dict)],
                             "sides": [d.get("sides") for d in roll["dice"] or [] if isinstance(d, dict)],
                             "target": roll["target"], "outcome": roll["outcome"],
                             "superseded": roll["superseded"], "status": roll["status"]}
        out.append(frame)
        by_seq[line["seq"]] = frame
    created = lines[0]["data"]
    return {"game_id": game_id, "ruleset": created.get("ruleset"), "title": rules.title, "vp_note": rules.vp_note,
            "unit_of_play": rules.unit_of_play,
            "scenario": created.get("scenario"), "version": lines[-1]["seq"],
            "viewer": "umpire" if viewer == "umpire" else ("public" if viewer is None else viewer),
            "states": states, "frames": out}


def seen_log(lines: list[dict], viewer: str | None) -> list[dict]:
    """The export lines ``viewer`` may see: what their export holds, and what the offline file
    checks in the browser (``replay_html``'s ``log``)."""
    return filter_lines(find_ruleset(lines[0]["data"]["ruleset"]), lines, viewer)


def _vp_points(replay: dict) -> dict[str, list[tuple[float, float]]]:
    series: dict[str, list[tuple[float, float]]] = {}
    for i, frame in enumerate(replay["frames"]):
        for side, total in (frame["vp"] or {}).items():
            if not isinstance(total, (int, float)):
                continue
            pts = series.setdefault(side, [])
            if not pts or pts[-1][1] != total:
                pts.append((i, total))
    return series


def vp_chart(replay: dict) -> str | None:
    """The replay's VP chart as SVG, a cursor line (``id="cursor"``) for the step; None when no VP was scored."""
    series = _vp_points(replay)
    if not series:
        return None
    return line_chart_svg(series, "Victory points", x_max=max(len(replay["frames"]) - 1, 1), height=220, cursor=True)


def _embed(value: Any) -> str:
    """JSON safe inside <script>: no '</' can end the element early, no '<!--' opens a comment."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# The live pages' own files, inlined verbatim: replay.js steps through the frames, board.js draws
# the map (both need common.js's DOM helpers, which also give the dice and VP table), warlog.css
# styles the page.
STATIC = ("common.js", "board.js", "replay.js", "warlog.css")
_UNSAFE_INLINE = re.compile(r"</(script|style)|<!--", re.I)


@lru_cache(maxsize=None)
def static_text(name: str) -> str:
    """A file of ``api/static`` (package data), checked safe to inline in a <script> or <style>."""
    text = resources.files("api").joinpath("static", name).read_text(encoding="utf-8")
    if _UNSAFE_INLINE.search(text):
        raise ValueError(f"api/static/{name} holds '</script', '</style' or '<!--' and cannot be inlined")
    return text


# The browser's verifier (api/static/verify/), its modules in the order they import one another.
# A page opened from disk may not load a module file, so the offline file holds them as one
# inline module: each module's text, verbatim but for its import and export words, in a function
# scope of its own whose exports the modules after it read.
VERIFY_MODULES = ("json.js", "canonical.js", "crypto.js", "chain.js", "dice.js", "rolls.js", "verify.js", "page.js")
_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z]+)\.js";\n', re.M)
_EXPORT = re.compile(r"^export ((?:async )?function|class|const) ([A-Za-z_$][\w$]*)", re.M)


@lru_cache(maxsize=None)
def verifier_module() -> str:
    """The modules of api/static/verify as the text of one inline ``<script type="module">``."""
    scopes = []
    for name in VERIFY_MODULES:
        text = static_text(f"verify/{name}")
        exported = [m.group(2) for m in _EXPORT.finditer(text)]
        body = _IMPORT.sub(lambda m: f"const {{{m.group(1)}}} = verify_{m.group(2)};\n", text)
        body = _EXPORT.sub(lambda m: f"{m.group(1)} {m.group(2)}", body)
        if re.search(r"^\s*(import|export)\b", body, re.M):
            raise ValueError(f"api/static/verify/{name}: an import or export this bundling does not read")
        scopes.append(f"const verify_{name[:-3]} = (() => {{\n{body}\nreturn {{ {', '.join(exported)} }};\n}})();")
    return "\n".join(scopes)


@lru_cache(maxsize=None)
def replay_body() -> str:
    """The replay viewer's markup, as the live page includes it (``api/templates/pages/replay_body.html``),
    with the offline file's one extra: the state as JSON under the map."""
    source = resources.files("api").joinpath("templates", "pages", "replay_body.html").read_text(encoding="utf-8")
    return Template(source, autoescape=True).render(offline=True)


RULESET_BOARD = object()  # replay_html's default: the board() of the replay's ruleset
_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``1 == True`` in Python, not once written)."""
    return a == b and json.dumps(a) == json.dumps(b)


def state_deltas(states: list[dict]) -> list[dict]:
    """``states`` written as the first in full, then each as its change from the one before, two
    levels deep: ``{"set": {key: value}, "drop": [key], "patch": {key: {"set": {…}, "drop": […]}}}``
    (a dict held in both, e.g. the units, changes only where it changed). A game's states differ
    by little from one event to the next, so the page is many times smaller; ``api/static/replay.js``
    rebuilds every state when the page opens (``unpack``)."""
    out: list[dict] = []
    for n, state in enumerate(states):
        if n == 0:
            out.append(state)
            continue
        before, change = states[n - 1], {}
        dropped = [k for k in before if k not in state]
        put, patches = {}, {}
        for key, value in state.items():
            old = before.get(key, _MISSING)
            if old is not _MISSING and _same(old, value):
                continue
            if isinstance(old, dict) and isinstance(value, dict):
                inner = {k: v for k, v in value.items() if k not in old or not _same(old[k], v)}
                gone = [k for k in old if k not in value]
                patches[key] = {"set": inner, **({"drop": gone} if gone else {})}
            else:
                put[key] = value
        for name, part in (("set", put), ("drop", dropped), ("patch", patches)):
            if part:
                change[name] = part
        out.append(change)
    return out


def replay_html(replay: dict, board: Any = RULESET_BOARD, log: list[dict] | None = None,
                server_key: str | None = None) -> str:
    """One HTML file that steps through ``replay`` offline, the map drawn from ``board`` (by
    default the ruleset's ``board()``; None: no map, the log and the dice only). ``log``: the
    export lines the replay's viewer may see (``domain.visibility.filter_lines``), which the page
    checks in the browser as `warlog verify` would (docs/pages.md); ``server_key`` checks kept heads."""
    if board is RULESET_BOARD:
        board = find_ruleset(replay["ruleset"]).board()
    text = "".join(dumps(line) + "\n" for line in log) if log is not None else None
    title = f"Replay — {replay['title']} — game {replay['game_id']} (version {replay['version']}, {replay['viewer']} view)"
    data = {**{k: v for k, v in replay.items() if k != "states"},
            "state_deltas": state_deltas(replay["states"]), "vp_chart": vp_chart(replay)}
    parts = {"TITLE": escape(title), "GAME_ID": escape(str(replay["game_id"])), "BODY": replay_body(),
             "DATA": _embed(data), "BOARD": _embed(board), "CSS": static_text("warlog.css"),
             "COMMON_JS": static_text("common.js"), "BOARD_JS": static_text("board.js"),
             "REPLAY_JS": static_text("replay.js"), "VERIFY_JS": verifier_module(),
             "LOG": _embed({"text": text, "server_key": server_key})}
    # One pass over the template: nothing substituted (a log's text, a file) is scanned again.
    return re.sub(r"@@([A-Z_]+)@@", lambda m: parts[m.group(1)], _PAGE)


# The live replay page (api/templates/pages/replay.html) without a server: its markup, its scripts
# inlined, the data they would fetch embedded as JSON, and a CSP that lets the page load nothing.
_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@TITLE@@</title>
<style id="warlog-css">
@@CSS@@
</style>
<style>
/* the offline replay only: the state as JSON */
.replay-grid .state-box summary { cursor: pointer; color: var(--muted); }
</style></head>
<body data-page="replay" data-game-id="@@GAME_ID@@">
<header class="site"><nav aria-label="Site"><span class="brand">warlog</span><span>offline replay</span></nav></header>
<main id="main" tabindex="-1">
@@BODY@@
</main>
<script type="application/json" id="replay">@@DATA@@</script>
<script type="application/json" id="board-data">@@BOARD@@</script>
<script id="common-js">
@@COMMON_JS@@
</script>
<script id="board-js">
@@BOARD_JS@@
</script>
<script id="replay-js">
@@REPLAY_JS@@
</script>
<script type="application/json" id="export-log">@@LOG@@</script>
<script type="module" id="verify-js">
@@VERIFY_JS@@
</script>
</body></html>
"""
