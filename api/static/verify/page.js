/* The replay pages check the log they show, in the browser (docs/pages.md, "Checked in this
 * browser"): the live replay page reads the caller's export (GET /api/v1/games/{id}/export, with
 * the server's key from its Warlog-Server-Key header); the offline replay file carries the same
 * lines in the page (a JSON script element id="export-log": {text, server_key}).
 *
 * The result goes to the "Checked in this browser" panel (#verify: a summary, every failure as
 * "line N: why" linking to its step, every order's signature) and to the replay viewer
 * (replay.js), which shows each die's and each order's verdict at its step, through
 * Warlog.verification.at(seq) and the document event "warlog:verified".
 */

import { unavailable } from "./crypto.js";
import { NOT_OPENED, NOT_REVEALED } from "./rolls.js";
import { Report, verifyHead, verifyText } from "./verify.js";

const W = window.Warlog || (window.Warlog = {});
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, String(v));
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) node.append(kid);
  return node;
}

/** "ok", "failed" or "pending" for a verdict's text. */
export function kind(status) {
  if (status === "verified") return "ok";
  return String(status).startsWith("failed") ? "failed" : "pending";
}

/** The log this page shows: embedded in the offline file, else the caller's export from the API. */
async function theLog() {
  const embedded = $("export-log");
  if (embedded) {
    const data = JSON.parse(embedded.textContent);
    if (typeof data.text !== "string") throw new Error("this file carries no log to check");
    return { text: data.text, serverKey: data.server_key || null, kept: null, live: false };
  }
  const gameId = document.body.dataset.gameId;
  const token = W.keys ? W.keys.reader(gameId) : null;
  // The head is read before the log: one kept later (a move made in another tab meanwhile) could be
  // newer than the log read, and would fail an honest log as cut short.
  let kept = null;
  try { kept = W.keys ? (W.keys.load(gameId) || {}).signed_head || null : null; } catch (e) { kept = null; }
  const response = await fetch(`/api/v1/games/${encodeURIComponent(gameId)}/export`, {
    headers: token ? { Authorization: "Bearer " + token } : {}, cache: "no-store" });
  if (!response.ok) throw new Error(`the server answered ${response.status} to the export`);
  return { text: await response.text(), serverKey: response.headers.get("Warlog-Server-Key"), kept, live: true };
}

let saved = null;  // the live log last checked: what "Save this log" saves

/** The live page's export, saved as the file `warlog export` writes: a format-1 export, which has no
 * header line, gets the one naming the server key (docs/dice.md section 5), as the CLI adds it. The
 * log read again (``covers``) replaces the one offered before. */
