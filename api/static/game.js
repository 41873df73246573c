/* warlog game page: a seat's view of one game. Reads the summary, the state, the legal orders (as
 * a form), the take-backs and the history; sends orders with an Idempotency-Key and If-Match; and
 * follows the event stream so the opponent's moves appear without reloading.
 */
(function () {
  "use strict";
  var W = window.Warlog, $ = W.$;
  var gameId = document.body.dataset.gameId;
  var summary = null, state = null, legal = null, board, boardOf = null, follow = null;
  var pendingSignature = null, lastResult = null, refreshing = null, again = false, ruleTitle = null,
    shownOrders = null, standing = null, takeBackRule, takeBackable = false, vpNote = null,
    askedTakeBack = null;  // the take-back request waiting for an answer (FF 6), or null

  // ----------------------------------------------------------------------- order fields ----
  /* A legal-order template is {kind, rule, fields: {name: spec}}; a spec is a list of choices,
   * {choices, description, optional, type}, or a description in words ("text", "whole number",
   * "list (optional)", "{compare, value, modifiers} (optional)", "true for ..."). */
  function describe(spec) {
    if (Array.isArray(spec)) return { kind: "choice", choices: spec, optional: false, hint: "" };
    if (spec && typeof spec === "object") {
      var choices = spec.choices || spec.options || spec["enum"];
      var type = String(spec.type || (choices ? "choice" : "text"));
      return { kind: choices ? "choice" : type, choices: choices, optional: !!(spec.optional || spec.required === false),
               hint: spec.description || spec.label || "", min: spec.min, max: spec.max, multiple: !!spec.multiple };
    }
    var text = String(spec === undefined || spec === null ? "" : spec), low = text.toLowerCase();
    var optional = /\(optional\)/.test(low);
    var kind = "text";
    if (/^true\b|true or false|boolean/.test(low)) kind = "boolean";
    else if (/whole number|integer|\bseq\b|number/.test(low)) kind = "integer";
    else if (/^\{.*compare/.test(low)) kind = "target";
    else if (/^\{|object|^list|array/.test(low)) kind = low.indexOf("list") === 0 ? "list" : "json";
    return { kind: kind, optional: optional, hint: /^text$/i.test(text) ? "" : text };
  }

  function fieldInput(name, spec, idBase) {
    var d = describe(spec), id = idBase + "-" + name, hintId = id + "-hint", input;
    var label = name.replace(/_/g, " ") + (d.optional ? " (optional)" : "");
    if (d.kind === "choice" || d.kind === "enum") {
      input = W.el("select", { id: id, name: name, "aria-describedby": d.hint ? hintId : null, "data-kind": "choice",
                               multiple: d.multiple });
      if (d.optional && !d.multiple) input.appendChild(W.el("option", { value: "__omit__", text: "—" }));
      (d.choices || []).forEach(function (c, k) {
        var value = c && typeof c === "object" && "value" in c ? c.value : c;
        var text = c && typeof c === "object" ? (c.label || c.name || W.Board.words(board, value))
          : (c === null ? "none (draw)" : W.Board.nameOf(board, c));
        input.appendChild(W.el("option", { value: String(k), text: text }));
      });
      input._choices = (d.choices || []).map(function (c) { return c && typeof c === "object" && "value" in c ? c.value : c; });
    } else if (d.kind === "boolean") {
      input = W.el("input", { id: id, name: name, type: "checkbox", "data-kind": "boolean",
                              "aria-describedby": d.hint ? hintId : null });
      return W.el("div", { class: "field check" }, W.el("label", { "for": id }, input, " " + label),
                  d.hint ? W.el("span", { id: hintId, class: "hint", text: d.hint }) : null);
    } else if (d.kind === "integer" || d.kind === "number") {
      input = W.el("input", { id: id, name: name, type: "number", step: d.kind === "integer" ? "1" : "any",
                              inputmode: "numeric", min: d.min, max: d.max, "data-kind": "integer",
                              required: !d.optional, "aria-describedby": d.hint ? hintId : null });
    } else {
      var placeholder = d.kind === "target" ? ">=8   or   {\"compare\": \">=\", \"value\": 8}" :
        d.kind === "list" ? "a, b, c" : d.kind === "json" ? "{ }" : "";
      input = W.el("input", { id: id, name: name, type: "text", autocomplete: "off", "data-kind": d.kind,
                              placeholder: placeholder || null, required: !d.optional,
                              "aria-describedby": d.hint ? hintId : null });
    }
    input.dataset.optional = d.optional ? "1" : "";
    return W.el("div", { class: "field" }, W.el("label", { "for": id, text: label }), input,
                d.hint ? W.el("span", { id: hintId, class: "hint", text: d.hint }) : null);
  }

  /** The value of one field, or undefined to leave it out; throws Error(message) when it cannot be read. */
  function readField(input) {
    var kind = input.dataset.kind, optional = !!input.dataset.optional, raw = input.value;
    if (kind === "boolean") return input.checked ? true : undefined;
    if (kind === "choice" && input.multiple) {
      var picked = Array.prototype.filter.call(input.options, function (o) { return o.selected; })
        .map(function (o) { return input._choices[+o.value]; });
      return picked.length || !optional ? picked : undefined;
    }
    if (kind === "choice") return raw === "__omit__" ? undefined : input._choices[+raw];
    raw = raw.trim();
    if (!raw) {
      if (optional) return undefined;
      throw new Error(input.name + " is needed");
    }
    if (kind === "integer") {
      if (!/^[+-]?\d+$/.test(raw)) throw new Error(input.name + " is a whole number");
      return parseInt(raw, 10);
    }
    if (kind === "target") {
      var m = /^(>=|<=|==|=|>|<)\s*(-?\d+)$/.exec(raw);
      if (m) return { compare: m[1] === "=" ? "==" : m[1], value: parseInt(m[2], 10) };
    }
    if (kind === "target" || kind === "json" || kind === "list") {
      try { return JSON.parse(raw); } catch (e) {
        if (kind === "list") return raw.split(",").map(function (s) { return s.trim(); }).filter(Boolean);
        throw new Error(input.name + " is JSON, e.g. " + (kind === "target" ? "{\"compare\": \">=\", \"value\": 8} or >=8" : "{}"));
      }
    }
    return raw;
  }

  function currentTemplate() {
    var picked = document.querySelector("input[name=kind]:checked");
    return picked && legal ? legal.orders[+picked.value] : null;
  }

  function showFields() {
    var template = currentTemplate(), box = W.clear($("fields"));
    $("order-rule").textContent = "";
    if (!template) return;
    if (template.kind === "__json__") {
      box.appendChild(W.el("div", { class: "field" },
        W.el("label", { "for": "raw-order", text: "The order as JSON" }),
        W.el("textarea", { id: "raw-order", rows: 4, spellcheck: "false", "aria-describedby": "raw-hint",
                           placeholder: "{\"kind\": \"...\"}" }),
        W.el("span", { id: "raw-hint", class: "hint", text: "Any order the ruleset takes, as in docs/rulesets.md." })));
      return;
    }
    if (template.rule) $("order-rule").textContent = "Rule " + template.rule + (template.prompt ? ": " + template.prompt : "");
    if (!template.fields) { freeShape(template, box); return; }
    Object.keys(template.fields).forEach(function (name) {
      box.appendChild(fieldInput(name, template.fields[name], "f"));
    });
    if (!Object.keys(template.fields).length) box.appendChild(W.el("p", { class: "hint", text: "No fields: just send it." }));
  }

  /* A template without "fields": its scalar values are sent as they are (op, decision); a key
   * holding {id: [choices]} becomes one select per id, sent as {id: choice}; anything else is
   * shown as help beside a JSON editor of the order as offered. */
  var WORDS = ["kind", "rule", "title", "prompt", "note", "label", "description", "decision_kind"];
  var OFFERS = ["options", "choices"];  // what a template offers to choose from, never sent

  function isChoiceMap(v) {
    return v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length &&
      Object.keys(v).every(function (k) { return Array.isArray(v[k]); });
  }

  function freeShape(template, box) {
    var fixed = { kind: template.kind }, maps = [], other = [];
    Object.keys(template).forEach(function (key) {
      var v = template[key];
      if (WORDS.indexOf(key) >= 0) return;
      if (v === null || typeof v !== "object") fixed[key] = v;
      else if (isChoiceMap(v)) maps.push(key);
      else other.push(key);
    });
    if (template.title || template.note) box.appendChild(W.el("p", { class: "hint", text: template.title || template.note }));
    if (!other.length) {
      maps.forEach(function (key) {
        var group = W.el("fieldset", { class: "choice-map", "data-field": key }, W.el("legend", { text: key.replace(/_/g, " ") }));
        Object.keys(template[key]).forEach(function (id, k) {
          var fid = "m-" + key + "-" + k, select = W.el("select", { id: fid, "data-map": key, "data-id": id });
          select.appendChild(W.el("option", { value: "", text: "—" }));
          template[key][id].forEach(function (c) {
            select.appendChild(W.el("option", { value: String(c), text: W.Board.nameOf(board, c) }));
          });
          var name = W.Board.nameOf(board, id);
          group.appendChild(W.el("div", { class: "field" },
            W.el("label", { "for": fid, text: name === id ? id.replace(/_/g, " ") : name }), select));
        });
        box.appendChild(group);
      });
      box.dataset.fixed = JSON.stringify(fixed);
      if (!maps.length) box.appendChild(W.el("p", { class: "hint", text: "No fields: just send it." }));
      return;
    }
    var help = W.el("dl", { class: "choices" });
    other.concat(maps).forEach(function (key) {  // in the game's names, then the ids the JSON takes
      help.appendChild(W.el("dt", { text: key }));
      help.appendChild(W.el("dd", null, W.Board.words(board, template[key]), W.el("br"),
                            W.el("code", { text: JSON.stringify(template[key]) })));
    });
    box.appendChild(W.el("p", { class: "hint", text: "Choices offered:" }));
    box.appendChild(help);
    box.appendChild(W.el("div", { class: "field" },
      W.el("label", { "for": "raw-order", text: "The order as JSON" }),
      W.el("textarea", { id: "raw-order", rows: 4, spellcheck: "false", "aria-describedby": "raw-hint" })));
    box.appendChild(W.el("span", { id: "raw-hint", class: "hint", text: "Add the fields this operation needs (docs/rulesets.md)." }));
    // A list or object the template gives is a value of the order offered (STF's templates are whole
    // orders: a purchase, its task forces, a path), sent as it is unless the player changes it;
    // what it offers to choose from (options, choices, {id: [choices]}) is not.
    var offered = Object.assign({}, fixed);
    other.forEach(function (key) { if (OFFERS.indexOf(key) < 0) offered[key] = template[key]; });
    $("raw-order").value = JSON.stringify(offered);
  }

  /** A template's name in the order list: its label or title, else its kind; a kind offered more
   * than once without either (STF 1.1's eight campaigns) adds the values it sends, so each reads
   * apart ("campaign: map giuk, side US"). */
  function kindLabel(t, all) {
    if (t.label || t.title) return t.label || t.title;
    var twins = all.filter(function (o) { return o.kind === t.kind && !o.label && !o.title; });
    if (twins.length < 2) return t.kind;
    var values = Object.keys(t).filter(function (k) {
      return WORDS.indexOf(k) < 0 && k !== "fields" && t[k] !== null && typeof t[k] !== "object";
    }).map(function (k) { return k.replace(/_/g, " ") + " " + W.Board.nameOf(board, t[k]); });
    return t.kind + (values.length ? ": " + values.join(", ") : "");
  }

  function renderOrders() {
    var box = $("orders-box"), mine = W.keys.seat(gameId);
    box.hidden = !mine;
    if (!mine) return;
    var keep = document.querySelector("input[name=kind]:checked");
    keep = keep ? keep.dataset.label : null;
    legal = legal || { orders: [] };
    var orders = (legal.orders || []).filter(function (t) { return t.kind !== "__json__"; });
    var all = orders.concat(orders.length ? [{ kind: "__json__", label: "other (JSON)", fields: {} }] : []);
    legal.orders = all;
    var signature = JSON.stringify(orders) + (summary && summary.ended ? "ended" : "") + (askedTakeBack ? "asked" : "");
    if (signature === shownOrders) return;  // unchanged: keep what the player is typing
    shownOrders = signature;
    var kinds = $("kinds");
    Array.prototype.slice.call(kinds.querySelectorAll("label, p")).forEach(function (n) { n.remove(); });
    if (!orders.length) {
      kinds.appendChild(W.el("p", { class: "hint", text: summary && summary.ended ? "The game has ended." :
                                    askedTakeBack ? "Nothing to order until the take-back is answered." :
                                    "Nothing to order now: wait for your move." }));
    }
    var checked = false;
    var labels = all.map(function (t) { return kindLabel(t, all); });
    if (keep && labels.indexOf(keep) < 0) keep = null;  // gone: the first one
    all.forEach(function (t, k) {
      var on = keep ? labels[k] === keep : k === 0;
      if (on && !checked) checked = true; else on = false;
      kinds.appendChild(W.el("label", { class: "kind" },
        W.el("input", { type: "radio", name: "kind", value: k, checked: on, "data-kind": t.kind + (t.op !== undefined ? ":" + t.op : ""),
                        "data-label": labels[k], onchange: showFields }),
        " " + labels[k] + (t.rule ? " " : ""),
        t.rule ? W.el("span", { class: "rule", text: "(" + t.rule + ")" }) : null));
    });
    $("send").disabled = !orders.length;
    showFields();
  }

  // ---------------------------------------------------------------------- sealed orders ----
  // A sealed-orders round (docs/api.md, "Sealed orders"): orders from the form are added to a
  // draft; "Seal" keeps the orders and a fresh 128-bit salt in localStorage, then sends only
  // SHA-256 of the canonical JSON of {game, seat, round, orders, salt}; "Reveal" sends them. A
  // seat with a key signs each over the head it saw, as it signs an order.
  var SEALED = "warlog:sealed:";

  function sealedRound() { return state && state.sealed ? state.sealed : null; }

  function sealedKept(seat) {
    try { return JSON.parse(localStorage.getItem(SEALED + gameId + ":" + seat) || "null"); } catch (e) { return null; }
  }

  function keepSealed(seat, value) {
    if (value) localStorage.setItem(SEALED + gameId + ":" + seat, JSON.stringify(value));
    else localStorage.removeItem(SEALED + gameId + ":" + seat);
  }

  /** Python's json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) { return JSON.stringify(k) + ":" + canonical(value[k]); }).join(",") + "}";
    }
    return JSON.stringify(value);
  }

  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  async function commitmentOf(seat, round, orders, salt) {
    var text = canonical({ game: gameId, seat: seat, round: round, orders: orders, salt: salt });
    return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  }

  /** The seat's draft for the open round (orders not yet sealed), or what it sealed. */
  function sealedDraft(seat, round) {
    var kept = sealedKept(seat);
    return kept && kept.round === round ? kept : { round: round, orders: [] };
  }

  function renderSealed() {
    var round = sealedRound(), mine = W.keys.seat(gameId), box = $("sealed-box");
    box.hidden = !round;
    $("send").textContent = round ? "Add to sealed orders" : "Send order";
    if (!round) return;
    $("takeback").hidden = true;  // no take-backs while a round is open (the server refuses them)
    var waiting = round.must_commit.length ? round.must_commit : round.must_reveal;
    $("sealed-round").textContent = "Round " + round.round + " (" + round.rule + "): sealed by " +
      (round.committed.join(", ") || "nobody") + "; revealed by " + (round.revealed.join(", ") || "nobody") + "; " +
      (round.must_commit.length ? "to seal: " : "to reveal: ") + waiting.join(", ") + ".";
    var inRound = mine && round.seats.indexOf(mine.seat) >= 0;
    $("sealed-mine").hidden = !inRound;
    if (!inRound) return;
    var draft = sealedDraft(mine.seat, round.round), sealedAlready = round.committed.indexOf(mine.seat) >= 0;
    var list = W.clear($("sealed-draft"));
    draft.orders.forEach(function (order, k) {
      list.appendChild(W.el("li", { class: "sealed-order", text: (k + 1) + ". " + canonical(order) + " " },
        draft.salt ? null : W.el("button", { type: "button", class: "quiet", text: "Remove", "aria-label": "Remove sealed order " + (k + 1),
                                             onclick: function () { draft.orders.splice(k, 1); keepSealed(mine.seat, draft); renderSealed(); } })));
    });
    if (!draft.orders.length) list.appendChild(W.el("li", { class: "hint", text: sealedAlready ? "Sealed in another browser, or no orders." : "No orders yet: add them with the form below (none is allowed)." }));
    $("seal").disabled = sealedAlready;
    $("reveal").disabled = !sealedAlready || round.must_commit.length > 0 || round.revealed.indexOf(mine.seat) >= 0 || !draft.salt;
  }

  async function sealOrders() {
    var mine = W.keys.seat(gameId), round = sealedRound();
    if (!mine || !round) return;
    var draft = sealedDraft(mine.seat, round.round);
    if (!window.crypto || !crypto.subtle) { W.status("Sealing needs a secure page (https): this browser offers no SHA-256 here.", "error"); return; }
    if (!draft.salt) {
      var salt = new Uint8Array(16);
      crypto.getRandomValues(salt);
      draft.salt = hex(salt);
      draft.commitment = await commitmentOf(mine.seat, round.round, draft.orders, draft.salt);
      keepSealed(mine.seat, draft);  // kept before sending: a lost answer loses nothing
    }
    var jwk = (W.keys.load(gameId).signing || {})[mine.seat], head = summary.chain_head;
    var headers = jwk ? signedHeaders(await W.signing.signSeal(jwk, gameId, mine.seat, round.round, draft.commitment, head), head) : {};
    var res = await W.api("/api/v1/games/" + gameId + "/sealed", { method: "POST", body: { commitment: draft.commitment }, token: mine.token, headers: headers });
    await keepSignedHead(res);
    if (res.ok) showResult(res.body, null);
    W.status(res.ok ? "Sealed " + draft.orders.length + " order(s) for round " + round.round + "; reveal them once every seat has sealed."
                    : "Not sealed: " + refusal(res, mine), res.ok ? "ok" : "error");
    await refresh();
  }

  async function revealOrders() {
    var mine = W.keys.seat(gameId), round = sealedRound();
    if (!mine || !round) return;
    var draft = sealedDraft(mine.seat, round.round);
    var jwk = (W.keys.load(gameId).signing || {})[mine.seat], head = summary.chain_head;
    var headers = jwk ? signedHeaders(await W.signing.signReveal(jwk, gameId, mine.seat, round.round, draft.orders, draft.salt, head), head) : {};
    var res = await W.api("/api/v1/games/" + gameId + "/sealed/reveal", { method: "POST", body: { orders: draft.orders, salt: draft.salt }, token: mine.token, headers: headers });
    await keepSignedHead(res);
    if (res.ok) { keepSealed(mine.seat, null); showResult(res.body, null); }
    W.status(res.ok ? "Revealed your orders of round " + round.round + "." : "Not revealed: " + refusal(res, mine), res.ok ? "ok" : "error");
    await refresh();
  }

  /** A seat's command refused, in words; a refusal for want of a signature where this browser holds
   * no key for the seat (its token pasted here) says where the seat's key is. */
  function refusal(res, mine) {
    var text = W.problem(res);
    if (!res.body || res.body.code !== "signature_required" || !mine) return text;
    if ((W.keys.load(gameId).signing || {})[mine.seat]) return text;
    return mine.seat + " signs its orders with the key kept in the browser that joined the seat, and this browser " +
      "holds none: give them from that browser (here its token reads only). " + text;
  }

  function signedHeaders(signature, head) {
    return { "Warlog-Signature": signature, "Warlog-Head": head };
  }

  // ---------------------------------------------------------------------------- sending ----
  /* An order's id is kept in this browser, per seat, until an order is accepted under it: a
   * refused order's next attempt, corrected or not, has the same id and so the same dice; a new id
   * after a refusal would be a new roll a dishonest server could wait for (docs/dice.md, "Retries
   * keep their id"). */
  function pendingOrderId(seat) {
    var id = (W.keys.load(gameId).pending_orders || {})[seat];
    if (id) return id;
    id = W.uuid();
    W.keys.update(gameId, function (k) { k.pending_orders = Object.assign({}, k.pending_orders, { [seat]: id }); });
    return id;
  }

  function spendOrderId(seat, id) {
    W.keys.update(gameId, function (k) {
      if (k.pending_orders && k.pending_orders[seat] === id) delete k.pending_orders[seat];
    });
  }

  /** Whether the log holds an OrderAccepted under ``id``: what spends an id the server says was used. */
  async function acceptedInLog(id, token) {
    var after = 0;
    while (after !== null && after !== undefined) {
      var page = await W.api("/api/v1/games/" + gameId + "/events?limit=500&after=" + after, { token: token });
      if (!page.ok) return false;
      if ((page.body.events || []).some(function (line) {
        return line.type === "OrderAccepted" && line.data && line.data.order_id === id;
      })) return true;
      after = page.body.next_after;
    }
    return false;
  }

  async function send(e) {
    e.preventDefault();
    var mine = W.keys.seat(gameId), template = currentTemplate();
    if (!mine || !template) return;
    var order;
    try {
      if ($("raw-order")) {
        try { order = JSON.parse($("raw-order").value || "null"); } catch (err) { throw new Error("the order is not JSON: " + err.message); }
        if (!order || typeof order !== "object" || Array.isArray(order)) throw new Error("the order is a JSON object");
      } else if (!template.fields) {
        order = JSON.parse($("fields").dataset.fixed || "{}");
        Array.prototype.forEach.call($("fields").querySelectorAll("select[data-map]"), function (select) {
          if (!select.value) return;
          order[select.dataset.map] = order[select.dataset.map] || {};
          order[select.dataset.map][select.dataset.id] = select.value;
        });
      } else {
        order = { kind: template.kind };
        Array.prototype.forEach.call($("fields").querySelectorAll("input, select"), function (input) {
          var value = readField(input);
          if (value !== undefined) order[input.name] = value;
        });
      }
    } catch (err) {
      W.status("Not sent: " + err.message, "error");
      return;
    }
    var round = sealedRound();
    if (round) {  // a sealed-orders round: the order joins the draft, sent only when revealed
      var draft = sealedDraft(mine.seat, round.round);
      if (draft.salt) { W.status("Your orders for round " + round.round + " are sealed already.", "error"); return; }
      draft.orders.push(order);
      keepSealed(mine.seat, draft);
      W.status("Added to your sealed orders (" + draft.orders.length + "); seal them when they are all there.", "ok");
      renderSealed();
      return;
    }
    var orderId = pendingOrderId(mine.seat);
    $("send").disabled = true;
    W.status("Sending…");
    var headers = { "Idempotency-Key": orderId };
    if (legal && legal.version) headers["If-Match"] = '"' + legal.version + '"';
    var jwk = (W.keys.load(gameId).signing || {})[mine.seat];
    if (jwk) {  // a seat with a key signs the order over the head it saw; a resend, the same signature
      var body = W.canonical(order);
      if (!pendingSignature || pendingSignature.key !== orderId || pendingSignature.body !== body) {
        var head = summary.chain_head;
        pendingSignature = { key: orderId, body: body, head: head,
                             signature: await W.signing.signOrder(jwk, gameId, orderId, order, head) };
      }
      headers["Warlog-Signature"] = pendingSignature.signature;
      headers["Warlog-Head"] = pendingSignature.head;
    }
    var res = await W.api("/api/v1/games/" + gameId + "/orders",
                          { method: "POST", body: order, token: mine.token, headers: headers });
    if (res.ok) {
      spendOrderId(mine.seat, orderId);
      await keepSignedHead(res);
      showResult(res.body, order);
      W.status("Recorded: version " + res.body.version + (res.body.replayed ? " (sent before: the first result)" : "") + ".", "ok");
      try {
        await refresh();
      } finally {
        // Only now: the next order is chosen from (and If-Match names) the state this one made,
        // not the one before it, which the server would refuse as moved on.
        $("send").disabled = !(legal && legal.orders && legal.orders.length);
      }
      return;
    }
    $("send").disabled = false;
    if (res.status === 0) {  // keep the key: sending again records the order at most once
      W.status("Not sure it arrived: " + W.problem(res) + ". Send again: the same order id is reused.", "error");
      return;
    }
    if (res.body && res.body.code === "idempotency_conflict") {
      if (await acceptedInLog(orderId, mine.token)) {  // an earlier attempt was accepted, its answer lost
        spendOrderId(mine.seat, orderId);
        W.status("Not recorded: an earlier order of yours was accepted under this order id (see the history). " +
                 "Send again: a new id is used.", "error");
        await refresh();
        return;
      }
      W.status("Refused: " + W.problem(res) + " The log holds no order under this id: it is kept.", "error");
      return;
    }
    var code = res.body && res.body.code;  // a lost race; any other 409 (damaged_log) is refused below, saying why
    if (code === "stale_version" || code === "version_conflict") {  // nothing recorded: the id is kept for the next attempt
      W.status("The game moved on before your order arrived; nothing was recorded. Look again and resend.", "error");
      await refresh();
      return;
    }
    W.status("Refused: " + refusal(res, mine), "error");  // the id is kept for the next attempt
  }

  function showResult(result, order) {
    lastResult = result;
    var box = W.clear($("result"));
    box.dataset.version = String(result.version);
    $("result-box").hidden = false;
    box.appendChild(W.el("p", { class: "hint", text: (order ? "Order " + (order.kind ? order.kind + " " : "") + "recorded" : "Recorded") +
                                " at version " + result.version + " · chain head " +
                                String(result.chain_head || "").slice(0, 16) + "…" }));
    var list = W.el("ul", { class: "plain result-lines" });
    (result.events || []).forEach(function (line) {
      var item = W.el("li", { "data-type": line.type, "data-seq": line.seq, text: line.text || line.type }, answeredBy(line));
      if (line.type === "DiceRolled") item.appendChild(W.dice(W.rollOfLine(line)));
      if (line.type === "SealedDiceRolled") item.appendChild(W.dice(W.rollOfLine(line, "sealed")));
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  /** The headers of a keyed seat's other command (``kind`` and its ``fields``), signed with the key
   * kept in this browser over the head it saw; none for a seat without one. A format-1 game's
   * server ignores them. */
  async function commandHeaders(mine, kind, fields) {
    var jwk = (W.keys.load(gameId).signing || {})[mine.seat], head = summary.chain_head;
    return jwk ? signedHeaders(await W.signing.signCommand(jwk, gameId, kind, mine.seat, fields, head), head) : {};
  }

  /** Keep the signed head a command's answer holds, as orders, seals and reveals do, once its
   * signature verifies (W.keys.keepHead). */
  async function keepSignedHead(res) {
    if (res.ok && res.body) await W.keys.keepHead(gameId, res.body);
  }

  async function takeBack() {
    var mine = W.keys.seat(gameId);
    var headers = await commandHeaders(mine, "take_back", { reason: "" });
    var res = await W.api("/api/v1/games/" + gameId + "/take-backs",
                          { method: "POST", body: { reason: "" }, token: mine.token, headers: headers });
    await keepSignedHead(res);
    W.status(res.ok ? "Take-back asked for; the opponent answers." : "Refused: " + refusal(res, mine), res.ok ? "ok" : "error");
    refresh();
  }

  async function answer(accept) {
    var mine = W.keys.seat(gameId);
    var res = await W.api("/api/v1/games/" + gameId + "/take-backs/answer",
                          { method: "POST", body: { accept: accept }, token: mine.token,
                            headers: await commandHeaders(mine, "take_back_answer", { accept: !!accept }) });
    await keepSignedHead(res);
    W.status(res.ok ? (accept ? "Take-back accepted." : "Take-back declined.") : "Refused: " + refusal(res, mine), res.ok ? "ok" : "error");
    refresh();
  }

  async function concede() {
    var mine = W.keys.seat(gameId);
    if (!window.confirm("Concede the game as " + mine.seat + "? This cannot be undone.")) return;
    var headers = await commandHeaders(mine, "concede", {});
    var res = await W.api("/api/v1/games/" + gameId + "/concede", { method: "POST", token: mine.token, headers: headers });
    await keepSignedHead(res);
    W.status(res.ok ? "You conceded." : "Refused: " + refusal(res, mine), res.ok ? "ok" : "error");
    refresh();
  }

  /** Replace the seat's token (a leaked one; docs/api.md, "A seat's token replaced") and keep the new
   * one. The request's key is kept, with the token it replaces, before it is sent: pressed again
   * after a lost answer, the same request gets the same token back. */
  async function replaceToken() {
    var mine = W.keys.seat(gameId);
    if (!mine || !window.confirm("Replace the " + mine.seat + " token? The old one stops working, wherever " +
                                 "it is kept (another browser, the command line).")) return;
    var pending = W.keys.update(gameId, function (k) {
      var kept = (k.replacing || {})[mine.seat];
      k.replacing = k.replacing || {};
      if (!kept || kept.token !== mine.token) k.replacing[mine.seat] = { token: mine.token, key: W.newId() };
    }).replacing[mine.seat];
    var headers = Object.assign({ "Idempotency-Key": pending.key },
                                await commandHeaders(mine, "seat_token", { request_id: pending.key }));
    var res = await W.api("/api/v1/games/" + gameId + "/seat-token", { method: "POST", token: mine.token, headers: headers });
    if (res.ok && res.body && res.body.seat === mine.seat && res.body.token) {
      W.keys.update(gameId, function (k) { k.seats[mine.seat] = res.body.token; delete k.replacing[mine.seat]; });
    }
    W.status(res.ok ? "Your " + mine.seat + " token was replaced; the old one no longer works. This browser keeps the new one."
             : "Refused: " + refusal(res, mine), res.ok ? "ok" : "error");
    restartFollowing();
    refresh();
  }

  // -------------------------------------------------------------------------- rendering ----
  function renderSummary() {
    var s = summary, mine = W.keys.seat(gameId);
    $("title").textContent = String(s.ruleset_title || s.ruleset).split(":")[0] + " · game " + W.short(gameId);
    document.title = "Game " + W.short(gameId) + " · warlog";
    var seats = s.seats.map(function (x) { return x.seat + (x.handle ? " (" + x.handle + ")" : " (open)"); }).join(", ");
    $("summary").textContent = "Turn " + (s.turn === null ? "–" : s.turn) + " · " + (s.phase || "") +
      " · " + s.status + " · version " + s.version + " · seats: " + seats + (s.public ? " · public" : "");
    var turn = $("turn"), text, cls = "turn";
    if (s.ended) {
      text = "The game has ended: " + (s.ended.winner ? s.ended.winner + " won" : "a draw") +
        (s.ended.reason ? " (" + s.ended.reason + ")" : "") + ".";
      cls += " ended";
    } else if (s.status === "waiting") {
      text = "Waiting for every seat to join: " + s.seats.filter(function (x) { return !x.joined; })
        .map(function (x) { return x.seat; }).join(", ") + ".";
    } else if (mine && s.whose_move.indexOf(mine.seat) >= 0) {
      // While a take-back waits, the move of the seats named is its answer, in the Take-back panel.
      text = "Your move, " + mine.seat + (askedTakeBack ? ": answer " + askedTakeBack.seat + "'s take-back (below)." : ".");
      cls += " yours";
    } else if (mine && askedTakeBack && askedTakeBack.seat === mine.seat) {
      text = "Waiting for " + (s.whose_move.join(" or ") || "nobody") + " to answer your take-back…";
      cls += " waiting";
    } else {
      // A sealed-orders round waits for every seat it names (FF 8), not for any one of them.
      var round = sealedRound();
      text = round ? "Waiting for " + (s.whose_move.join(" and ") || "nobody") + " to " +
                     (round.must_commit.length ? "seal" : "reveal") + " their orders (" + round.rule + ")."
        : "Waiting for " + (s.whose_move.join(" or ") || "nobody") + (mine ? "…" : ".");
      cls += " waiting";
    }
    turn.textContent = text;
    turn.className = cls;
    if (!s.ended && s.clock && s.clock.deadline) {  // a time control: how long the seats to move have
      turn.appendChild(W.el("span", { class: "time-left" + (s.clock.timed_out ? " late" : ""), id: "time-left",
                                      text: " " + W.timeLeft(s.clock) + " (deadline " + s.clock.deadline + ")" }));
    }
    // an ended game takes neither a take-back nor a concession (the server refuses both), and a
    // game whose rules name no take-back never takes one (STF, the proving ground)
    $("concede").hidden = !!s.ended;
    // and a seat asks to take back only its own last order, while no request waits (FF 6: the
    // server refuses the rest)
    $("takeback").hidden = !!s.ended || takeBackRule === null || !takeBackable;
    renderAccess();
    renderOpenInvites();
  }

  // The lobby shows the invite links once, when the game is made; the creator's browser keeps the
  // codes, so while a seat is open its link is here to send.
  function renderOpenInvites() {
    var invites = W.keys.load(gameId).invites || {}, s = summary;
    var open = s.ended ? [] : s.seats.filter(function (x) { return !x.joined && invites[x.seat]; });
    var list = W.clear($("open-invite-list"));
    open.forEach(function (x) { list.appendChild(W.inviteItem(gameId, x.seat, invites[x.seat])); });
    $("open-invites").hidden = !open.length;
  }

  // An ended game takes no join (the server refuses it): a browser that reads it with a token needs
  // no access box, and a visitor is offered only the paste form, saying why.
  function renderAccess() {
    var keys = W.keys.load(gameId), over = !!(summary && summary.ended);
    $("join").hidden = over;
    $("access-h").textContent = over ? "Read it with a token" : "Take your seat";
    if (!over) return;
    if (Object.keys(keys.seats).length || keys.umpire || keys.spectator || keys.admin) $("access").hidden = true;
    else $("access-note").textContent = "The game has ended: no seat can be joined. A seat's, the umpire's or a " +
      "spectator's token shows what it may see.";
  }

  // Where the game started: a named position, or the game and event a sandbox was forked from.
  function renderOrigin() {
    var box = W.clear($("origin")), s = summary;
    box.hidden = !s.sandbox && !s.position;
    if (s.sandbox) {
      box.appendChild(W.el("span", { class: "badge sandbox", text: "sandbox" }));
      W.add(box, [" A sandbox of game ",
        W.el("a", { href: "/games/" + s.sandbox.source, id: "origin-source", title: s.sandbox.source, text: W.short(s.sandbox.source) }),
        " at event ", W.el("a", { href: "/games/" + s.sandbox.source + "/replay#seq=" + s.sandbox.at, text: String(s.sandbox.at) }),
        ": its own dice, not counted in the source game or in statistics."]);
    }
    if (s.position) {
      W.add(box, [(s.sandbox ? " " : "") + "Started from the position “" + (s.position.title || s.position.position) + "” (" +
                  s.position.position + ")."]);
    }
  }

  // ------------------------------------------------------------------------ time control ----
  // A game with a time control (docs/api.md, "Time control"): the seat's vacation allowance, a
  // vacation, more time for the seats to move, and the claim once their deadline has passed.
  function renderTime() {
    var box = $("time-box"), mine = W.keys.seat(gameId), clock = summary.clock;
    box.hidden = !mine || !clock || !!summary.ended;
    if (box.hidden) return;
    var moving = clock.seats.indexOf(mine.seat) >= 0, used = (clock.vacations[mine.seat] || {}).used || 0;
    var left = clock.control.vacation_days - used;
    $("time-status").textContent = clock.control.days + " day" + (clock.control.days > 1 ? "s" : "") + " per " +
      clock.control.per + (clock.deadline ? "; " + clock.seats.join(", ") + ": " + W.timeLeft(clock) : "") +
      "; your vacation days left: " + left + ".";
    $("vacation").hidden = left < 1;
    $("extend").hidden = moving || !clock.deadline;
    $("claim").hidden = moving || !clock.timed_out || clock.control.on_timeout !== "claim";
  }

  // A vacation's or extension's Idempotency-Key, kept until its answer comes: a second click meanwhile
  // (a double click) sends the same command under the same key, and the server records it once.
  var timeKeys = {};

  async function timeCommand(path, kind, body, done) {
    var mine = W.keys.seat(gameId), slot = kind + " " + JSON.stringify(body || {});
    var key = kind === "claim_win" ? null : (timeKeys[slot] = timeKeys[slot] || W.newId());
    var headers = await commandHeaders(mine, kind, body || {});
    if (key) headers["Idempotency-Key"] = key;
    var res = await W.api("/api/v1/games/" + gameId + path, { method: "POST", body: body, token: mine.token,
                                                            headers: headers });
    if (key && timeKeys[slot] === key) delete timeKeys[slot];
    await keepSignedHead(res);
    W.status(res.ok ? done : "Refused: " + refusal(res, mine), res.ok ? "ok" : "error");
    refresh();
  }

  function timeDays() { return parseInt($("time-days").value, 10); }

  // --------------------------------------------------------------------- standing orders ----
  // The seat's standing orders (GET …/standing-orders: its orders and what the ruleset accepts);
  // the panel is shown to a seat of a ruleset that takes them, or while one is set.
  function renderStanding() {
    var box = $("standing-box"), mine = W.keys.seat(gameId);
    var accepts = (standing && standing.accepts) || {}, kinds = Object.keys(accepts);
    var orders = (standing && standing.standing_orders) || [];
    box.hidden = !mine || !standing || (!kinds.length && !orders.length);
    if (box.hidden) return;
    var list = W.clear($("standing"));
    orders.forEach(function (o) {
      list.appendChild(W.el("li", { class: "standing-order", "data-policy": o.policy_id },
        W.el("strong", { text: o.policy_id }), " for " + o.decision_kind + ": ",
        W.el("code", { text: JSON.stringify(o.policy) }),
        o.rule ? W.el("span", { class: "rule", text: " (" + o.rule + ")" }) : null, " ",
        W.el("button", { type: "button", class: "quiet", text: "Cancel", "aria-label": "Cancel standing order " + o.policy_id,
                         onclick: function () { cancelStanding(o.policy_id); } })));
    });
    if (!orders.length) list.appendChild(W.el("li", { class: "hint", text: "No standing orders." }));
    var select = $("so-kind"), keep = select.value;
    if (select.dataset.kinds !== kinds.join(",")) {
      W.clear(select);
      kinds.forEach(function (k) { select.appendChild(W.el("option", { value: k, text: k, selected: k === keep })); });
      select.dataset.kinds = kinds.join(",");
    }
    $("standing-form").hidden = !kinds.length;
    acceptsNote();
  }

  function acceptsNote() {
    var a = ((standing && standing.accepts) || {})[$("so-kind").value];
    $("so-accepts").textContent = a ? (a.description || "") + (a.rule ? " (" + a.rule + ")" : "") : "";
  }

  async function setStanding(e) {
    e.preventDefault();
    var mine = W.keys.seat(gameId), id = $("so-id").value.trim(), policy;
    if (!id) { W.status("Standing order: give it a name.", "error"); return; }
    try { policy = JSON.parse($("so-policy").value || "null"); } catch (err) {
      W.status("Standing order: the policy is not JSON (" + err.message + ")", "error"); return;
    }
    // Signed as given: a policy the rules record in another form is refused naming that form.
    var kind = $("so-kind").value;
    var headers = await commandHeaders(mine, "standing_order", { policy_id: id, decision_kind: kind, policy: policy });
    var res = await W.api("/api/v1/games/" + gameId + "/standing-orders/" + encodeURIComponent(id),
                          { method: "PUT", body: { decision_kind: kind, policy: policy }, token: mine.token, headers: headers });
    await keepSignedHead(res);
    if (!res.ok) { W.status("Standing order refused: " + refusal(res, mine), "error"); return; }
    W.status("Standing order " + id + " set.", "ok");
    await refresh();
  }

  async function cancelStanding(id) {
    var mine = W.keys.seat(gameId);
    var res = await W.api("/api/v1/games/" + gameId + "/standing-orders/" + encodeURIComponent(id),
                          { method: "DELETE", token: mine.token,
                            headers: await commandHeaders(mine, "standing_order_cancel", { policy_id: id }) });
    await keepSignedHead(res);
    W.status(res.ok ? "Standing order " + id + " cancelled." : "Not cancelled: " + refusal(res, mine), res.ok ? "ok" : "error");
    await refresh();
  }

  // ----------------------------------------------------------------------- notifications ----
  // The seat's own notification choices (GET/PUT …/notifications), read once per seat held, so a
  // refresh after each event never overwrites what the player is typing.
  var notifyFor = null, notifyHook = null;

  async function loadNotify(mine) {
    $("notify-box").hidden = !mine;
    if (!mine || notifyFor === mine.seat + " " + mine.token) return;
    notifyFor = mine.seat + " " + mine.token;
    var res = await W.api("/api/v1/games/" + gameId + "/notifications", { token: mine.token });
    // Unread, the form holds the page's defaults, not the seat's choices: saving them would
    // overwrite what the seat chose, so it waits for a read that works (the next reload).
    $("n-save").disabled = !res.ok;
    if (res.ok) { showNotify(res.body); return; }
    notifyFor = null;
    W.status("Notifications not read: " + W.problem(res) + ". They cannot be saved until they are; the page reads " +
             "them again at the next event or reload.", "error");
  }

  function checked(id) {
    return Array.prototype.filter.call($(id).querySelectorAll("input"), function (i) { return i.checked; })
      .map(function (i) { return i.value; });
  }

  function showNotify(n) {
    $("n-email").value = n.email || "";
    // No turn mail goes to an address until its owner follows the link of its confirmation mail.
    $("n-confirm").hidden = !n.email || n.email_confirmed;
    $("n-confirm").textContent = !n.email || n.email_confirmed ? "" :
      (n.confirmation_mail ? "A confirmation mail is on its way to this address. " : "This address is not confirmed. ") +
      "No turn mail goes to it until the link in that mail is followed; saving sends another.";
    $("n-on").checked = !!n.notify;
    $("n-digest").checked = !!n.digest;
    $("n-webhook").value = n.webhook_url || "";
    $("n-format").value = n.webhook_format || "warlog";
    notifyHook = n.webhook_url || null;
    ["n-events", "n-channels"].forEach(function (id) {
      var want = id === "n-events" ? n.events : n.channels;
      $(id).querySelectorAll("input").forEach(function (i) { i.checked = want.indexOf(i.value) >= 0; });
    });
    $("n-secret").hidden = !n.webhook_secret;
    $("n-secret").textContent = n.webhook_secret
      ? "Your webhook's secret, shown once (it signs each delivery): " + n.webhook_secret : "";
  }

  async function saveNotify(e) {
    e.preventDefault();
    var mine = W.keys.seat(gameId);
    var body = { notify: $("n-on").checked, events: checked("n-events"), channels: checked("n-channels"),
                 digest: $("n-digest").checked, webhook_format: $("n-format").value };
    if ($("n-email").value.trim()) body.email = $("n-email").value.trim();
    var hook = $("n-webhook").value.trim() || null;
    if (hook !== notifyHook) body.webhook_url = hook;
    // A keyed seat signs its settings (kind "notifications"): its token alone cannot change them.
    // Each signature is used once; the nonce lets the same settings be saved again over the same head.
    body.nonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), function (b) { return b.toString(16).padStart(2, "0"); }).join("");
    var headers = await commandHeaders(mine, "notifications", { settings: body });
    var res = await W.api("/api/v1/games/" + gameId + "/notifications",
                          { method: "PUT", body: body, token: mine.token, headers: headers });
    if (!res.ok) { W.status("Notifications not saved: " + refusal(res, mine), "error"); return; }
    showNotify(res.body);
    W.status("Notifications saved.", "ok");
  }

  // ----------------------------------------------------------------------- game webhook ----
  // The game's webhook (PUT …/webhook), for a browser holding the admin token. There is no read of
  // it (the secret is never given back), so the form starts empty and saving replaces what was set.
  function renderHook() {
    $("hook-box").hidden = !W.keys.load(gameId).admin;
  }

  async function putHook(body, done) {
    var res = await W.api("/api/v1/games/" + gameId + "/webhook",
                          { method: "PUT", body: body, token: W.keys.load(gameId).admin });
    if (!res.ok) { W.status("Webhook not saved: " + W.problem(res), "error"); return false; }
    $("h-secret").value = "";
    $("h-shown").hidden = !res.body.secret;
    $("h-shown").textContent = res.body.secret
      ? "The webhook's secret, shown once (it signs each delivery): " + res.body.secret : "";
    W.status(done, "ok");
    return true;
  }

  function saveHook(e) {
    e.preventDefault();
    var body = { url: $("h-url").value.trim(), format: $("h-format").value };
    if ($("h-secret").value.trim()) body.secret = $("h-secret").value.trim();
    if (!body.url) { W.status("Webhook not saved: url: give the webhook's URL (or remove the webhook).", "error"); return; }
    putHook(body, "Webhook saved (" + $("h-format").selectedOptions[0].textContent + ").");
  }

  function removeHook() {
    if (!window.confirm("Remove this game's webhook?")) return;
    putHook({ url: null }, "Webhook removed.").then(function (ok) { if (ok) $("h-url").value = ""; });
  }

  // ------------------------------------------------------------------------- spectators ----
  // The game's named spectator tokens (…/spectator-tokens), for a browser holding the admin token:
  // issue one (the token shown once, in this panel only), list them, revoke a live one. The list is
  // read when the panel first shows and after each change, not on every event of the game.
  var spectatorsFor = null, shownTokenId = null;

  function spectatorPath(suffix) { return "/api/v1/games/" + gameId + "/spectator-tokens" + (suffix || ""); }

  async function loadSpectators() {
    var admin = W.keys.load(gameId).admin;
    $("spec-box").hidden = !admin;
    if (!admin) { spectatorsFor = null; hideIssued(); return; }
    if (spectatorsFor === admin) return;
    spectatorsFor = admin;
    await listSpectators();
  }

  async function listSpectators() {
    var res = await W.api(spectatorPath(), { token: W.keys.load(gameId).admin });
    if (!res.ok) { W.status("Spectator tokens: " + W.problem(res), "error"); return; }
    renderSpectators(res.body.tokens || []);
  }

  /** An ISO time from the server as "2026-11-27 18:40 UTC", the exact one in its datetime. */
  function when(iso) {
    return W.el("time", { datetime: iso, title: iso, text: String(iso).slice(0, 16).replace("T", " ") + " UTC" });
  }

  function renderSpectators(tokens) {
    var rows = W.clear($("sp-list").tBodies[0]);
    tokens.forEach(function (t) {
      var live = !t.revoked_at;
      rows.appendChild(W.el("tr", { class: "spectator-token " + (live ? "live" : "revoked"), "data-token-id": t.token_id },
        W.el("td", { class: "sp-name", text: t.name }),
        W.el("td", {}, W.el("code", { text: t.token_id })),
        W.el("td", {}, when(t.created_at)),
        W.el("td", { class: "sp-state" }, live ? W.el("span", { class: "badge live", text: "live" }) : ["revoked ", when(t.revoked_at)]),
        W.el("td", {}, live ? W.el("button", { type: "button", class: "quiet danger", text: "Revoke",
                                               "aria-label": "Revoke the spectator token " + t.token_id + " of " + t.name,
                                               onclick: function () { revokeSpectator(t); } }) : null)));
    });
    if (!tokens.length) rows.appendChild(W.el("tr", {}, W.el("td", { colspan: 5, class: "hint", text: "No spectator token issued yet." })));
  }

  async function issueSpectator(e) {
    e.preventDefault();
    // the name as typed: the server trims it and says what is wrong with it (name: …)
    var res = await W.api(spectatorPath(), { method: "POST", body: { name: $("sp-name").value },
                                             token: W.keys.load(gameId).admin });
    if (!res.ok) { W.status("Spectator token not issued: " + W.problem(res), "error"); return; }
    $("sp-name").value = "";
    shownTokenId = res.body.token_id;
    $("sp-shown-note").textContent = "The spectator token of " + res.body.name + " (id " + res.body.token_id +
      "), shown only now: the server never shows it again. Give it to them.";
    $("sp-token").value = res.body.token;
    $("sp-shown").hidden = false;
    W.status("Spectator token issued for " + res.body.name + ".", "ok");
    await listSpectators();
  }

  function hideIssued() {
    shownTokenId = null;
    $("sp-token").value = "";
    $("sp-shown").hidden = true;
  }

  function copyIssued() {
    var input = $("sp-token");
    input.focus();
    input.select();
    var by = function () { W.status("The token is selected: copy it from the field."); };
    if (!navigator.clipboard || !navigator.clipboard.writeText) { by(); return; }  // an insecure page has none
    navigator.clipboard.writeText(input.value).then(function () { W.status("Token copied.", "ok"); }, by);
  }

  async function revokeSpectator(t) {
    if (!window.confirm("Revoke " + t.name + "'s spectator token " + t.token_id +
                        "? It is refused from now on; what it wrote stays in the log.")) return;
    var res = await W.api(spectatorPath("/" + encodeURIComponent(t.token_id)),
                          { method: "DELETE", token: W.keys.load(gameId).admin });
    if (!res.ok) W.status("Not revoked: " + W.problem(res), "error");
    else {
      if (t.token_id === shownTokenId) hideIssued();
      W.status(res.body.already_revoked ? t.name + "'s spectator token " + t.token_id + " was already revoked."
                                        : t.name + "'s spectator token " + t.token_id + " revoked.", "ok");
    }
    await listSpectators();
  }

  /** A decision a standing order answered (StandingOrderUsed) is marked in the log and results; its
   * text names the standing order for its seat (and the umpire) only, as the API redacts it. */
  function answeredBy(line) {
    return line.type === "StandingOrderUsed" ? W.el("span", { class: "badge standing", text: "standing order" }) : null;
  }

  function renderPending() {
    var pending = (state && state.state && state.state.pending) || [], list = W.clear($("pending"));
    $("pending-box").hidden = !pending.length;
    pending.forEach(function (d) {
      var options = Array.isArray(d.options) ? d.options.map(function (o) { return W.Board.words(board, o); })
        : d.options && typeof d.options === "object" ? [W.Board.words(board, d.options)] : [];
      list.appendChild(W.el("li", { class: "decision" },
        W.el("strong", { text: d.seat + ": " }), d.prompt || d.kind || "a decision",
        d.rule ? W.el("span", { class: "rule", text: " (" + d.rule + ")" }) : null,
        options.length ? W.el("div", { class: "hint", text: "Options: " + options.join(" · ") }) : null));
    });
  }

  var takeBacksShown = {};  // seq of the requests this page showed waiting

  function renderTakeBacks(requests) {
    var mine = W.keys.seat(gameId), waiting = (requests || []).filter(function (r) { return r.answer === null; });
    var box = $("takeback-box"), buttons = W.clear($("takeback-buttons"));
    // The seat that asked learns the answer where it was told it waits (the status line), not only in the log.
    (requests || []).forEach(function (r) {
      if (r.answer === null || !takeBacksShown[r.seq]) return;
      delete takeBacksShown[r.seq];
      if (!mine || mine.seat !== r.seat) return;
      W.status(r.answered_by + " " + r.answer + " your take-back: " +
               (r.answer === "accepted" ? "the order is taken back." : "the order stands."), r.answer === "accepted" ? "ok" : "");
    });
    waiting.forEach(function (r) { takeBacksShown[r.seq] = true; });
    box.hidden = !waiting.length;
    if (!waiting.length) return;
    var r = waiting[waiting.length - 1];
    $("takeback-text").textContent = r.seat + " asks to take back their last order" + (r.reason ? ": " + r.reason : "") + ".";
    if (mine && mine.seat !== r.seat) {
      buttons.appendChild(W.el("button", { type: "button", text: "Accept", onclick: function () { answer(true); } }));
      buttons.appendChild(W.el("button", { type: "button", class: "quiet", text: "Decline", onclick: function () { answer(false); } }));
    } else {
      buttons.appendChild(W.el("span", { class: "hint", text: "Waiting for the answer." }));
    }
  }

  /** The seat whose order is the last one standing (Game.last_order), from the history: none
   *  before the first order or after a take-back was accepted. */
  function lastOrderSeat(history) {
    var ops = [];
    (history.turns || []).forEach(function (t) {
      (t.phases || []).forEach(function (p) { ops.push.apply(ops, p.operations || []); });
    });
    ops.sort(function (a, b) { return a.first_seq - b.first_seq; });
    var seat = null;
    ops.forEach(function (op) {
      if (op.order_id) seat = op.seat;
      else if ((op.lines || []).some(function (line) { return line.type === "TakeBackAccepted"; })) seat = null;
    });
    return seat;
  }

  var LOG_LINES = 150;  // the log shows the last lines only; the replay shows every one

  function renderLog(history) {
    var list = W.clear($("log")), count = 0, lines = [];
    (history.turns || []).forEach(function (t) {
      (t.phases || []).forEach(function (p) {
        (p.operations || []).forEach(function (op) {
          (op.lines || []).forEach(function (line) { lines.push({ turn: t.turn, phase: p.phase, line: line }); });
        });
      });
    });
    var shown = lines.slice(-LOG_LINES), where = null, left = lines.length - shown.length;
    if (left > 0) {  // a long game: say what is left out, and where it is
      list.appendChild(W.el("li", { class: "earlier hint" }, left + " earlier lines are not shown here: ",
        W.el("a", { href: "/games/" + gameId + "/replay#seq=" + shown[0].line.seq, text: "the replay has them all" }), "."));
    }
    shown.forEach(function (x) {
      var here = "Turn " + x.turn + " · " + (x.phase || "");
      if (here !== where) { where = here; list.appendChild(W.el("li", { class: "group", text: here })); }
      // A line of an order taken back stays in the log, struck through, as the dice panel shows its rolls.
      list.appendChild(W.el("li", { "data-seq": x.line.seq, value: x.line.seq, "data-type": x.line.type,
                                    class: x.line.superseded ? "superseded" : null },
                            x.line.text, x.line.superseded ? W.el("span", { class: "hint", text: " (taken back)" }) : null,
                            answeredBy(x.line), noteButton(x.line.seq), W.notes(x.line.annotations)));
      count++;
    });
    list.scrollTop = list.scrollHeight;
    return count;
  }

  // ------------------------------------------------------------------------ annotations ----
  /** A log line's "Note" button, for a browser that may annotate: it picks that event in the form. */
  function noteButton(seq) {
    if (!W.keys.writer(gameId)) return null;
    return W.el("button", { type: "button", class: "quiet note-on", text: "Note", "aria-label": "Annotate event " + seq,
                            onclick: function () { $("an-seq").value = seq; $("an-text").focus(); } });
  }

  function renderAnnotate() {
    var writer = W.keys.writer(gameId);
    $("annotate").hidden = !writer;
    if (!writer) return;
    // A spectator writes once the game has ended, and in public only.
    $("an-private-box").hidden = writer.role === "spectator";
    $("an-hint").textContent = writer.role === "spectator" && !summary.ended
      ? "Spectators annotate once the game has ended." : "";
    $("an-seq").max = summary.version;
  }

  var noteId = null;  // the id of the annotation being sent, kept until it is recorded (a retry is the same)
  async function annotate(e) {
    e.preventDefault();
    var writer = W.keys.writer(gameId), seq = +$("an-seq").value, text = $("an-text").value;
    var priv = writer.role !== "spectator" && $("an-private").checked;
    noteId = noteId || W.newId();
    var fields = { annotation_id: noteId, about_seq: seq, text: text };
    var headers = Object.assign({ "Idempotency-Key": noteId }, writer.role === "seat"
      ? await commandHeaders(writer, priv ? "private_annotation" : "annotation", fields) : {});
    var res = await W.api("/api/v1/games/" + gameId + "/annotations",
                          { method: "POST", body: { about_seq: seq, text: text, private: priv }, token: writer.token,
                            headers: headers });
    await keepSignedHead(res);
    if (!res.ok) { W.status("Annotation refused: " + W.problem(res), "error"); return; }
    noteId = null;
    $("an-text").value = "";
    W.status("Annotation on event " + seq + " recorded" + (priv ? " (private)." : "."), "ok");
    await refresh();
  }

  /** An annotation's lines are shown beside their event (the next reload), not in the log. */
  function isNote(data) {
    return data.type === "AnnotationAdded" ||
      (data.type === "CommandSigned" && /annotation$/.test((data.data || {}).kind || ""));
  }

  function appendLive(event) {
    var list = $("log"), data = event.data || {};
    if (!data.seq || isNote(data) || list.querySelector('li[data-seq="' + data.seq + '"]')) return;
    list.appendChild(W.el("li", { "data-seq": data.seq, value: data.seq, "data-type": data.type, class: "fresh",
                                 text: data.text || data.type }));
    list.scrollTop = list.scrollHeight;
  }

  /** The seqs of the lines a take-back replaced (the history's ``superseded``). */
  function takenBack(history) {
    var seqs = {};
    (history.turns || []).forEach(function (t) {
      (t.phases || []).forEach(function (p) {
        (p.operations || []).forEach(function (op) {
          (op.lines || []).forEach(function (line) { if (line.superseded) seqs[line.seq] = true; });
        });
      });
    });
    return seqs;
  }

  /** The result's lines of an order taken back since: struck and marked, as the log marks them. */
  function markResult(taken) {
    Array.prototype.forEach.call($("result").querySelectorAll("li[data-seq]"), function (item) {
      if (!taken[item.dataset.seq] || item.classList.contains("superseded")) return;
      item.classList.add("superseded");
      item.insertBefore(W.el("span", { class: "hint", text: " (taken back)" }), item.childNodes[1] || null);
    });
  }

  function renderBoard(taken) {
    var highlight = { moved: {}, hit: [] };
    ((lastResult && lastResult.events) || []).forEach(function (line) {
      var d = line.data || {};
      if (taken[line.seq]) return;  // an order taken back moved and hit nothing
      if (line.type === "UnitMoved" && d.unit) highlight.moved[d.unit] = d.origin || null;
      if (line.type === "GroupMoved" && d.group && !(d.group in highlight.moved)) highlight.moved[d.group] = null;
      if ((line.type === "UnitHit" || line.type === "UnitEliminated") && d.unit) highlight.hit.push(d.unit);
    });
    W.Board.draw($("board"), board, state ? state.state : {}, { highlight: highlight,
      noMap: boardOf === summary.ruleset ? null : "The map could not be read (see above); the page reads it again at the next reload." });
    W.clear($("vp")).appendChild(W.vpTable((state && state.state && state.state.vp) || {}));
    if (vpNote) $("vp").appendChild(W.el("p", { class: "hint", id: "vp-note", text: "VP: " + vpNote }));
    $("state").textContent = JSON.stringify(state ? state.state : null, null, 1);
  }

  function renderSeats() {
    var keys = W.keys.load(gameId), seats = Object.keys(keys.seats);
    var has = seats.length || keys.umpire || keys.spectator || keys.admin;
    // An invite link opened where a seat is held already takes another seat (hot seat): its form shows.
    $("access").hidden = !!seats.length && !inviteWaiting;
    $("access-note").textContent = seats.length
      ? "This browser plays " + seats.join(", ") + " here; the invite code in the address takes another seat of this game."
      : "This browser holds no seat token for this game.";
    $("seatbar").hidden = !has;
    $("replace-token").hidden = !seats.length;
    var select = W.clear($("seat")), mine = W.keys.seat(gameId);
    seats.forEach(function (s) { select.appendChild(W.el("option", { value: s, text: s, selected: mine && mine.seat === s })); });
    if (!seats.length) select.appendChild(W.el("option", { value: "", text: keys.umpire ? "umpire (reads, annotates)"
      : keys.spectator ? "spectator (reads, annotates after the end)" : "admin (reads only)" }));
    select.disabled = seats.length < 2;
    renderAccess();
  }

  // ---------------------------------------------------------------------------- loading ----
  async function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async function () {
      do {
        again = false;
        await load();
      } while (again);
    })();
    try { await refreshing; } finally {
      refreshing = null;
      document.body.dataset.ready = "true";  // loaded, or shown why not
    }
  }

  // A stored log that fails verification (docs/api.md, "Damaged logs"): a warning above the game.
  function renderDamaged() {
    var d = summary.damaged, box = $("damaged");
    box.hidden = !d;
    if (!d) return;
    box.textContent = d.accepted
      ? "Warning: this game's stored log fails verification from line " + d.line +
        "; an operator accepted it and play goes on (" + (d.reason || "no reason given") + ")."
      : "Warning: this game's stored log fails verification at line " + d.line +
        ". It takes no orders until an operator acts.";
  }

  /** The token this browser reads with is refused (401): which one, and what to do about it. */
  function refusedToken(res) {
    var keys = W.keys.load(gameId), mine = W.keys.seat(gameId);
    var which = mine ? "seat token of " + mine.seat : keys.umpire ? "umpire token" : keys.spectator ? "spectator token" : "admin token";
    return "The " + which + " this browser keeps for this game is refused (" + W.problem(res) + "): it was revoked, or is not " +
      "this server's. “Forget this token” to read the game without it, or paste another.";
  }

  async function load() {
    var token = W.keys.reader(gameId), mine = W.keys.seat(gameId), base = "/api/v1/games/" + gameId;
    renderSeats();
    var s = await W.api(base, { token: token });
    if (!s.ok && summary && s.status !== 404 && s.status !== 401) {
      // a reload the network (or the server) lost: the page read before stays, said to be old;
      // the join and paste forms would not help, and this browser's token is not in question
      W.status("Not read: the game (" + W.problem(s) + "). What is shown may be out of date; the page reads it " +
               "again at the next event or reload.", "error");
      return;
    }
    if (!s.ok) {
      $("access").hidden = false;
      $("title").textContent = "Game " + W.short(gameId);
      $("summary").textContent = s.status === 404
        ? "No such game here, or it is private: join with your invite code or paste a token."
        : s.status === 401 && token ? refusedToken(s) : W.problem(s);
      return;
    }
    summary = s.body;
    var unread = [];  // the reads that failed: said in the status line, never shown as an empty game
    if (boardOf !== summary.ruleset) {
      var rs = await W.api("/api/v1/rulesets/" + encodeURIComponent(summary.ruleset));
      board = rs.ok ? rs.body.board : null;
      ruleTitle = rs.ok ? rs.body.title : summary.ruleset;
      takeBackRule = rs.ok ? rs.body.take_back_rule : undefined;  // null: the game allows no take-backs
      vpNote = rs.ok ? rs.body.vp_note || null : null;  // what the VP numbers mean (FS 4.1's signed track)
      if (rs.ok) boardOf = summary.ruleset;  // a failed read is tried again at the next reload
      else unread.push(["the map", rs]);
    }
    summary.ruleset_title = ruleTitle;
    var requests = [base + "/state", base + "/history", base + "/take-backs"].map(function (path) {
      return W.api(path, { token: token });
    });
    if (mine) requests.push(W.api(base + "/legal-orders", { token: mine.token }),
                            W.api(base + "/standing-orders", { token: mine.token }));
    var got = await Promise.all(requests);
    ["the state", "the log", "the take-backs", null, "the standing orders"].forEach(function (what, k) {
      if (what && got[k] && !got[k].ok) unread.push([what, got[k]]);
    });
    standing = mine && got[4] && got[4].ok ? got[4].body : null;
    state = got[0].ok ? got[0].body : null;
    legal = mine && got[3] && got[3].ok ? got[3].body : null;
    if (mine && got[3] && !got[3].ok) W.status("Legal orders: " + W.problem(got[3]), "error");
    var takeBacks = got[2].ok ? got[2].body.requests : [];
    askedTakeBack = takeBacks.filter(function (r) { return r.answer === null; }).pop() || null;
    takeBackable = !!(mine && got[1].ok && lastOrderSeat(got[1].body) === mine.seat &&
                      !takeBacks.some(function (r) { return r.answer === null; }));
    if (unread.length) {
      W.status("Not read: " + unread.map(function (u) { return u[0] + " (" + W.problem(u[1]) + ")"; }).join("; ") +
               ". What is shown of them may be out of date; the page reads them again at the next event or reload.", "error");
    }
    renderSummary();
    renderTime();
    renderDamaged();
    renderOrigin();
    renderPending();
    renderStanding();
    await loadNotify(mine);
    renderHook();
    await loadSpectators();
    renderTakeBacks(takeBacks);
    renderOrders();
    renderSealed();
    var taken = got[1].ok ? takenBack(got[1].body) : {};
    markResult(taken);
    renderBoard(taken);
    if (got[1].ok) renderLog(got[1].body);
    renderAnnotate();
    if (!follow && !summary.ended) startFollowing(token, summary.version);
    document.body.dataset.version = String(summary.version);
  }

  var soon = null;
  function startFollowing(token, after) {
    follow = W.follow(gameId, token, after, function (event) {
      appendLive(event);
      clearTimeout(soon);
      soon = setTimeout(refresh, 150);  // one reload for a burst of events (an order records several)
    }, function (what) {
      if (what === "refused") refresh();  // the token was revoked meanwhile, say: the reload says why
      var badge = $("live");
      badge.textContent = what === "live" ? "live" : what === "waiting" ? "reconnecting…" : what === "ended" ? "ended" : "offline";
      badge.className = "badge " + what;
    });
  }

  function restartFollowing() {
    if (follow) follow.close();
    follow = null;
  }

  // ----------------------------------------------------------------------------- access ----
  var inviteWaiting = false;  // the address holds an invite code not used yet

  async function join(e) {
    e.preventDefault();
    var body = { invite_code: $("j-invite").value.trim(), handle: $("j-handle").value.trim() };
    if ($("j-email").value.trim()) body.email = $("j-email").value.trim();
    var joined = await W.join(gameId, body), res = joined.res, key = joined.signing;
    if (!res.ok) { W.status("Not joined: " + W.problem(res), "error"); return; }
    if (/invite=/.test(location.hash)) history.replaceState(null, "", location.pathname);
    inviteWaiting = false;
    W.status("You hold the seat " + res.body.seat + ". The token is kept in this browser" +
             (key ? ", with the key that signs your orders." : ".") +
             (res.body.confirmation_mail ? " Turn mails start once you follow the link of the mail sent to your address." : ""),
             "ok");
    restartFollowing();
    await refresh();
  }

  async function paste(e) {
    e.preventDefault();
    var token = $("p-token").value.trim();
    var role = { wls_: "seat", wlu_: "umpire", wla_: "admin", wlv_: "spectator" }[token.slice(0, 4)];
    if (!role) {
      W.status("A token starts with wls_ (seat), wlu_ (umpire), wlv_ (spectator) or wla_ (admin).", "error");
      return;
    }
    // A public game reads with any game's token, so a read cannot tell another game's from this
    // one's: …/me answers the token's role in this game, or refuses it (docs/api.md).
    var me = await W.api("/api/v1/games/" + gameId + "/me", { token: token });
    if (!me.ok) {
      W.status("This token is not kept: " + (me.status === 403 ? "it is a token of another game, not this one (" + W.problem(me) + ")."
        : me.status === 401 ? "the server does not know it, or it was revoked (" + W.problem(me) + ")."
        : me.status === 404 ? "it does not open this game (" + W.problem(me) + ")." : W.problem(me)), "error");
      return;
    }
    role = me.body.role;  // the server's word, not the prefix's
    W.keys.update(gameId, function (k) {
      if (role === "seat") { k.seats[me.body.seat] = token; k.active = me.body.seat; } else k[role] = token;
    });
    $("p-token").value = "";
    W.status("Token kept in this browser. You are " + (role === "seat" ? "the seat " + me.body.seat
             : role === "spectator" ? "the spectator " + me.body.name : "the " + role) + " here.", "ok");
    restartFollowing();
    await refresh();
  }

  /** An invite code in the address (#invite=…) into the join form; whether there was one. */
  function takeInvite() {
    var m = /invite=([^&]+)/.exec(location.hash);
    if (!m) return false;
    var code = m[1];
    // a code a mailer mangled ("…%") is kept as it came: the join's refusal says what is wrong
    try { code = decodeURIComponent(code); } catch (e) { /* as it came */ }
    if (W.keys.joinedWith(gameId, code)) {  // the link of a seat this browser holds (a bookmark): nothing to join
      history.replaceState(null, "", location.pathname);
      return false;
    }
    inviteWaiting = true;
    $("j-invite").value = code;
    return true;
  }

  function init() {
    takeInvite();
    window.addEventListener("hashchange", function () { if (takeInvite()) renderSeats(); });
    $("join").addEventListener("submit", join);
    $("paste").addEventListener("submit", paste);
    $("order").addEventListener("submit", send);
    $("standing-form").addEventListener("submit", setStanding);
    $("notify-form").addEventListener("submit", saveNotify);
    $("hook-form").addEventListener("submit", saveHook);
    $("h-remove").addEventListener("click", removeHook);
    $("spec-form").addEventListener("submit", issueSpectator);
    $("sp-copy").addEventListener("click", copyIssued);
    $("sp-token").addEventListener("focus", function () { this.select(); });
    $("annotate").addEventListener("submit", annotate);
    $("so-kind").addEventListener("change", acceptsNote);
    $("takeback").addEventListener("click", takeBack);
    $("concede").addEventListener("click", concede);
    $("vacation").addEventListener("click", function () {
      timeCommand("/vacation", "vacation", { days: timeDays() }, "Vacation recorded.");
    });
    $("extend").addEventListener("click", function () {
      timeCommand("/extension", "extension", { days: timeDays() }, "More time given.");
    });
    $("claim").addEventListener("click", function () {
      if (!window.confirm("Claim the win on time? The game ends.")) return;
      timeCommand("/claim-win", "claim_win", undefined, "You claimed the win on time.");
    });
    $("seal").addEventListener("click", sealOrders);
    $("reveal").addEventListener("click", revealOrders);
    $("seat").addEventListener("change", function () {
      var seat = this.value;
      W.keys.update(gameId, function (k) { k.active = seat; });
      restartFollowing();
      refresh();
    });
    $("replace-token").addEventListener("click", replaceToken);
    $("forget").addEventListener("click", function () {
      if (!window.confirm("Forget the tokens of this game in this browser? Without them you cannot play this seat here.")) return;
      W.keys.forget(gameId);
      restartFollowing();
      refresh();
    });
    refresh();
  }

  init();
})();
