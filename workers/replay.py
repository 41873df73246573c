"""Replays: the state after every event, and one offline HTML file that steps through them.

Pure functions over export lines (docs/workers.md):

- ``frames(lines, viewer, progress=None)``: one frame per event the viewer may see, with the
  state after it (the ruleset's ``evolve``, exactly the aggregate's fold, through
  ``projections.folds.map_apply``; then ``view`` for the viewer), its readable line, its dice with
  their verification status, the VP totals, and markers for operation, phase and turn boundaries.
  States are stored once per change (``states`` + an index per frame), so a long game whose state
  changes rarely stays small.
- ``replay_html(replay)``: one self-contained HTML file (inline CSS, JS and SVG, the frames JSON
  embedded, nothing fetched from the network).

The fold always sees the whole log (the state needs every event); what the viewer may not see is
removed by ``domain.visibility`` before anything is shown: the state through ``view_state``, the
lines through ``filter_lines``.
"""

from __future__ import annotations

import json
from html import escape
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
    map_data = getattr(rules, "map_data", None)
    return {"game_id": game_id, "ruleset": created.get("ruleset"), "title": rules.title,
            "scenario": created.get("scenario"), "version": lines[-1]["seq"],
            "viewer": "umpire" if viewer == "umpire" else ("public" if viewer is None else viewer),
            "map": map_data() if callable(map_data) else map_data,
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


def replay_html(replay: dict) -> str:
    """One HTML file that steps through ``replay`` offline."""
    chart = line_chart_svg(_vp_points(replay), "Victory points", x_max=max(len(replay["frames"]) - 1, 1),
                           height=220, cursor=True)
    title = f"Replay — {replay['title']} — game {replay['game_id']} (version {replay['version']}, {replay['viewer']} view)"
    return (_PAGE.replace("@@TITLE@@", escape(title)).replace("@@CHART@@", chart)
            .replace("@@DATA@@", _embed(replay)))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@TITLE@@</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{padding:8px 16px;background:#263238;color:#fff}
header h1{font-size:16px;margin:0}
main{display:grid;grid-template-columns:minmax(320px,1fr) minmax(320px,1fr);gap:12px;padding:12px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px}
h2{font-size:14px;margin:0 0 6px}
#controls{grid-column:1/3;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
button{padding:4px 8px}
#jump{flex:1;min-width:200px}
#line{font-size:15px;font-weight:600}
.marks span{display:inline-block;background:#e3f2fd;border-radius:3px;padding:0 4px;margin-right:4px;font-size:12px}
pre{white-space:pre-wrap;font-size:12px;max-height:360px;overflow:auto;margin:0}
.die{display:inline-block;min-width:26px;text-align:center;border:2px solid #333;border-radius:5px;margin:2px;padding:2px;font-weight:700}
.verified{color:#2e7d32}.failed{color:#c62828}.unrevealed{color:#9e9e9e}
#log{max-height:240px;overflow:auto;font-size:12px;margin:0;padding-left:3.5em}
section svg{max-width:100%;height:auto}
#log li.cur{background:#fff59d}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px}
</style></head>
<body>
<header><h1>@@TITLE@@</h1></header>
<main>
<section id="controls">
<button id="first" title="first event">|&lt;</button>
<button id="prevTurn" title="previous turn">&lt;&lt;&lt; turn</button>
<button id="prevOp" title="previous operation">&lt;&lt; op</button>
<button id="prev" title="previous event (left arrow)">&lt; event</button>
<button id="next" title="next event (right arrow)">event &gt;</button>
<button id="nextOp" title="next operation">op &gt;&gt;</button>
<button id="nextTurn" title="next turn">turn &gt;&gt;&gt;</button>
<button id="last" title="last event">&gt;|</button>
<input id="jump" type="range" min="0" value="0">
<span id="pos"></span>
</section>
<section><h2>Step</h2>
<div id="where"></div><div class="marks" id="marks"></div>
<p id="line"></p>
<div id="dice"></div>
</section>
<section><h2 id="mapTitle">State</h2><div id="map"></div><pre id="state"></pre></section>
<section><h2>VP</h2><div id="chart">@@CHART@@</div><div id="vp"></div></section>
<section><h2>Log</h2><ol id="log"></ol></section>
</main>
<script type="application/json" id="replay">@@DATA@@</script>
<script>
(function(){
"use strict";
var R=JSON.parse(document.getElementById("replay").textContent);
var F=R.frames, i=0, $=function(id){return document.getElementById(id);};
function text(el,t){el.textContent=t==null?"":String(t);}
var log=$("log");
F.forEach(function(f,n){var li=document.createElement("li");li.value=f.seq;text(li,f.text);
  li.onclick=function(){go(n);};li.style.cursor="pointer";log.appendChild(li);});
$("jump").max=Math.max(F.length-1,0);
function find(from,dir,mark){for(var n=from+dir;n>=0&&n<F.length;n+=dir){if(F[n].marks.indexOf(mark)>=0)return n;}return dir>0?F.length-1:0;}
function drawMap(state){
  var box=$("map");box.innerHTML="";
  if(!R.map||!R.map.areas){$("mapTitle").textContent="State (this ruleset has no map)";return;}
  $("mapTitle").textContent="Map";
  var ns="http://www.w3.org/2000/svg",svg=document.createElementNS(ns,"svg");
  svg.setAttribute("viewBox",R.map.viewBox||"0 0 400 300");svg.setAttribute("width","100%");
  Object.keys(R.map.areas).forEach(function(name){var a=R.map.areas[name];
    var c=document.createElementNS(ns,"circle");c.setAttribute("cx",a.x);c.setAttribute("cy",a.y);c.setAttribute("r",a.r||14);
    var owner=(state.control||{})[name];c.setAttribute("fill",owner?((R.map.colors||{})[owner]||"#90caf9"):"#eee");
    c.setAttribute("stroke","#333");svg.appendChild(c);
    var t=document.createElementNS(ns,"text");t.setAttribute("x",a.x);t.setAttribute("y",a.y+4);t.setAttribute("text-anchor","middle");
    t.setAttribute("font-size","10");t.textContent=name;svg.appendChild(t);});
  Object.keys(state.units||{}).forEach(function(u){var at=(state.units[u]||{}).location,a=at&&R.map.areas[at];if(!a)return;
    var t=document.createElementNS(ns,"text");t.setAttribute("x",a.x);t.setAttribute("y",a.y-16);t.setAttribute("text-anchor","middle");
    t.setAttribute("font-size","9");t.textContent=u;svg.appendChild(t);});
  box.appendChild(svg);
}
function go(n){
  i=Math.max(0,Math.min(F.length-1,n));var f=F[i],s=R.states[f.state];
  $("jump").value=i;text($("pos"),"event "+(i+1)+" of "+F.length+" (seq "+f.seq+")");
  text($("where"),"Turn "+f.turn+" · phase "+f.phase+" · operation "+f.operation+(f.whose_move&&f.whose_move.length?" · to move: "+f.whose_move.join(", "):""));
  var m=$("marks");m.innerHTML="";f.marks.forEach(function(k){var sp=document.createElement("span");text(sp,"new "+k);m.appendChild(sp);});
  text($("line"),f.text+(f.redacted?" (hidden details)":""));
  var d=$("dice");d.innerHTML="";
  if(f.dice){f.dice.faces.forEach(function(v,k){var b=document.createElement("span");b.className="die";text(b,v);b.title="d"+f.dice.sides[k];d.appendChild(b);});
    var st=document.createElement("div");st.className=f.dice.status;
    text(st,(f.dice.notation||"")+" for "+(f.dice.purpose||"?")+(f.dice.outcome?" — "+f.dice.outcome:"")+" — "+f.dice.status+(f.dice.superseded?" (taken back)":""));d.appendChild(st);}
  text($("state"),JSON.stringify(s,null,1));drawMap(s);
  var vp=$("vp");vp.innerHTML="";var tb=document.createElement("table");
  Object.keys(f.vp||{}).forEach(function(k){var tr=document.createElement("tr"),a=document.createElement("th"),b=document.createElement("td");text(a,k);text(b,f.vp[k]);tr.appendChild(a);tr.appendChild(b);tb.appendChild(tr);});
  vp.appendChild(tb);
  var c=document.getElementById("cursor");if(c){var x=+c.getAttribute("data-left")+ (+c.getAttribute("data-width"))*i/Math.max(+c.getAttribute("data-xmax"),1);c.setAttribute("x1",x);c.setAttribute("x2",x);}
  Array.prototype.forEach.call(log.children,function(li,k){li.className=k===i?"cur":"";});
  var cur=log.children[i];if(cur&&cur.scrollIntoView)cur.scrollIntoView({block:"nearest"});
}
$("first").onclick=function(){go(0);};$("last").onclick=function(){go(F.length-1);};
$("prev").onclick=function(){go(i-1);};$("next").onclick=function(){go(i+1);};
$("prevOp").onclick=function(){go(find(i,-1,"operation"));};$("nextOp").onclick=function(){go(find(i,1,"operation"));};
$("prevTurn").onclick=function(){go(find(i,-1,"turn"));};$("nextTurn").onclick=function(){go(find(i,1,"turn"));};
$("jump").oninput=function(){go(+this.value);};
document.addEventListener("keydown",function(e){if(e.key==="ArrowRight")go(i+1);else if(e.key==="ArrowLeft")go(i-1);
  else if(e.key==="PageDown")go(find(i,1,"turn"));else if(e.key==="PageUp")go(find(i,-1,"turn"));});
go(0);
})();
</script>
</body></html>
"""