function offerSave(base) {
  const first = saved === null;
  saved = base;
  if (!first) return;
  $("verify-save").addEventListener("click", () => {
    const gameId = document.body.dataset.gameId;
    const header = saved.serverKey && !saved.text.startsWith('{"warlog_export"')
      ? JSON.stringify({ warlog_export: { server_key: saved.serverKey } }) + "\n" : "";
    const url = URL.createObjectURL(new Blob([header + saved.text], { type: "application/x-ndjson" }));
    const link = el("a", { href: url, download: `game-${gameId.slice(0, 8)}.jsonl` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  $("verify-save-box").hidden = false;
}

/** What the viewer asks of one step: the verdicts of the line of this seq. */
function verdicts(report) {
  const bySeq = new Map();
  const at = (seq) => {
    const key = String(seq);
    if (!bySeq.has(key)) bySeq.set(key, {});
    return bySeq.get(key);
  };
  for (const [, line] of report.lines) Object.assign(at(line.seq), { line: line.hash, type: line.type });
  for (const [, roll] of report.dice) {
    at(roll.seq).dice = roll.hidden
      ? [{ nonce: "?", sides: "?", value: "?", status: NOT_OPENED }]  // a sealed roll this copy holds as a commitment
      : roll.dice.map((d) => ({ nonce: String(d.nonce), sides: String(d.sides), value: String(d.value), status: d.status }));
  }
  for (const [, order] of report.orders) at(order.seq).order = order.status;
  for (const [, reveal] of report.reveals) at(reveal.seq).reveal = reveal.status;
  for (const [, signed] of report.sealedSignatures) at(signed.seq).signature = signed.status;
  for (const [, signed] of report.commandSignatures) at(signed.seq).signature = signed.status;
  return (seq) => bySeq.get(String(seq)) || null;
}

function counts(report) {
  let verified = 0, waiting = 0, failed = 0;
  for (const [, roll] of report.dice) {
    if (roll.hidden) waiting++;
    for (const die of roll.dice) {
      if (die.status === "verified") verified++;
      else if (die.status === NOT_REVEALED || die.status === NOT_OPENED) waiting++;
      else failed++;
    }
  }
  return { verified, waiting, failed };
}

function show(report) {
  const box = $("verify");
  const redacted = report.failures.filter(([, why]) => /redacted/.test(why));
  const dice = counts(report);
  const orders = Array.from(report.orders.values());
  const signed = orders.filter((o) => o.status === "verified").length;
  const head = report.ok
    ? `Verified: ${report.events} events chained to head ${String(report.chainHead).slice(0, 16)}…; `
    : `FAILED: ${report.failures.length} problem(s) in ${report.events} events; `;
  $("verify-summary").textContent = head +
    `${dice.verified} dice verified against their revealed seeds, ${dice.waiting} not yet revealed or sealed` +
    (dice.failed ? `, ${dice.failed} failed` : "") + `; ${signed} signed order(s) verified` +
    (report.revealsVerified ? `; ${report.revealsVerified} sealed reveal(s) verified` : "") +
    (report.sealedSignaturesVerified ? `; ${report.sealedSignaturesVerified} signed seal(s) and reveal(s) verified` : "") +
    (report.commandSignaturesVerified ? `; ${report.commandSignaturesVerified} signed command(s) verified` : "") +
    (report.fieldsOpened || report.fieldsConcealed
      ? `; ${report.fieldsOpened} concealed field(s) opened, ${report.fieldsConcealed} still concealed` : "") + ".";
  $("verify-summary").className = "verify-summary " + (report.ok ? "ok" : "failed");
  $("verify-brief-link").textContent = report.ok
    ? "Checked in this browser: the log verifies."
    : `Checked in this browser: the log does NOT verify (${report.failures.length} problem(s)).`;
  $("verify-brief").className = "verify-summary " + (report.ok ? "ok" : "failed");
  $("verify-brief").hidden = false;
  $("verify-report").textContent = report.summary();
  const list = $("verify-failures");
  list.replaceChildren(...report.failures.map(([n, why]) => el("li", { "data-line": n },
    n > 0 ? el("a", { href: `#seq=${n}`, text: `line ${n}` }) : "kept head", `: ${why}`)));
  $("verify-redacted").hidden = !redacted.length || redacted.length !== report.failures.length;
  const rows = orders.map((o) => el("tr", { "data-seq": String(o.seq), class: kind(o.status) },
    el("td", null, el("a", { href: `#seq=${o.seq}`, text: String(o.seq) })), el("td", { text: String(o.order_id) }),
    el("td", { text: String(o.seat) }), el("td", { class: "checked " + kind(o.status), text: o.status })));
  $("verify-orders").replaceChildren(...rows);
  $("verify-orders-box").hidden = !rows.length;
  box.dataset.state = report.ok ? "verified" : "failed";
}

/** A head pasted by the player, checked against the log this page checked. */
async function checkHead(report, serverKey) {
  const result = $("verify-head-result");
  const text = $("verify-head").value.trim();
  if (!text) { result.textContent = "Paste a signed head first."; return; }
  const probe = new Report();  // the head's own verdict, apart from the log's
  probe.hashes = report.hashes;
  probe.gameId = report.gameId;
  await verifyHead(probe, text, $("verify-server-key").value.trim() || serverKey);
  result.className = "checked " + (probe.ok ? "ok" : "failed");
  result.textContent = probe.ok
    ? "verified: the server signed this head, and this log has that hash at that line."
    : "failed: " + probe.failures.map(([n, why]) => (n ? `line ${n}: ` : "") + why).join("; ");
}

let checked = null;  // the last log checked: {report, serverKey}
let readAgain = false;  // the live log is read again once, when the replay's steps outrun it

/** Read the log, check it, show the report and hand its verdicts to the viewer (Warlog.verification,
 * then the document event "warlog:verified"). */
async function checkLog() {
  let base;
  try {
    base = await theLog();
  } catch (e) {
    $("verify-summary").textContent = `Not checked: ${e.message}.`;
    $("verify").dataset.state = "unavailable";
    return;
  }
  // A signed head this browser kept while playing (the game page keeps the last one) is checked too.
  const report = await verifyText(base.text, base.kept ? { head: JSON.stringify(base.kept), serverKey: base.serverKey } : {});
  if (base.serverKey) $("verify-server-key").value = base.serverKey;
  show(report);
  if (base.kept) $("verify-head").value = JSON.stringify(base.kept);
  checked = { report, serverKey: base.serverKey };
  if (base.live) offerSave(base);
  W.verification = { report, at: verdicts(report), kind, covers: (seq) => covers(base.live, report, seq) };
  document.dispatchEvent(new CustomEvent("warlog:verified"));
}

/** Whether the log checked holds line ``seq``, the newest step the replay shows. The live page
 * reads its steps (GET …/frames) and its log apart, so a move landing between the two reads gives
 * steps newer than the log checked: the log is then read and checked once more (false: the viewer
 * hears "warlog:verified" again). That read begins once both answers came, so on an honest server
 * it holds every step shown; a step it still lacks is failed. */
function covers(live, report, seq) {
  if (!live || readAgain || seq <= report.hashes.length) return true;
  readAgain = true;
  W.verification = null;  // nothing is said of a step until the log read again is checked
  $("verify").dataset.state = "checking";
  $("verify-summary").textContent = "Checking again: the replay shows steps newer than the log read first.";
  checkLog().catch(stopped);
  return false;
}

function stopped(e) {
  const summary = $("verify-summary");
  if (summary) summary.textContent = `Not checked: the check stopped (${e.message}).`;
  if ($("verify")) $("verify").dataset.state = "error";
}

async function main() {
  const box = $("verify");
  if (!box) return;
  const missing = unavailable();
  if (missing) {
    $("verify-summary").textContent = `Not checked here: ${missing}. \`warlog verify\` checks the export offline.`;
    box.dataset.state = "unavailable";
    return;
  }
  $("verify-head-check").addEventListener("click", () => { if (checked) checkHead(checked.report, checked.serverKey); });
  $("verify-brief-link").addEventListener("click", () => { $("verify-h").scrollIntoView(); $("verify-h").focus(); });
  await checkLog();
}

main().catch(stopped);
