/* warlog lobby: the games (public ones and those this browser holds a token for), filters,
 * creating a game (its admin token and invite codes kept in this browser) and joining one. */
(function () {
  "use strict";
  var W = window.Warlog, $ = W.$;

  function filters() {
    return { ruleset: $("f-ruleset").value, status: $("f-status").value, player: $("f-player").value.trim(),
             sandbox: $("f-sandbox").checked ? "true" : "" };
  }

  function matches(game, f) {
    if (f.ruleset && game.ruleset !== f.ruleset) return false;
    if (f.status && game.status !== f.status) return false;
    if (f.player && !game.seats.some(function (s) { return s.handle === f.player; })) return false;
    if (game.sandbox && !f.sandbox) return false;  // as the API: sandboxes only when asked
    return true;
  }

  // The list comes in pages (docs/api.md): the pages read so far and the cursor of the next one.
  var listedSoFar = [], nextAfter = null;

  function moreGames() { return loadGames(true); }

  async function loadGames(more) {
    more = more === true && nextAfter !== null;  // an event or a promise's value is no "more"
    var f = filters(), params = new URLSearchParams();
    Object.keys(f).forEach(function (k) { if (f[k]) params.set(k, f[k]); });
    if (more) params.set("after", nextAfter);
    var query = params.toString();
    var listed = await W.api("/api/v1/games" + (query ? "?" + query : ""));
    var games = {}, mine = {};
    if (listed.ok) {
      listedSoFar = (more ? listedSoFar : []).concat(listed.body.games);
      nextAfter = listed.body.next_after || null;
      // A game not listed yet that moved ahead of the cursor since (new activity) is on no later
      // page: the first page is read again, as `warlog games` does, and its games win (newer).
      if (more) {
        params.delete("after");
        var again = await W.api("/api/v1/games?" + params.toString());
        if (again.ok) listedSoFar = listedSoFar.concat(again.body.games);
      }
    } else {
      W.status("Games: " + W.problem(listed), "error");
      if (!more) { listedSoFar = []; nextAfter = null; }
    }
    listedSoFar.forEach(function (g) { games[g.game_id] = g; });
    var noted = {};
    var own = W.keys.games();
    var answers = await Promise.all(own.map(function (gid) {
      return W.api("/api/v1/games/" + gid, { token: W.keys.reader(gid) });
    }));
    var unread = W.clear(document.querySelector("#games-unread ul"));
    answers.forEach(function (res, k) {
      if (!res.ok) {  // a token revoked, a game gone: said, not dropped without a word
        unread.appendChild(W.el("li", { "data-game": own[k] },
          W.el("a", { href: "/games/" + own[k], title: own[k], text: W.short(own[k]) }), ": " + W.problem(res)));
        return;
      }
      mine[own[k]] = true;
      if (matches(res.body, f)) games[own[k]] = res.body;
    });
    var rows = Object.keys(games).map(function (k) { return games[k]; });
    rows.sort(function (a, b) { return String(b.last_activity).localeCompare(String(a.last_activity)); });
    var body = W.clear(document.querySelector("#games tbody"));
    rows.forEach(function (g) {
      body.appendChild(row(g, mine[g.game_id]));
      if (vpNotes[g.ruleset] && Object.keys(g.vp || {}).length) noted[g.ruleset] = vpNotes[g.ruleset];
    });
    showVpNotes(noted);
    $("games-empty").hidden = rows.length > 0;
    $("games-more").hidden = nextAfter === null;  // more games than this page: the button reads the next
    $("games-unread").hidden = !unread.firstChild;
    document.body.dataset.games = String(rows.length);
  }

  // What the VP numbers of a ruleset mean where the sides' names do not say it (GET /api/v1/rulesets:
  // vp_note; Falklands Showdown's one signed track), marked in the VP column and said under the table.
  var vpNotes = {};

  function showVpNotes(noted) {
    var box = W.clear($("games-vp-notes"));
    Object.keys(noted).sort().forEach(function (name) {
      box.appendChild(W.el("li", { "data-ruleset": name }, "* VP in " + name + ": " + noted[name]));
    });
    box.hidden = !box.firstChild;
  }

  function vpCell(g, vp) {
    var note = vp && vpNotes[g.ruleset];
    return W.el("td", null, vp || "—", note ? W.el("sup", { class: "vp-mark", title: note, text: "*" }) : null);
  }

  function row(g, mine) {
    var seats = g.seats.map(function (s) { return s.seat + ": " + (s.handle || "open"); }).join(", ");
    var vp = Object.keys(g.vp || {}).map(function (s) { return s + " " + g.vp[s]; }).join(" · ");
    var seat = W.keys.seat(g.game_id);
    return W.el("tr", { "data-game": g.game_id },
      W.el("td", null, W.el("a", { href: "/games/" + g.game_id, title: g.game_id, text: W.short(g.game_id) }),
           mine ? W.el("span", { class: "badge yours", text: "yours" }) : null,
           g["public"] ? null : W.el("span", { class: "badge", text: "private" }),
           g.sandbox ? W.el("span", { class: "badge sandbox", text: "sandbox",
                                      title: "forked from game " + g.sandbox.source + " at event " + g.sandbox.at }) : null),
      W.el("td", { text: g.ruleset }),
      W.el("td", { text: g.status }),
      W.el("td", { text: g.turn === null ? "–" : g.turn + (g.phase ? " · " + g.phase : "") }),
      toMove(g),
      W.el("td", { text: seats }),
      vpCell(g, vp),
      W.el("td", { class: "actions" },
        // An ended game is not played any more: say so (its page shows how it ended) beside its replay.
        g.ended ? W.el("a", { href: "/games/" + g.game_id, text: "Game over", class: "over",
                              "aria-label": "Game " + W.short(g.game_id) + " is over: see how it ended" })
          : W.el("a", { href: "/games/" + g.game_id, text: seat ? "Play" : "Watch",
                        "aria-label": (seat ? "Play" : "Watch") + " game " + W.short(g.game_id) }), " ",
        W.el("a", { href: "/games/" + g.game_id + "/replay", text: "Replay",
                    "aria-label": "Replay game " + W.short(g.game_id) })));
  }

  // Whose move it is and, with a time control, how long they have (the server's clock: seconds_left).
  function toMove(g) {
    var cell = W.el("td", { text: g.ended ? "—" : g.whose_move.join(", ") });
    var clock = g.clock;
    if (g.ended || !clock || !clock.deadline) return cell;
    cell.appendChild(W.el("span", { class: "time-left" + (clock.timed_out ? " late" : ""), text: " · " + W.timeLeft(clock),
                                    title: "deadline " + clock.deadline + " (UTC)" }));
    cell.dataset.deadline = clock.deadline;
    return cell;
  }

  // The form's time control, or null without days; a bad reminder list is reported, not sent.
  function timeControl() {
    var days = $("c-days").value.trim();
    if (!days) return null;
    var control = { days: parseInt(days, 10), per: $("c-per").value, on_timeout: $("c-timeout").value,
                    vacation_days: parseInt($("c-vacation").value || "0", 10) };
    var raw = $("c-reminders").value.trim();
    if (raw) {
      control.reminders = raw.split(",").map(function (h) { return Number(h.trim()); });
      if (control.reminders.some(function (h) { return !Number.isInteger(h); })) {
        throw new Error("Reminders: whole numbers of hours, separated by commas");
      }
    }
    return control;
  }

  async function loadRulesets() {
    var res = await W.api("/api/v1/rulesets");
    var list = res.ok ? res.body : [{ name: "freeform", title: "Freeform" }];
    if (!res.ok) W.status("Rulesets: " + W.problem(res) + ". Only Freeform is offered until the page is reloaded.", "error");
    list.forEach(function (r) {
      if (r.vp_note) vpNotes[r.name] = r.vp_note;
      $("f-ruleset").appendChild(W.el("option", { value: r.name, text: r.title || r.name }));
      $("c-ruleset").appendChild(W.el("option", { value: r.name, text: r.title || r.name, selected: r.name === "freeform" }));
    });
    rulesetChosen();
  }

  function rulesetChosen() {
    var on = $("c-ruleset").value === "freeform";
    $("c-freeform").hidden = !on;
    $("c-freeform").disabled = !on;
    return loadPositions($("c-ruleset").value);
  }

  // The named positions of the chosen ruleset (GET /api/v1/rulesets/<name>: positions), to start from.
  var positionNotes = {};
  async function loadPositions(name) {
    var select = $("c-position");
    Array.prototype.slice.call(select.options, 1).forEach(function (o) { o.remove(); });
    positionNotes = {};
    var res = name ? await W.api("/api/v1/rulesets/" + encodeURIComponent(name)) : null;
    if (name !== $("c-ruleset").value) return;  // another ruleset was chosen meanwhile
    ((res && res.ok && res.body.positions) || []).forEach(function (p) {
      positionNotes[p.name] = p.note || "";
      select.appendChild(W.el("option", { value: p.name, text: p.title || p.name }));
    });
    select.disabled = select.options.length < 2;
    positionNote();
    $("create").dataset.positionsOf = name;
  }

  function positionNote() {
    $("c-position-note").textContent = positionNotes[$("c-position").value] || "";
  }

  function names(raw) {
    return raw.split(",").map(function (s) { return s.trim(); }).filter(Boolean);
  }

  async function create(e) {
    e.preventDefault();
    var ruleset = $("c-ruleset").value, options = {};
    var raw = $("c-options").value.trim();
    if (raw) {
      try { options = JSON.parse(raw); } catch (err) { W.status("Other options: not JSON (" + err.message + ")", "error"); return; }
      if (!options || typeof options !== "object" || Array.isArray(options)) { W.status("Other options: a JSON object", "error"); return; }
    }
    if (ruleset === "freeform") {
      options.sides = names($("c-sides").value);
      options.phases = names($("c-phases").value);
      if ($("c-last-turn").value) options.last_turn = parseInt($("c-last-turn").value, 10);
    }
    var body = { ruleset: ruleset, options: options, "public": $("c-public").checked };
    if ($("c-position").value) body.position = $("c-position").value;
    if ($("c-scenario").value.trim()) body.scenario = $("c-scenario").value.trim();
    try {
      var control = timeControl();
      if (control) body.time_control = control;
    } catch (err) { W.status(err.message, "error"); return; }
    var res = await W.api("/api/v1/games", { method: "POST", body: body });
    if (!res.ok) { W.status("Not created: " + W.problem(res), "error"); return; }
    var made = res.body;
    W.keys.update(made.game_id, function (k) { k.admin = made.admin_token; k.invites = made.invites; });
    showCreated(made);
    W.status("Game " + W.short(made.game_id) + " created.", "ok");
    loadGames();
  }

  function showCreated(made) {
    var box = $("created");
    box.hidden = false;
    $("created-link").href = "/games/" + made.game_id;
    $("created-link").textContent = made.game_id;
    $("created-admin").textContent = made.admin_token;
    var list = W.clear($("invites"));
    made.seats.forEach(function (seat) {
      var code = made.invites[seat], item = W.inviteItem(made.game_id, seat, code);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(W.el("button", { type: "button", class: "quiet", text: "Join as " + seat + " here",
                                        onclick: function () {
                                          $("j-game").value = made.game_id;
                                          $("j-invite").value = code;
                                          $("j-handle").focus();
                                          W.status("Invite code for " + seat + " filled in: give your handle and join.");
                                        } }));
      list.appendChild(item);
    });
    box.focus();
  }

  // Why the invite link pasted last is not joined here (another server's, or one with a 'user@'),
  // in the words of `warlog join` (the form's data-link-* attributes); null for a link of this server.
  var linkRefused = null;

  /** The refusal of an invite link given as ``text``, or null when it is this server's (or no URL). */
  function refusedLink(text) {
    var url, server = text.trim().split(/\/games\//)[0];
    // A link that lost its scheme (pasted from a chat) names its server all the same: read as http.
    var given = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) || !server ? text.trim() : "http://" + text.trim();
    try { url = new URL(given); } catch (err) { return null; }
    if (!/^https?:$/.test(url.protocol)) return null;
    var words = $("join").dataset;
    if (url.username || url.password) return words.linkWithUser.replace("{server}", server).replace("{host}", url.hostname);
    var schemeless = given !== text.trim();
    if (schemeless ? url.host !== location.host : url.origin !== location.origin) {
      return words.linkElsewhere.replace("{server}", schemeless ? server : url.origin).replace("{here}", location.origin);
    }
    return null;
  }

  async function join(e) {
    e.preventDefault();
    var gid = $("j-game").value.trim();
    if (linkRefused && linkRefused.game === gid) { W.status("Not joined: " + linkRefused.why, "error"); return; }
    var body = { invite_code: $("j-invite").value.trim(), handle: $("j-handle").value.trim() };
    if ($("j-email").value.trim()) body.email = $("j-email").value.trim();
    var joined = await W.join(gid, body), res = joined.res, key = joined.signing;
    if (!res.ok) { W.status("Not joined: " + W.problem(res), "error"); return; }
    W.status("Joined as " + res.body.seat + (key ? " (your orders are signed with a key kept in this browser)" : "") + ".", "ok");
    location.href = "/games/" + res.body.game_id;
  }

  $("filters").addEventListener("submit", function (e) { e.preventDefault(); loadGames(); });
  $("games-more").addEventListener("click", moreGames);
  ["f-ruleset", "f-status", "f-sandbox"].forEach(function (id) { $(id).addEventListener("change", loadGames); });
  $("c-ruleset").addEventListener("change", rulesetChosen);
  $("c-position").addEventListener("change", positionNote);
  $("create").addEventListener("submit", create);
  $("join").addEventListener("submit", join);
  // The invite link the creator sends (/games/ID#invite=CODE), pasted into either field of the join
  // form, is taken apart into the game id and the invite code.
  ["j-game", "j-invite"].forEach(function (id) {
    $(id).addEventListener("input", function () {
      var m = /\/games\/([0-9a-fA-F-]{36})\/?(?:#invite=([^&\s]+))?/.exec($(id).value);
      if (!m) return;
      var why = refusedLink($(id).value);
      linkRefused = why ? { game: m[1], why: why } : null;
      if (why) W.status(why, "error");
      $("j-game").value = m[1];
      if (m[2] || id === "j-invite") $("j-invite").value = m[2] || "";  // a code is URL-safe as it is
    });
  });
  loadRulesets().then(loadGames).then(function () { document.body.dataset.ready = "true"; });
})();
