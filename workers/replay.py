"""Replays: the state after every event, and one offline HTML file that steps through them.

Pure functions over export lines (docs/workers.md):

- ``frames(lines, viewer, progress=None)``: one frame per event the viewer may see, with the
  state after it (the ruleset's ``evolve``, exactly the aggregate's fold, through
  ``projections.folds.map_apply``; then ``view`` for the viewer), its readable line, its dice with
  their verification status, the VP totals, and markers for operation, phase and turn boundaries.
  States are stored once per change (``states`` + an index per frame), so a long game whose state
  changes rarely stays small.
- ``replay_html(replay)``: one self-contained HTML file (inline CSS, JS and SVG, the frames JSON
  and the ruleset's ``board()`` embedded, nothing fetched from the network). The map is drawn by
  the live pages' own ``api/static/board.js`` (with ``common.js`` and ``warlog.css``), inlined
  verbatim, so the offline and the live replay draw it the same way.

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

from domain.rulesets import find_ruleset
from domain.visibility import filter_lines, view_state
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
    map_view, vp_view = folds.map_empty(), folds.vp_empty()
    out: list[dict] = []
    states: list[dict] = []
    last_state_json = None
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
        totals, _ = folds.render_vp(vp_view, rules, viewer, game_id)
        frame = {"seq": line["seq"], "type": line["type"], "text": describe(seen), "turn": turn, "phase": phase,
                 "operation": operation, "marks": marks, "state": len(states) - 1, "vp": totals,
                 "whose_move": map_view["whose_move"], "redacted": bool(seen.get("redacted"))}
        roll = dice_by_seq.get(line["seq"])
        if roll is not None:
            frame["dice"] = {"seat": roll["seat"], "purpose": roll["purpose"], "notation": (seen.get("data") or {}).get("notation"),
                             "faces": [d.get("value") for d in roll["dice"] or [] if isinstance(d, dict)],
                             "sides": [d.get("sides") for d in roll["dice"] or [] if isinstance(d, dict)],
                             "target": roll["target"], "outcome": roll["outcome"],
                             "superseded": roll["superseded"], "status": roll["status"]}
        out.append(frame)
    created = lines[0]["data"]
    return {"game_id": game_id, "ruleset": created.get("ruleset"), "title": rules.title,
            "scenario": created.get("scenario"), "version": lines[-1]["seq"],
            "viewer": "umpire" if viewer == "umpire" else ("public" if viewer is None else viewer),
            "states": states, "frames": out}


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



def _embed(value: Any) -> str:
    """JSON safe inside <script>: no '</' can end the element early, no '<!--' opens a comment."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# The live pages' own files, inlined verbatim: board.js draws the map (it needs common.js's DOM
# helpers, which also give the dice and VP table), warlog.css styles both.
STATIC = ("common.js", "board.js", "warlog.css")
_UNSAFE_INLINE = re.compile(r"</(script|style)|<!--", re.I)


@lru_cache(maxsize=None)
def static_text(name: str) -> str:
    """A file of ``api/static`` (package data), checked safe to inline in a <script> or <style>."""
    text = resources.files("api").joinpath("static", name).read_text(encoding="utf-8")
    if _UNSAFE_INLINE.search(text):
        raise ValueError(f"api/static/{name} holds '</script', '</style' or '<!--' and cannot be inlined")
    return text


