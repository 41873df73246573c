/* warlog replay viewer: steps through a game's replay frames (made by workers/replay.py).
 *
 * One script for both replays: the live page (api/templates/pages/replay.html) fetches
 * GET /api/v1/games/{id}/frames and the ruleset's board; the offline file (workers/replay.py,
 * `replay_html`) carries them in the page, in two JSON script elements, id="replay" (the frames,
 * the states as `state_deltas`) and id="board-data", and fetches nothing.
 *
 * Position = one frame (one event the viewer may see). Steps: event, operation (what one command
 * recorded, with the answer to a decision it asked for; to its last event), phase and turn, from
 * the frames' marks; the address holds the position (#seq=N). A link may start the replay
 * elsewhere with ?from=SEQ (a turn mail's "from your last order"); #seq wins over it.
 */
(function () {
  "use strict";
  var W = window.Warlog, $ = W.$;
  var gameId = document.body.dataset.gameId;
  var R = null, F = [], S = [], board = null, at = 0, timer = null;
  var opStart = [], opEnds = [], turnStarts = [], rows = [], live = false;
  var noMap = null;  // why the map is not drawn when the ruleset's board could not be read
  var unitOfPlay = "order";  // the ruleset's word for an operation step (GET /api/v1/rulesets/{name}: unit_of_play)

  /** The states from `state_deltas` (workers/replay.py): the first in full, then each one's change.
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

  /** Back by a phase or turn: to the start of the current one, or of the one before when already there. */
  function back(mark) {
    var start = at;
    while (start > 0 && F[start].marks.indexOf(mark) < 0) start--;
    return start < at ? start : find(at, -1, mark);
  }

  /** An operation step begins at a new command or a new phase, except that a command answering a
   * pending decision goes on with the operation that asked (an attack and the dice of the defender's
   * answer are one step). Returns the first frame of each frame's operation. */
  function operationStarts() {
    var out = [], start = 0;
    F.forEach(function (f, n) {
      var fresh = f.marks.indexOf("operation") >= 0 || f.marks.indexOf("phase") >= 0;
      if (n === 0 || (fresh && F[n - 1].type !== "DecisionPending")) start = n;
      out.push(start);
    });
    return out;
  }

  /** Operation steps land on an operation's last event, with its moves, hits and dice all shown:
   * forward to the first such end after the current event, back to the last one before it. */
  function nextOp() {
    for (var k = 0; k < opEnds.length; k++) if (opEnds[k] > at) return opEnds[k];
    return F.length - 1;
  }

  function prevOp() {
    for (var k = opEnds.length - 1; k >= 0; k--) if (opEnds[k] < at) return opEnds[k];
    return 0;
  }

  function index(seq) {
    var best = 0;
    for (var n = 0; n < F.length; n++) { if (F[n].seq <= seq) best = n; else break; }
    return best;
  }

  function fromHash() {
    var m = /(?:^#|&)seq=(\d+)/.exec(location.hash);
    return m ? index(+m[1]) : null;
  }

  /** ?from=SEQ: the frame at or before SEQ; a seq past the end is the last frame, one that is
   * not a number is ignored (the first frame). */
  function fromQuery() {
    var raw = new URLSearchParams(location.search).get("from");
    var n = raw === null ? NaN : parseInt(raw, 10);
    return isNaN(n) ? null : index(Math.max(0, n));
  }

  function where(f, n) {
    var op = 0;
    opEnds.forEach(function (end) { if (end < n) op++; });
    return "Turn " + (f.turn === null || f.turn === undefined ? "–" : f.turn) +
      " · " + (f.phase || "no phase") + " · " + unitOfPlay + " " + (op + 1) +
      (f.whose_move && f.whose_move.length ? " · to move: " + f.whose_move.join(", ") : "");
  }

  function showState() {
    var box = document.getElementById("state-box");
    if (box && box.open) $("state").textContent = JSON.stringify(S[F[at].state] || {}, null, 1);
  }

  function go(n, why) {
    if (!F.length) return;
    at = Math.max(0, Math.min(F.length - 1, n));
    var f = F[at], state = S[f.state] || {};
    $("scrub").value = at;
    $("scrub").setAttribute("aria-valuetext", "event " + (at + 1) + " of " + F.length + ", seq " + f.seq);
    $("pos").textContent = "Event " + (at + 1) + " of " + F.length + " · seq " + f.seq;
    $("where").textContent = where(f, at);
    W.clear($("line"));
    W.add($("line"), [f.text || f.type, f.redacted ? W.el("span", { class: "hint", text: " (hidden details)" }) : null]);
    f.marks.forEach(function (m) {  // a new operation in the game's own word
      $("line").appendChild(W.el("span", { class: "mark", text: "new " + (m === "operation" ? unitOfPlay : m) }));
    });
    if ($("turn-select").value !== String(f.turn)) $("turn-select").value = String(f.turn);

    // the dice of the current operation up to here, the current event's marked
    var dice = $("dice");
    W.clear(dice);
    for (var k = opStart[at]; k <= at; k++) {
      if (F[k].dice) shownRoll(F[k], k === at).forEach(function (node) { dice.appendChild(node); });
    }
    showChecked(f);
    W.clear($("notes"));
    W.add($("notes"), W.notes(f.annotations));
    if (!dice.firstChild) dice.appendChild(W.el("p", { class: "hint", text: "No dice in this " + unitOfPlay + " so far." }));

    showFork();

    // the map, with what this operation moved or hit so far
    var before = S[F[opStart[at]].state] || {};
    W.Board.draw($("board"), board, state, { highlight: W.Board.changes(before, state), noMap: noMap });
    showState();

    // VP: the chart's cursor and the totals
    var cursor = document.getElementById("cursor");
    if (cursor) {
      var x = +cursor.getAttribute("data-left") + (+cursor.getAttribute("data-width")) * at /
        Math.max(+cursor.getAttribute("data-xmax"), 1);
      cursor.setAttribute("x1", x.toFixed(1));
      cursor.setAttribute("x2", x.toFixed(1));
    }
    W.clear($("vp")).appendChild(W.vpTable(f.vp, "Victory points at this step"));
    if (R.vp_note) $("vp").appendChild(W.el("p", { class: "hint", id: "vp-note", text: "VP: " + R.vp_note }));

    // the history, in step
    rows.forEach(function (row, k) {
      if (k === at) { row.classList.add("current"); row.setAttribute("aria-current", "step"); }
      else if (row.classList.contains("current")) { row.classList.remove("current"); row.removeAttribute("aria-current"); }
    });
    var row = rows[at], list = $("history");
    if (row && list) {  // keep the current line in view inside the panel, without moving the page
      if (row.offsetTop < list.scrollTop) list.scrollTop = row.offsetTop - 8;
      else if (row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = row.offsetTop + row.offsetHeight - list.clientHeight + 8;
      }
    }
    if (why !== "hash") {
      var hash = "#seq=" + f.seq;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    if (at >= F.length - 1 && timer) play(false);
  }

  // ------------------------------------------------------- checked in this browser ----
  /* The verdicts of the browser's own check of the log (api/static/verify/page.js, a module that
   * runs after this script): Warlog.verification.at(seq), once the "warlog:verified" event came. */
  function verdictOf(seq) {
    return W.verification ? W.verification.at(seq) : null;
  }

  function verdict(label, status) {
    return W.el("span", { class: "checked " + W.verification.kind(status), "data-status": status,
                          text: label + ": " + status });
  }

  /** Each die of the roll at ``seq`` with its verdict: verified, failed: why, or not yet revealed. */
  function checkedDice(seq) {
    var v = verdictOf(seq);
    if (!v || !v.dice) return null;
    return W.el("ul", { class: "checked-dice", "aria-label": "Each die, checked in this browser" },
      v.dice.map(function (d) {
        return W.el("li", null, verdict("d" + d.sides + " showing " + d.value, d.status));
      }));
  }

  /** How a step (a frame: the server's reading) differs from the log line of its seq that this
   * browser checked: its type, its dice (sides and faces); null when it does not. Its text, map
   * and VP are not checked: the page says they are the server's reading. Null too until the log is checked. */
  function differs(frame) {
    if (!W.verification) return null;
    var v = verdictOf(frame.seq), line = "log line " + frame.seq;
    if (!v || v.line === undefined) return "the checked log has no " + line;
    if (frame.type !== v.type) return "shown as " + frame.type + ", " + line + " is " + v.type;
    if (!frame.dice || frame.redacted) return null;
    if (!v.dice) return "shows dice, " + line + " has none";
    if (v.dice.some(function (d) { return d.value === "?"; })) return null;  // a sealed roll this copy cannot open
    var faces = frame.dice.faces || [], sides = frame.dice.sides || [];
    var shown = faces.map(function (f, k) { return "d" + sides[k] + "=" + f; }).join(" ");
    var logged = v.dice.map(function (d) { return "d" + d.sides + "=" + d.value; }).join(" ");
    return shown === logged ? null : "shows dice " + shown + ", " + line + " has " + logged;
  }

  /** A frame's roll as the dice panel shows it, with each die's verdict from the checked log. A
   * step that is not the checked log's line (``differs``) shows neither the frames' own status of
   * its roll ("verified" is the server's word) nor the log's verdicts, which are of other dice:
   * its roll is marked failed, with why. */
  function shownRoll(frame, current) {
    var off = differs(frame);
    var node = W.dice(Object.assign({}, frame.dice, off ? { status: "failed" } : {}), current);
    node.setAttribute("data-seq", frame.seq);
    if (off) node.querySelector(".verif").title = "this step: failed: " + off;
    var each = off ? null : checkedDice(frame.seq);
    return each ? [node, each] : [node];
  }

  /** The current line's verdicts: its place in the chain, whether the step shows that line, an
   * order's signature, a sealed reveal, a seal's or reveal's signature, and the dice of a roll the
   * frames do not show as dice (a sealed roll). A step that is not the log's line shows only its
   * failure and the line's own failures: a "verified" of the line is not said beside another step. */
  function showChecked(frame) {
    var box = $("checked"), v = verdictOf(frame.seq);
    W.clear(box);
    box.hidden = !W.verification;
    if (!W.verification) return;
    var off = differs(frame);
    var add = function (label, status) {
      if (status && !(off && W.verification.kind(status) === "ok")) box.appendChild(verdict(label, status));
    };
    if (off) add("this step", "failed: " + off);
    if (!v) return;
    add("log line " + frame.seq, v.line);
    add("order", v.order);
    add("sealed orders", v.reveal);
    add("signature", v.signature);
    if (v.dice && !frame.dice && !off) box.appendChild(checkedDice(frame.seq));
    box.appendChild(W.el("span", { class: "hint", text: "The step's text, map and VP are the server's reading of this line." }));
  }

  /** Once the log is checked and the frames are here: the steps that differ from it, said under the title. */
  function checkFrames() {
    if (!W.verification || !F.length) return;
    if (!W.verification.covers(F[F.length - 1].seq)) return;  // the log is read again: "warlog:verified" comes again
    var off = F.filter(function (f) { return differs(f) !== null; });
    var brief = $("verify-steps");
    if (!brief) return;
    brief.hidden = !off.length;
    W.clear(brief);
    if (off.length) {
      W.add(brief, [off.length + " step(s) of this replay do not show the checked log (first: ",
                    W.el("a", { href: "#seq=" + off[0].seq, text: "seq " + off[0].seq }), "): " + differs(off[0]) + "."]);
    }
  }

  function play(on) {
    if (on === undefined) on = !timer;
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      if (at >= F.length - 1) go(0);
      timer = setInterval(function () { go(at + 1); }, +$("speed").value);
    }
    $("play").setAttribute("aria-pressed", on ? "true" : "false");
    $("play").textContent = on ? "Pause" : "▶ Play";
  }

  function buildHistory() {
    var list = W.clear($("history")), turn, phase, ops = null, op = null;
    rows = [];
    F.forEach(function (f, n) {
      if (n === 0 || f.turn !== turn) {
        turn = f.turn; phase = undefined;
        list.appendChild(W.el("h3", { text: turn === null || turn === undefined ? "Set-up" : "Turn " + turn }));
      }
      if (f.phase !== phase) {
        phase = f.phase;
        list.appendChild(W.el("h4", { text: phase || "" }));
        ops = list.appendChild(W.el("ol", { class: "ops" }));
        op = null;
      }
      if (opStart[n] !== op || !ops.lastChild) {
        op = opStart[n];
        ops.appendChild(W.el("li", { class: "op" }, W.el("ol", { class: "lines" })));
      }
      var kinds = [f.dice ? "has-dice" : "", f.superseded ? "superseded" : ""].join(" ").trim();
      var row = W.el("li", { "data-i": n, "data-seq": f.seq, value: f.seq, class: kinds || null },
        W.el("button", { type: "button", class: "linkish", tabindex: "-1", onclick: function () { play(false); go(n); } },
             f.text || f.type, f.superseded ? W.el("span", { class: "hint", text: " (taken back)" }) : null),
        W.notes(f.annotations));
      ops.lastChild.firstChild.appendChild(row);
      rows.push(row);
    });
  }

  function keys(e) {
    var tag = (e.target && e.target.tagName) || "";
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(tag) && e.key !== "Escape") return;
    var step = null;
    switch (e.key) {
      case "ArrowRight": step = e.shiftKey ? nextOp() : at + 1; break;
      case "ArrowLeft": step = e.shiftKey ? prevOp() : at - 1; break;
      case "ArrowDown": if (e.shiftKey) step = find(at, 1, "phase"); break;
      case "ArrowUp": if (e.shiftKey) step = back("phase"); break;
      case "PageDown": step = find(at, 1, "turn"); break;
      case "PageUp": step = back("turn"); break;
      case "Home": step = 0; break;
      case "End": step = F.length - 1; break;
      case " ":
        if (tag === "BUTTON" || tag === "SUMMARY") return; // Space presses the focused button
        e.preventDefault(); play(); return;
      case "t": case "T": e.preventDefault(); $("turn-select").focus(); return;
      default: return;
    }
    if (step === null) return;
    e.preventDefault();
    play(false);
    go(step);
  }

  function wire() {
    var buttons = {
      first: function () { return 0; }, last: function () { return F.length - 1; },
      prev: function () { return at - 1; }, next: function () { return at + 1; },
      "prev-op": prevOp, "next-op": nextOp,
      "prev-phase": function () { return back("phase"); }, "next-phase": function () { return find(at, 1, "phase"); },
      "prev-turn": function () { return back("turn"); }, "next-turn": function () { return find(at, 1, "turn"); },
    };
    Object.keys(buttons).forEach(function (id) {
      $(id).addEventListener("click", function () { play(false); go(buttons[id]()); });
    });
    $("play").addEventListener("click", function () { play(); });
    $("speed").addEventListener("change", function () { if (timer) play(true); });
    $("scrub").addEventListener("input", function () { play(false); go(+this.value); });
    $("turn-select").addEventListener("change", function () {
      var start = turnStarts[this.selectedIndex];
      if (start !== undefined) { play(false); go(start); }
    });
    var box = document.getElementById("state-box");
    if (box) box.addEventListener("toggle", showState);
    document.addEventListener("keydown", keys);
    window.addEventListener("hashchange", function () {
      var n = fromHash();
      if (n !== null && n !== at) go(n, "hash");
    });
  }

  // ------------------------------------------------------------------------ sandboxes ----
  /** Whether a sandbox may start right after frame n: between orders, i.e. the next event the
   * viewer sees begins a new command (docs/api.md; the server decides, 422 invalid_fork). */
  function forkable(n) {
    return n === F.length - 1 || F[n + 1].marks.indexOf("operation") >= 0;
  }

  function showFork() {
    if (!live) return;  // the offline file asks nothing of a server
    var ok = forkable(at);
    $("fork").disabled = !ok;
    $("fork-hint").textContent = ok
      ? "Forks a sandbox: a new game from the state right after this event (seq " + F[at].seq + "), to play on from here."
      : "This event is inside an order's outcome: a sandbox starts between orders (step to the " + unitOfPlay + "'s last event).";
  }

  // POST /api/v1/games/{id}/sandbox at the event shown, as the viewer this browser reads with.
  async function fork() {
    var seq = F[at].seq;
    $("fork").disabled = true;
    var res = await W.api("/api/v1/games/" + gameId + "/sandbox", { method: "POST", body: { at: seq }, token: W.keys.reader(gameId) });
    showFork();
    if (!res.ok) { W.status("No sandbox: " + W.problem(res), "error"); return; }
    var made = res.body;
    W.keys.update(made.game_id, function (k) { k.admin = made.admin_token; k.invites = made.invites; });
    $("forked-link").href = "/games/" + made.game_id;
    $("forked-link").textContent = made.game_id;
    $("forked-at").textContent = String(seq);
    var list = W.clear($("forked-invites"));
    made.seats.forEach(function (seat) { list.appendChild(W.inviteItem(made.game_id, seat, made.invites[seat])); });
    $("forked").hidden = false;
    $("forked").focus();
    W.status("Sandbox " + W.short(made.game_id) + " created from event " + seq + ".", "ok");
  }

  // ------------------------------------------------------------------------ annotations ----
  /* The live page only: a seat, the umpire or (after the end) a spectator token's holder annotates
     the event shown (docs/pages.md); the note is put beside it at once, as the history shows it. */
  var noteId = null;  // kept until recorded, so a retry is the same annotation

  function showAnnotate(frames) {
    var writer = W.keys.writer(gameId), form = document.getElementById("annotate");
    if (!form) return;
    form.hidden = !writer;
    if (!writer) return;
    $("an-private-box").hidden = writer.role === "spectator";
    // A spectator writes once the game has ended: said before it writes, as the game page says it.
    var ended = frames.some(function (f) { return f.type === "GameEnded"; });
    $("an-hint").textContent = writer.role === "spectator" && !ended ? "Spectators annotate once the game has ended." : "";
  }

  /** A keyed seat's signature headers of its annotation, over the last head this browser saw. */
  async function noteHeaders(writer, kind, fields) {
    var keys = W.keys.load(gameId), jwk = (keys.signing || {})[writer.seat];
    if (writer.role !== "seat" || !jwk) return {};
    var head = keys.signed_head && keys.signed_head.hash;
    if (!head) {
      var s = await W.api("/api/v1/games/" + gameId, { token: writer.token });
      head = s.ok ? s.body.chain_head : "";
    }
    return { "Warlog-Signature": await W.signing.signCommand(jwk, gameId, kind, writer.seat, fields, head),
             "Warlog-Head": head };
  }

  async function annotate(e) {
    e.preventDefault();
    var writer = W.keys.writer(gameId), f = F[at], text = $("an-text").value;
    var priv = writer.role !== "spectator" && $("an-private").checked;
    noteId = noteId || W.newId();
    var fields = { annotation_id: noteId, about_seq: f.seq, text: text };
    var headers = Object.assign({ "Idempotency-Key": noteId },
                                await noteHeaders(writer, priv ? "private_annotation" : "annotation", fields));
    var res = await W.api("/api/v1/games/" + gameId + "/annotations",
                          { method: "POST", body: { about_seq: f.seq, text: text, private: priv }, token: writer.token,
                            headers: headers });
    if (!res.ok) { W.status("Annotation refused: " + W.problem(res), "error"); return; }
    await W.keys.keepHead(gameId, res.body);
    var d = res.body.events[0].data;
    (f.annotations = f.annotations || []).push({ annotation_id: d.annotation_id, seq: res.body.events[0].seq,
      author: d.author, role: d.role, private: d.private, text: d.text });
    noteId = null;
    $("an-text").value = "";
    var row = rows[at];
    if (row) { var old = row.querySelector(".notes"); if (old) row.removeChild(old); W.add(row, W.notes(f.annotations)); }
    go(at, "hash");
    W.status("Annotation on event " + f.seq + " recorded" + (priv ? " (private)." : "."), "ok");
  }

  /** The replay and board the page carries (the offline file), or null (the live page). */
  function embedded() {
    var data = document.getElementById("replay");
    return data ? { replay: JSON.parse(data.textContent), board: JSON.parse($("board-data").textContent) } : null;
  }

  /** The replay and board from the API with this browser's token for the game; null when refused. */
  async function fetched() {
    var token = W.keys.reader(gameId);
    W.status("Loading the replay…");
    var res = await W.api("/api/v1/games/" + gameId + "/frames", { token: token });
    if (!res.ok) {
      var why = res.status === 404
        ? "No such game here, or it is private and this browser holds no token for it: open the game page to join or paste a token."
        : W.problem(res);
      W.status(why, "error");
      $("summary").textContent = why;
      return null;
    }
    var drawing = null;
    if (res.body.ruleset) {
      var rs = await W.api("/api/v1/rulesets/" + encodeURIComponent(res.body.ruleset));
      drawing = rs.ok ? rs.body.board : null;
      if (rs.ok && rs.body.unit_of_play) res.body.unit_of_play = rs.body.unit_of_play;  // the ruleset's own word
      if (!rs.ok) noMap = "The map could not be read (" + W.problem(rs) + "): reload the page to try again.";
    }
    return { replay: res.body, board: drawing };
  }

  /** The operation step's buttons and words in the game's own unit of play: a Falklands
   * operation, an STF action, an order (the ruleset's `unit_of_play`; the offline file's frames carry it). */
  function stepWords(word) {
    unitOfPlay = typeof word === "string" && word ? word : "order";
    $("prev-op").textContent = "‹ " + unitOfPlay;
    $("next-op").textContent = unitOfPlay + " ›";
    $("prev-op").title = "Previous " + unitOfPlay + " (Shift+←)";
    $("next-op").title = "Next " + unitOfPlay + " (Shift+→)";
    $("op-keys").textContent = unitOfPlay;
  }

  function begin(got) {
    R = got.replay; F = R.frames || []; S = R.states || unpack(R.state_deltas || []); board = got.board;
    W.replayData = { frames: F, states: S, board: board };  // for a look from the browser's console
    document.title = "Replay " + W.short(gameId) + " · " + R.title + " · warlog";
    $("title").textContent = "Replay: " + String(R.title).split(":")[0];
    $("summary").textContent = "Game " + gameId + " · " + F.length + " events · version " + R.version +
      " · " + R.viewer + " view";
    stepWords(R.unit_of_play);
    opStart = operationStarts();
    opStart.forEach(function (start, n) { if (n > 0 && start === n) opEnds.push(n - 1); });
    if (F.length) opEnds.push(F.length - 1);
    var select = $("turn-select"), seen = {};
    F.forEach(function (f, n) {
      var key = String(f.turn);
      if (seen[key]) return;
      seen[key] = true;
      turnStarts.push(n);
      select.appendChild(W.el("option", { value: key, text: f.turn === null || f.turn === undefined ? "set-up" : "turn " + f.turn }));
    });
    $("scrub").max = Math.max(F.length - 1, 0);
    var chart = $("chart");
    if (R.vp_chart) {
      var doc = new DOMParser().parseFromString(R.vp_chart, "image/svg+xml");
      var node = document.importNode(doc.documentElement, true);
      node.setAttribute("class", "vp-chart");
      chart.appendChild(node);
    } else {
      chart.appendChild(W.el("p", { class: "hint", text: "No VP was scored in this game." }));
    }
    buildHistory();
    wire();
    document.addEventListener("warlog:verified", function () { checkFrames(); go(at, "hash"); });
    checkFrames();
    var start = fromHash();
    if (start !== null) go(start, "hash");
    else { start = fromQuery(); go(start === null ? 0 : start); }
    W.status(noMap || "", noMap ? "error" : undefined);
    document.body.dataset.ready = "true";
  }

  var inPage = embedded();
  if (inPage) begin(inPage);
  else fetched().then(function (got) {
    if (!got) return;
    live = true;
    $("fork-box").hidden = false;
    $("fork").addEventListener("click", fork);
    $("annotate").addEventListener("submit", annotate);
    showAnnotate(got.replay.frames || []);
    begin(got);
  });
})();
