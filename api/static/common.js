/* warlog pages: what every page shares. Plain JavaScript, no build step, nothing from another host.
 *
 * - Warlog.api(path, {method, body, token, headers}): one request to the API, never throws;
 * - Warlog.keys: the tokens this browser holds, per game, in localStorage;
 * - Warlog.follow(gameId, token, after, onEvent, onState): the live event stream, read with fetch()
 *   because EventSource cannot send the Authorization header (docs/pages.md);
 * - small DOM helpers and the dice display shared by the game page and the replay viewer.
 */
(function () {
  "use strict";
  var W = (window.Warlog = window.Warlog || {});

  // ------------------------------------------------------------------------------- DOM ----
  W.$ = function (id) { return document.getElementById(id); };

  W.el = function (tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === undefined || value === null || value === false) return;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else if (key.slice(0, 2) === "on" && typeof value === "function") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
    for (var i = 2; i < arguments.length; i++) W.add(node, arguments[i]);
    return node;
  };

  W.add = function (node, kid) {
    if (kid === undefined || kid === null || kid === false) return node;
    if (Array.isArray(kid)) kid.forEach(function (k) { W.add(node, k); });
    else node.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
    return node;
  };

  W.clear = function (node) { while (node.firstChild) node.removeChild(node.firstChild); return node; };

  /** The page's status line (aria-live): what just happened, or what went wrong. */
  W.status = function (message, kind) {
    var line = W.$("status");
    if (!line) return;
    line.textContent = message || "";
    line.className = "status" + (kind ? " " + kind : "");
    if (kind === "error" && message && line.scrollIntoView) line.scrollIntoView({ block: "nearest" });
  };

  W.short = function (gameId) { return String(gameId || "").slice(0, 8); };

  /** A seat's invite link, /games/{id}#invite=CODE (the code rides in the fragment, which browsers do
   * not send), as a list item naming the seat. */
  W.inviteItem = function (gameId, seat, code) {
    var link = location.origin + "/games/" + gameId + "#invite=" + encodeURIComponent(code);
    return W.el("li", { class: "invite", "data-seat": seat },
      W.el("strong", { text: seat + ": " }), W.el("a", { href: link, class: "invite-link", text: link }));
  };

  /** A time control's clock (a summary's `clock`) in words: "1 d 23 h left", "time is up", or "". */
  W.timeLeft = function (clock) {
    if (!clock || !clock.deadline) return "";
    if (clock.timed_out) return "time is up";
    if (clock.running === false) return "imported: its clock does not run here";  // no seconds_left
    var s = clock.seconds_left, days = Math.floor(s / 86400), hours = Math.floor(s % 86400 / 3600),
        minutes = Math.floor(s % 3600 / 60);
    return (days ? days + " d " + hours + " h" : hours ? hours + " h " + minutes + " min" : minutes + " min") + " left";
  };

  // ------------------------------------------------------------------------------- API ----
  /** One request; resolves to {ok, status, body, headers}. A network failure is status 0. */
  W.api = function (path, options) {
    options = options || {};
    var headers = Object.assign({ Accept: "application/json" }, options.headers || {});
    if (options.token) headers.Authorization = "Bearer " + options.token;
    var init = { method: options.method || "GET", headers: headers, cache: "no-store" };
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    return fetch(path, init).then(function (response) {
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = text; }
        return { ok: response.ok, status: response.status, body: body, headers: response.headers };
      });
    }, function (error) {
      return { ok: false, status: 0, headers: new Headers(),
               body: { code: "network", detail: "the server cannot be reached (" + error.message + ")" } };
    });
  };

  /** A problem answer as one sentence: its detail and, for a refused order, the rule it names;
   * for a request refused field by field (its ``errors``), what is wrong with each field
   * ("days: Must be …"; a nested one by its path, "time_control.days: …"), the detail once. */
  W.problem = function (result) {
    var body = result && result.body;
    if (body && typeof body === "object" && body.detail) {
      var rule = body.rule && body.detail.indexOf(body.rule) < 0 ? " [" + body.rule + "]" : "";
      var fields = fieldErrors(body.errors, ""), said = fields.some(function (f) { return f[1].indexOf(body.detail) >= 0; });
      if (!fields.length) return body.detail + rule;
      return (said ? "" : body.detail + rule + " — ") + fields.map(function (f) { return f[0] + ": " + f[1].join(" "); }).join("; ");
    }
    return "the server answered " + (result ? result.status : "nothing");
  };

  /** [[path, [messages]]] of a problem's ``errors`` ({field: [message] or {field: …}}). */
  function fieldErrors(errors, prefix) {
    if (!errors || typeof errors !== "object" || Array.isArray(errors)) return [];
    var out = [];
    Object.keys(errors).forEach(function (field) {
      var value = errors[field], path = prefix + field;
      if (value && typeof value === "object" && !Array.isArray(value)) out = out.concat(fieldErrors(value, path + "."));
      else out.push([path, [].concat(value).map(function (m) { return typeof m === "string" ? m : JSON.stringify(m); })]);
    });
    return out;
  }

  W.uuid = function () {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs a secure context
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  };

  // --------------------------------------------------------------------------- signing ----
  /* A seat's Ed25519 key, kept in this browser as a JWK beside its token (docs/dice.md, "Signed
   * orders and heads"): WebCrypto makes it and signs with it. Where WebCrypto has no Ed25519 (an
   * older browser, a page not served over HTTPS or from localhost) the seat joins without a key. */
  function base64Url(buffer) {
    var bytes = new Uint8Array(buffer), text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  /** The canonical JSON of docs/dice.md: keys sorted, no spaces, not ASCII-escaped. */
  W.canonical = function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    return "{" + Object.keys(value).sort().map(function (k) {
      return JSON.stringify(k) + ":" + canonical(value[k]);
    }).join(",") + "}";
  };

  W.signing = {
    /** A new key pair: {jwk: the private key as a JWK, public_key: its public half, base64url}; null without Ed25519. */
    newKey: async function () {
      try {
        var pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
        var jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
        return { jwk: jwk, public_key: jwk.x };
      } catch (e) {
        return null;
      }
    },
    /** The seat's signature of an order over the head it saw (base64url). */
    signOrder: function (jwk, gameId, orderId, order, head) {
      return signCanonical(jwk, { game: gameId, order_id: orderId, order: order, head: head });
    },
    /** The seat's signature of its seal of sealed orders (the commitment) over the head it saw. */
    signSeal: function (jwk, gameId, seat, round, commitment, head) {
      return signCanonical(jwk, { game: gameId, kind: "seal", seat: seat, round: round, commitment: commitment, head: head });
    },
    /** The seat's signature of its reveal of sealed orders (the orders and salt) over the head it saw. */
    signReveal: function (jwk, gameId, seat, round, orders, salt, head) {
      return signCanonical(jwk, { game: gameId, kind: "reveal", seat: seat, round: round, orders: orders, salt: salt, head: head });
    },
    /** The seat's signature of its join sent again under the join's Idempotency-Key ``requestId``
     * (docs/api.md, "Idempotency"): {game, kind: "join_again", request_id}, the game's id as the
     * server writes it (lowercase, with hyphens). */
    signJoinAgain: function (jwk, gameId, requestId) {
      var hex = String(gameId).toLowerCase().replace(/[^0-9a-f]/g, ""), game = String(gameId);
      if (hex.length === 32) game = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
      return signCanonical(jwk, { game: game, kind: "join_again", request_id: requestId });
    },
    /** The seat's signature of another command (format 2; docs/dice.md, "Signed orders and heads"):
     * {game, kind, seat, <the command's fields>, head}, e.g. kind "concede" with no fields. */
    signCommand: function (jwk, gameId, kind, seat, fields, head) {
      return signCanonical(jwk, Object.assign({}, fields, { game: gameId, kind: kind, seat: seat, head: head }));
    },
  };

  /** The Ed25519 signature (base64url) by a private JWK of the canonical JSON of ``value``. */
  async function signCanonical(jwk, value) {
    var key = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["sign"]);
    return base64Url(await crypto.subtle.sign({ name: "Ed25519" }, key, new TextEncoder().encode(W.canonical(value))));
  }

  // ---------------------------------------------------------------------------- tokens ----
  /* Per game: {seats: {seat: token}, active: seat, admin, umpire, invites: {seat: code},
   * signing: {seat: private JWK}, joined_with: [the invite codes this browser joined with]}. */
  var PREFIX = "warlog:game:";

  W.keys = {
    load: function (gameId) {
      var found = null;
      try { found = JSON.parse(localStorage.getItem(PREFIX + gameId) || "null"); } catch (e) { found = null; }
      found = found && typeof found === "object" ? found : {};
      found.seats = found.seats || {};
      return found;
    },
    save: function (gameId, keys) { localStorage.setItem(PREFIX + gameId, JSON.stringify(keys)); },
    update: function (gameId, change) {
      var keys = W.keys.load(gameId);
      change(keys);
      W.keys.save(gameId, keys);
      return keys;
    },
    forget: function (gameId) { localStorage.removeItem(PREFIX + gameId); },
    games: function () {
      var out = [];
      for (var i = 0; i < localStorage.length; i++) {
        var key = localStorage.key(i);
        if (key && key.indexOf(PREFIX) === 0) out.push(key.slice(PREFIX.length));
      }
      return out;
    },
    /** The seat this browser plays as, with its token, or null. */
    seat: function (gameId) {
      var keys = W.keys.load(gameId);
      var seats = Object.keys(keys.seats);
      if (!seats.length) return null;
      var seat = keys.active && keys.seats[keys.active] ? keys.active : seats[0];
      return { seat: seat, token: keys.seats[seat] };
    },
    /** The token to read with: the seat played, else the umpire's, else a spectator's, else the
     * admin's, else none. */
    reader: function (gameId) {
      var keys = W.keys.load(gameId), mine = W.keys.seat(gameId);
      return (mine && mine.token) || keys.umpire || keys.spectator || keys.admin || null;
    },
    /** Whether this browser holds the seat an invite code gave: it joined with it, or created the
     * game (its invites) and holds that seat. */
    joinedWith: function (gameId, code) {
      var keys = W.keys.load(gameId), invites = keys.invites || {};
      return (keys.joined_with || []).indexOf(code) >= 0 ||
        Object.keys(invites).some(function (seat) { return invites[seat] === code && keys.seats[seat]; });
    },
    /** Keep the signed head of a command's (or a join's) answer ``body`` (docs/dice.md, "Signed
     * heads"), when it is the answer's own (this game; its seq the answer's version, a safe integer;
     * its hash the answer's chain head), newer than the one kept, and signed by the server's key:
     * a head the server put in an answer for an earlier line, or another version or game, would let
     * a log cut or rewritten after it verify against it, and one whose signature does not verify
     * proves nothing to anyone the page shows it to. The key is pinned for the game when its first
     * head is kept (GET /api/v1/server-key), as `warlog` pins it: a server answering later under
     * another key is not believed. ``replayed``: a retry's first result (default: the answer's
     * ``replayed``), whose older head is left unkept. Resolves to why the head was not kept (also
     * shown on the page, #head-warning), or null. */
    keepHead: async function (gameId, body, replayed) {
      var head = body && body.signed_head;
      if (!head) return null;
      var kept = W.keys.load(gameId).signed_head;
      var keptSeq = kept && Number.isSafeInteger(kept.seq) ? kept.seq : null, why = null;
      if (replayed === undefined) replayed = body.replayed === true;
      if (typeof head !== "object" || Array.isArray(head) || Object.keys(head).sort().join(",") !== "game,hash,seq,signature") {
        why = "a signed head that is not an object with exactly game, seq, hash and signature";
      } else if (head.game !== gameId) {
        why = "a signed head of game " + String(head.game);
      } else if (!Number.isSafeInteger(head.seq) || typeof head.hash !== "string" || !/^[0-9a-f]{64}$/.test(head.hash) ||
                 typeof head.signature !== "string") {
        why = "a signed head whose seq is not an integer, or its hash not 64 lowercase hex, or its signature not text";
      } else if (head.seq !== body.version || head.hash !== body.chain_head) {
        why = "a signed head of line " + head.seq + ", not of the answer's version " + body.version + " and chain head";
      } else if (keptSeq !== null && (head.seq < keptSeq || (head.seq === keptSeq && !replayed))) {
        if (replayed) return null;  // a retry's first result: the head kept is newer
        why = "a signed head of line " + head.seq + ", no newer than the one kept (line " + keptSeq + "), for a write it recorded";
      } else {
        why = await unsignedHead(gameId, head);
      }
      if (why) {
        why = "the server's answer holds " + why + ": not kept (the head kept is " + (keptSeq === null ? "none" : "line " + keptSeq) + ")";
        if (window.console) console.warn("warlog: " + why);
        headWarning(why);
        return why;
      }
      W.keys.update(gameId, function (k) { k.signed_head = head; });
      return null;
    },
    /** Who this browser annotates as (docs/api.md, "Annotations"): {role, token, seat} of the seat
     * played, else the umpire, else a spectator token; null when it holds none of them. */
    writer: function (gameId) {
      var keys = W.keys.load(gameId), mine = W.keys.seat(gameId);
      if (mine) return { role: "seat", token: mine.token, seat: mine.seat };
      if (keys.umpire) return { role: "umpire", token: keys.umpire };
      if (keys.spectator) return { role: "spectator", token: keys.spectator };
      return null;
    },
  };

  /** The bytes of unpadded base64url text; null when it is not base64url. */
  function fromBase64Url(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
    try {
      var raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
      return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
    } catch (e) {
      return null;
    }
  }

  /** Why ``head`` is not signed by the game's server key, or null: the key is the one pinned for the
   * game, else the server's (GET /api/v1/server-key), pinned now. WebCrypto's Ed25519 checks it. */
  async function unsignedHead(gameId, head) {
    var key = W.keys.load(gameId).server_key;
    if (typeof key !== "string") {
      var res = await W.api("/api/v1/server-key");
      key = res.ok && res.body ? res.body.public_key : null;
      if (typeof key !== "string") return "a signed head whose server key could not be read (GET /api/v1/server-key: " + W.problem(res) + ")";
      W.keys.update(gameId, function (k) { k.server_key = key; });
    }
    var raw = fromBase64Url(key), signature = fromBase64Url(head.signature), good = false;
    if (!raw || raw.length !== 32 || !signature || signature.length !== 64) {
      return "a signed head whose signature or server key is not Ed25519's in base64url";
    }
    try {
      var publicKey = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
      good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature, new TextEncoder().encode(
        W.canonical({ game: head.game, seq: head.seq, hash: head.hash })));
    } catch (e) {  // no WebCrypto Ed25519 here: an older browser, or a page not served over HTTPS or from localhost
      return "a signed head this browser cannot check (no Ed25519 in its WebCrypto: " + e.name + ")";
    }
    return good ? null : "a signed head whose signature does not verify: it is not the server key's signature " +
      "of this game, line and hash (the key pinned for this game: " + key + ")";
  }

  /** Say on the page, until it is reloaded, that a head was not kept and why. */
  function headWarning(why) {
    var box = W.$("head-warning");
    if (!box) {
      box = W.el("p", { id: "head-warning", class: "status error", role: "alert" });
      var main = document.querySelector("main") || document.body;
      main.insertBefore(box, main.firstChild);
    }
    box.textContent = "Warning: " + why + ".";
  }

  // ----------------------------------------------------------------------------- joins ----
  /* A join goes with an Idempotency-Key kept here, with the seat's signing key, until its answer
   * arrives (docs/api.md, "Idempotency"): when the answer is lost, the same join sent again (at
   * once, or from the form later) gets the seat a fresh token instead of 409 invite_used. */
  var PENDING_JOINS = "warlog:pending-joins";

  function pendingJoins() {
    var found = null;
    try { found = JSON.parse(localStorage.getItem(PENDING_JOINS) || "null"); } catch (e) { found = null; }
    return found && typeof found === "object" ? found : {};
  }

  function keepPendingJoin(code, pending) {
    var all = pendingJoins();
    if (pending) all[code] = pending; else delete all[code];
    localStorage.setItem(PENDING_JOINS, JSON.stringify(all));
  }

  /** Join a seat: resolves to {res, signing} (the API answer, and whether a signing key was
   * registered); on success the token and key are kept for the game the answer names. */
  W.join = async function (gameId, body) {
    var code = body.invite_code, pending = pendingJoins()[code];
    // Kept from an earlier try: that join may have been recorded, and this one is its replay, which
    // a keyed seat signs (docs/api.md, "Idempotency"). A first send is not signed: leaked (a pasted
    // log), it must not carry what takes the seat's token again.
    var again = !!pending;
    if (!pending) {
      var key = await W.signing.newKey();  // signs this seat's orders; none where WebCrypto has no Ed25519
      pending = { join_key: W.uuid(), jwk: key ? key.jwk : null, public_key: key ? key.public_key : null };
      keepPendingJoin(code, pending);
    }
    if (pending.public_key) body.public_key = pending.public_key;
    var send = async function (signed) {
      var headers = { "Idempotency-Key": pending.join_key };
      if (signed && pending.jwk) headers["Warlog-Signature"] = await W.signing.signJoinAgain(pending.jwk, gameId, pending.join_key);
      return W.api("/api/v1/games/" + encodeURIComponent(gameId) + "/join", { method: "POST", body: body, headers: headers });
    };
    var res = await send(again);
    if (res.status === 0) res = await send(true);  // the answer lost on the way: the same join again
    if (!res.ok) return { res: res, signing: !!pending.jwk };
    W.keys.update(res.body.game_id, function (k) {
      k.seats[res.body.seat] = res.body.token;
      k.active = res.body.seat;
      if (pending.jwk) { k.signing = k.signing || {}; k.signing[res.body.seat] = pending.jwk; }
      k.joined_with = (k.joined_with || []).concat([code]);
    });
    await W.keys.keepHead(res.body.game_id, res.body, true);
    keepPendingJoin(code, null);
    return { res: res, signing: !!pending.jwk };
  };

  /** The annotations on one event (history line or replay frame), as a list; null when none. */
  W.notes = function (notes) {
    if (!notes || !notes.length) return null;
    return W.el("ul", { class: "notes", "aria-label": "Annotations" }, notes.map(function (n) {
      var who = n.role === "spectator" ? "spectator " + n.author : n.role === "umpire" ? n.author + " (umpire)" : n.author;
      return W.el("li", { class: "note", "data-annotation": n.annotation_id },
        W.el("strong", { text: who + ": " }), n.text,
        n.private ? W.el("span", { class: "badge private", text: "private" }) : null);
    }));
  };

  /** A fresh id for an annotation or order (its Idempotency-Key). */
  W.newId = function () {
    if (crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  };

  // ---------------------------------------------------------------------------- stream ----
  /** Follow a game's events: fetch() with the Authorization header, parsed as Server-Sent Events,
   * reconnecting with Last-Event-ID. onEvent({id, type, data}); onState("live" | "waiting" |
   * "ended" | "refused", detail). Returns {close()}. */
  W.follow = function (gameId, token, after, onEvent, onState) {
    var last = after, stopped = false, controller = null, retry = 2000, ended = false;
    onState = onState || function () {};

    function handle(block) {
      var id = null, type = "message", data = [];
      block.split(/\r?\n/).forEach(function (line) {
        if (!line || line.charAt(0) === ":") return;
        var at = line.indexOf(":"), field = at < 0 ? line : line.slice(0, at);
        var value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "event") type = value;
        else if (field === "data") data.push(value);
        else if (field === "retry" && /^\d+$/.test(value)) retry = +value;
      });
      if (id !== null) last = id;
      if (!data.length) return;
      var parsed;
      try { parsed = JSON.parse(data.join("\n")); } catch (e) { parsed = data.join("\n"); }
      if (type === "GameEnded") ended = true;
      onEvent({ id: id, type: type, data: parsed });
    }

    function pause(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

    async function run() {
      while (!stopped) {
        controller = new AbortController();
        var headers = { Accept: "text/event-stream" };
        if (token) headers.Authorization = "Bearer " + token;
        if (last !== null && last !== undefined) headers["Last-Event-ID"] = String(last);
        var wait = retry;
        try {
          var response = await fetch("/api/v1/games/" + gameId + "/events/stream",
                                     { headers: headers, signal: controller.signal, cache: "no-store" });
          if (!response.ok) {
            // Too many streams open on the server (503) or opened from here too often (429, a rate
            // limit): come back after Retry-After. Any other refusal is final.
            if (response.status === 503 || response.status === 429) wait = 1000 * (+response.headers.get("Retry-After") || 5);
            else { onState("refused", response.status); return; }
          } else {
            onState("live");
            var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = "", m;
            for (;;) {
              var chunk = await reader.read();
              if (chunk.done) break;
              buffer += decoder.decode(chunk.value, { stream: true });
              while ((m = /\r?\n\r?\n/.exec(buffer))) {
                handle(buffer.slice(0, m.index));
                buffer = buffer.slice(m.index + m[0].length);
              }
            }
          }
        } catch (e) {
          if (stopped) return;
        }
        if (ended) { onState("ended"); return; } // a finished game records nothing more
        if (stopped) return;
        onState("waiting");
        await pause(wait);
      }
    }
    run();
    return { close: function () { stopped = true; if (controller) controller.abort(); } };
  };

  // ------------------------------------------------------------------------------ dice ----
  /** A roll's target in words: "target 9 >= 7 (+2 river)", or a hit number, "hit number 3: hits on
   * 1-3 (-1 attacking in mountains)" (a die at or under it hits; Falklands Showdown, FS 10.2). */
  W.targetText = function (target) {
    if (!target || typeof target !== "object") return "";
    var mods = (target.modifiers || []).map(function (m) {
      return (m.value > 0 ? "+" : "") + m.value + (m.reason ? " " + m.reason : "");
    });
    if (target.hit_number !== undefined && target.hit_number !== null) {
      var hn = target.hit_number;
      return "hit number " + hn + ": " + (hn >= 1 ? "hits on " + (hn > 1 ? "1–" + hn : "1") : "cannot hit") +
        (mods.length ? " (" + mods.join(", ") + ")" : "");
    }
    var result = target.result !== undefined && target.result !== null ? "target " + target.result + " " : "target ";
    return result + (target.compare || "") + " " + (target.value !== undefined ? target.value : "") +
      (mods.length ? " (" + mods.join(", ") + ")" : "");
  };

  var STATUS_TEXT = {
    verified: "verified against the revealed seed",
    unrevealed: "not verifiable yet: its seed is revealed when the turn ends",
    failed: "does NOT verify against the revealed seed",
    sealed: "a sealed roll: its seed is revealed when the game ends",
  };

  /** One roll: {faces, sides, notation, purpose, seat, target, outcome, status, superseded}. */
  W.dice = function (roll, current) {
    var faces = W.el("span", { class: "faces" });
    (roll.faces || []).forEach(function (value, k) {
      var sides = (roll.sides || [])[k];
      faces.appendChild(W.el("span", { class: "die", title: sides ? "d" + sides : null,
                                       "aria-label": (sides ? "d" + sides : "die") + " showing " + value,
                                       text: value }));
    });
    var outcome = roll.outcome ? W.el("strong", { class: "outcome " + roll.outcome, text: roll.outcome }) : null;
    var status = roll.status ? W.el("span", { class: "verif " + roll.status, text: roll.status,
                                              title: STATUS_TEXT[roll.status] || roll.status }) : null;
    return W.el("div", { class: "roll" + (current ? " current" : "") + (roll.superseded ? " superseded" : ""),
                         "data-status": roll.status || "" },
      W.el("div", { class: "roll-head" },
        W.el("span", { class: "purpose", text: (roll.seat ? roll.seat + ": " : "") + (roll.purpose || "roll") }),
        " ", W.el("span", { class: "notation", text: roll.notation || "" })),
      faces,
      roll.target ? W.el("span", { class: "target", text: W.targetText(roll.target) }) : null,
      outcome, status,
      roll.superseded ? W.el("span", { class: "hint", text: " (taken back)" }) : null);
  };

  /** A DiceRolled export line as the roll W.dice draws (status: not revealed yet when just rolled). */
  W.rollOfLine = function (line, status) {
    var d = line.data || {};
    return { faces: (d.dice || []).map(function (x) { return x.value; }),
             sides: (d.dice || []).map(function (x) { return x.sides; }),
             notation: d.notation, purpose: d.purpose, seat: d.seat, target: d.target,
             outcome: d.outcome, status: status || "unrevealed" };
  };

  W.vpTable = function (vp, caption) {
    var sides = Object.keys(vp || {});
    if (!sides.length) return W.el("p", { class: "hint", text: "This game keeps no VP track." });
    return W.el("table", { class: "vp-table" },
      W.el("caption", { class: "sr-only", text: caption || "Victory points" }),
      W.el("tbody", null, sides.map(function (side) {
        return W.el("tr", null, W.el("th", { scope: "row", text: side }), W.el("td", { text: vp[side] }));
      })));
  };
})();