RULESET_BOARD = object()  # replay_html's default: the board() of the replay's ruleset
_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``1 == True`` in Python, not once written)."""
    return a == b and json.dumps(a) == json.dumps(b)


def state_deltas(states: list[dict]) -> list[dict]:
    """``states`` written as the first in full, then each as its change from the one before, two
    levels deep: ``{"set": {key: value}, "drop": [key], "patch": {key: {"set": {…}, "drop": […]}}}``
    (a dict held in both, e.g. the units, changes only where it changed). A game's states differ
    by little from one event to the next, so the page is many times smaller; its player rebuilds
    every state when it opens (``unpack`` in ``_PLAYER``)."""
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


def replay_html(replay: dict, board: Any = RULESET_BOARD) -> str:
    """One HTML file that steps through ``replay`` offline, the map drawn from ``board`` (by
    default the ruleset's ``board()``; None: no map, the log and the dice only)."""
    if board is RULESET_BOARD:
        board = find_ruleset(replay["ruleset"]).board()
    chart = line_chart_svg(_vp_points(replay), "Victory points", x_max=max(len(replay["frames"]) - 1, 1),
                           height=220, cursor=True)
    title = f"Replay — {replay['title']} — game {replay['game_id']} (version {replay['version']}, {replay['viewer']} view)"
    summary = (f"Game {replay['game_id']} · {len(replay['frames'])} events · version {replay['version']} · "
               f"{replay['viewer']} view · {replay['title']}")
    parts = {"TITLE": escape(title), "HEADING": escape("Replay: " + str(replay["title"]).split(":")[0]),
             "SUMMARY": escape(summary), "CHART": chart,
             "DATA": _embed({**{k: v for k, v in replay.items() if k != "states"},
                             "state_deltas": state_deltas(replay["states"])}), "BOARD": _embed(board),
             "CSS": static_text("warlog.css"), "COMMON_JS": static_text("common.js"),
             "BOARD_JS": static_text("board.js"), "PLAYER_JS": _PLAYER}
    # One pass over the template: nothing substituted (a log's text, a file) is scanned again.
    return re.sub(r"@@([A-Z_]+)@@", lambda m: parts[m.group(1)], _PAGE)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@TITLE@@</title>
<style id="warlog-css">
@@CSS@@
</style>
<style>
/* the offline replay only */
.replay-grid .state-box summary { cursor: pointer; color: var(--muted); }
#history ol { padding-left: 3.2rem; margin: 0; font-size: .9rem; }
#history li.current { background: var(--mark); font-weight: 600; }
#history li button.linkish { display: block; width: 100%; }
</style></head>
<body>
<header class="site"><nav><span class="brand">warlog</span><span>offline replay</span></nav></header>
<main>
<h1 id="title">@@HEADING@@</h1>
<p id="summary" class="summary">@@SUMMARY@@</p>
<section id="controls" aria-label="Replay controls">
  <div class="row buttons">
    <button type="button" id="first" aria-keyshortcuts="Home" title="First event (Home)">First</button>
    <button type="button" id="prev-turn" aria-keyshortcuts="PageUp" title="Previous turn (PageUp)">« turn</button>
    <button type="button" id="prev-phase" aria-keyshortcuts="Shift+ArrowUp" title="Previous phase (Shift+↑)">‹ phase</button>
    <button type="button" id="prev-op" aria-keyshortcuts="Shift+ArrowLeft" title="Previous operation (Shift+←)">‹ op</button>
    <button type="button" id="prev" aria-keyshortcuts="ArrowLeft" title="Previous event (←)">‹ event</button>
    <button type="button" id="play" aria-keyshortcuts="Space" aria-pressed="false" title="Play / pause (Space)">▶ Play</button>
    <button type="button" id="next" aria-keyshortcuts="ArrowRight" title="Next event (→)">event ›</button>
    <button type="button" id="next-op" aria-keyshortcuts="Shift+ArrowRight" title="Next operation (Shift+→)">op ›</button>
    <button type="button" id="next-phase" aria-keyshortcuts="Shift+ArrowDown" title="Next phase (Shift+↓)">phase ›</button>
    <button type="button" id="next-turn" aria-keyshortcuts="PageDown" title="Next turn (PageDown)">turn »</button>
    <button type="button" id="last" aria-keyshortcuts="End" title="Last event (End)">Last</button>
  </div>
  <div class="row">
    <label for="scrub">Position</label>
    <input id="scrub" type="range" min="0" max="0" value="0">
  </div>
  <p id="pos" class="pos" aria-live="polite"></p>
  <details class="keys"><summary>Keyboard</summary>
    <p>← → event · Shift+← → operation · Shift+↑ ↓ phase · PageUp/PageDown turn · Home/End first/last ·
    Space play/pause.</p>
  </details>
</section>
<div class="replay-grid">
  <section aria-labelledby="step-h" class="step">
    <h2 id="step-h">Step</h2>
    <p id="where"></p>
    <p id="line" class="line"></p>
    <div id="dice"></div>
  </section>
  <section aria-labelledby="board-h" class="map">
    <h2 id="board-h">Map</h2>
    <div id="board" class="board"></div>
    <details class="state-box" id="state-box"><summary>State (JSON)</summary><pre id="state"></pre></details>
  </section>
  <section aria-labelledby="vp-h" class="vp">
    <h2 id="vp-h">VP</h2>
    <div id="chart" class="chart">@@CHART@@</div>
    <div id="vp"></div>
  </section>
  <section aria-labelledby="history-h" class="history">
    <h2 id="history-h">History</h2>
    <div id="history" class="history-list" tabindex="0" aria-label="History, the current event marked"><ol id="log"></ol></div>
  </section>
</div>
</main>
<script type="application/json" id="replay">@@DATA@@</script>
<script type="application/json" id="board-data">@@BOARD@@</script>
<script id="common-js">
@@COMMON_JS@@
</script>
<script id="board-js">
@@BOARD_JS@@
</script>
<script id="player-js">
@@PLAYER_JS@@
</script>
</body></html>
"""

# The offline player: steps through the embedded frames; the map is drawn by board.js exactly as
# the live replay page draws it (what the current operation moved or hit so far highlighted).
_PLAYER = r"""(function () {
  "use strict";
  var W = window.Warlog, $ = W.$;
  var R = JSON.parse($("replay").textContent), board = JSON.parse($("board-data").textContent);
  var F = R.frames || [], S = unpack(R.state_deltas || []), at = 0, timer = null, opStart = [], rows = [], lit = null;
  W.offlineReplay = { frames: F, states: S, board: board };  // for a look from the browser's console

  /** The states from state_deltas (workers/replay.py): the first in full, then each one's change.
   * Keys are defined, not assigned, so a key such as "__proto__" (a freeform side's name) stays data. */
  function unpack(deltas) {
    function put(o, k, v) { Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true }); }
    function copy(o) { var c = {}; Object.keys(o || {}).forEach(function (k) { put(c, k, o[k]); }); return c; }
    function apply(o, d) {
      (d.drop || []).forEach(function (k) { delete o[k]; });
      Object.keys(d.set || {}).forEach(function (k) { put(o, k, d.set[k]); });
      return o;
    }
    var out = [];
    deltas.forEach(function (d, n) {
      if (n === 0) { out.push(d); return; }
      var before = out[n - 1], state = apply(copy(before), d);
      Object.keys(d.patch || {}).forEach(function (k) { put(state, k, apply(copy(before[k]), d.patch[k])); });
      out.push(state);
    });
    return out;
  }

  function find(from, dir, mark) {
    for (var n = from + dir; n >= 0 && n < F.length; n += dir) {
      if (F[n].marks.indexOf(mark) >= 0) return n;
    }
    return dir > 0 ? F.length - 1 : 0;
  }

  /** Back by an operation, phase or turn: to the start of the current one, or of the one before when already there. */
  function back(mark) {
    var start = at;
    while (start > 0 && F[start].marks.indexOf(mark) < 0) start--;
    return start < at ? start : find(at, -1, mark);
  }

  function where(f) {
    return "Turn " + (f.turn === null || f.turn === undefined ? "–" : f.turn) +
      " · " + (f.phase || "no phase") + " · operation " + f.operation +
      (f.whose_move && f.whose_move.length ? " · to move: " + f.whose_move.join(", ") : "");
  }

  function showState() {
    if ($("state-box").open) $("state").textContent = JSON.stringify(S[F[at].state] || {}, null, 1);
  }

  function go(n) {
    if (!F.length) return;
    at = Math.max(0, Math.min(F.length - 1, n));
    var f = F[at], state = S[f.state] || {};
    $("scrub").value = at;
    $("scrub").setAttribute("aria-valuetext", "event " + (at + 1) + " of " + F.length + ", seq " + f.seq);
    $("pos").textContent = "Event " + (at + 1) + " of " + F.length + " · seq " + f.seq;
    $("where").textContent = where(f);
    W.clear($("line"));
    W.add($("line"), [f.text || f.type, f.redacted ? W.el("span", { class: "hint", text: " (hidden details)" }) : null]);
    f.marks.forEach(function (m) { $("line").appendChild(W.el("span", { class: "mark", text: "new " + m })); });

    var dice = W.clear($("dice"));  // the dice of the current operation up to here, the current event's marked
    for (var k = opStart[at]; k <= at; k++) {
      if (F[k].dice) dice.appendChild(W.dice(Object.assign({}, F[k].dice), k === at));
    }
    if (!dice.firstChild) dice.appendChild(W.el("p", { class: "hint", text: "No dice in this operation so far." }));

    var before = S[F[opStart[at]].state] || {};  // the map, with what this operation moved or hit so far
    W.Board.draw($("board"), board, state, { highlight: W.Board.changes(before, state) });
    showState();

    var cursor = document.getElementById("cursor");
    if (cursor) {
      var x = +cursor.getAttribute("data-left") + (+cursor.getAttribute("data-width")) * at /
        Math.max(+cursor.getAttribute("data-xmax"), 1);
      cursor.setAttribute("x1", x.toFixed(1));
      cursor.setAttribute("x2", x.toFixed(1));
    }
    W.clear($("vp")).appendChild(W.vpTable(f.vp, "Victory points at this step"));

    if (lit !== null && rows[lit]) { rows[lit].className = ""; rows[lit].removeAttribute("aria-current"); }
    lit = at;
    var row = rows[at], list = $("history");
    row.className = "current";
    row.setAttribute("aria-current", "step");
    if (row.offsetTop < list.scrollTop) list.scrollTop = row.offsetTop - 8;  // in view inside the panel only
    else if (row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = row.offsetTop + row.offsetHeight - list.clientHeight + 8;
    }
    if (at >= F.length - 1 && timer) play(false);
  }

  function play(on) {
    if (on === undefined) on = !timer;
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      if (at >= F.length - 1) go(0);
      timer = setInterval(function () { go(at + 1); }, 400);
    }
    $("play").setAttribute("aria-pressed", on ? "true" : "false");
    $("play").textContent = on ? "Pause" : "▶ Play";
  }

  var steps = {
    first: function () { return 0; }, last: function () { return F.length - 1; },
    prev: function () { return at - 1; }, next: function () { return at + 1; },
    "prev-op": function () { return back("operation"); }, "next-op": function () { return find(at, 1, "operation"); },
    "prev-phase": function () { return back("phase"); }, "next-phase": function () { return find(at, 1, "phase"); },
    "prev-turn": function () { return back("turn"); }, "next-turn": function () { return find(at, 1, "turn"); },
  };

  function keys(e) {
    var tag = (e.target && e.target.tagName) || "";
    if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(tag)) return;
    var step = {
      ArrowRight: e.shiftKey ? "next-op" : "next", ArrowLeft: e.shiftKey ? "prev-op" : "prev",
      ArrowDown: e.shiftKey ? "next-phase" : null, ArrowUp: e.shiftKey ? "prev-phase" : null,
      PageDown: "next-turn", PageUp: "prev-turn", Home: "first", End: "last",
    }[e.key];
    if (e.key === " " && tag !== "BUTTON" && tag !== "SUMMARY") { e.preventDefault(); play(); return; }
    if (!step) return;
    e.preventDefault();
    play(false);
    go(steps[step]());
  }

  var op = -1, log = $("log");
  F.forEach(function (f, n) {
    if (n === 0 || f.operation !== F[n - 1].operation) op = n;
    opStart.push(op);
    var row = W.el("li", { value: f.seq, "data-seq": f.seq },
      W.el("button", { type: "button", class: "linkish", text: f.text || f.type, tabindex: "-1",
                       onclick: function () { play(false); go(n); } }));
    log.appendChild(row);
    rows.push(row);
  });
  Object.keys(steps).forEach(function (id) {
    $(id).addEventListener("click", function () { play(false); go(steps[id]()); });
  });
  $("play").addEventListener("click", function () { play(); });
  $("scrub").max = Math.max(F.length - 1, 0);
  $("scrub").addEventListener("input", function () { play(false); go(+this.value); });
  $("state-box").addEventListener("toggle", showState);
  document.addEventListener("keydown", keys);
  go(0);
  document.body.setAttribute("data-ready", "true");
})();"""
