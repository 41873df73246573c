/* `warlog verify` in the browser: a second implementation of docs/dice.md's checks, written from
 * the spec and from domain/verify.py's list of checks, with the same messages ("line N: why"),
 * so that the spec and not one program is the authority (docs/dice.md, "Checking in the browser").
 *
 *   const report = await verifyText(exportText, { head: keptHeadText, serverKey });
 *   report.ok, report.failures ([[line, why]]), report.summary(),
 *   report.dice (per roll line: every die "verified" / "failed: why" / "not yet revealed"),
 *   report.orders (per OrderAccepted line: its signature), report.reveals (sealed orders),
 *   report.sealedSignatures (per seal or reveal of a keyed seat, format 2: its signature),
 *   report.commandSignatures (per other command of a keyed seat, format 2: its signature).
 *
 * Checks: the chain (keys, game, seq, prev_hash, hash; format 1 or 2, the format from line 1 and
 * the header's version), the dice (rolls.js), every signed order against its seat's key,
 * sealed-orders reveals against their commitments, concealed fields (format 2), and a kept head.
 */

import { DuplicateKey, JsonError, isObject, parse } from "./json.js";
import { EncodeError, PyError, PyTypeError, byCodePoint, get, hashKey, pyEq, pyRepr, pyStr, pyType } from "./canonical.js";
import { CONCEALED, GENESIS, canonical, isFormat1, lineHash } from "./chain.js";
import { bytesOf, publicKeyProblem, sha256Hex, signatureValid } from "./crypto.js";
import { Dice, hidden } from "./rolls.js";

export const LINE_KEYS = ["game_id", "seq", "type", "timestamp", "data", "prev_hash", "hash"];
export const HEADER_KEY = "warlog_export";
const SEALED_EVENTS = ["OrderSealed", "OrderRevealed"];
const SEAT_LINES = ["OrderAccepted", "OrderSealed", "OrderRevealed"];  // a seat's orders: each names a seat of the game
const HEX64 = /^[0-9a-f]{64}$/;

export class Report {
  constructor() {
    this.gameId = null;
    this.events = 0;
    this.chainHead = GENESIS;
    this.epochsRevealed = 0;
    this.epochsUnrevealed = 0;
    this.rollsVerified = 0;
    this.diceVerified = 0;
    this.rollsUnrevealed = 0;
    // format 2: rolls, and client entropies, derived from an order id this copy holds as a commitment
    this.rollsUnchecked = 0;
    this.entropiesUnchecked = 0;
    this.revealsVerified = 0;
    this.signaturesVerified = 0;
    this.sealedSignaturesVerified = 0;  // signed seals and reveals of sealed orders (format 2)
    this.commandSignaturesVerified = 0;  // signed other commands of keyed seats (format 2): CommandSigned
    // format 2: the sealed stream's rolls, and the concealed fields opened or still concealed
    this.sealedRollsVerified = 0;
    this.sealedDiceVerified = 0;
    this.sealedRollsUnrevealed = 0;
    this.sealedNotOpened = 0;
    this.sealedRollsShown = 0;  // sealed rolls made public before the end, checked against their roll
    this.fieldsOpened = 0;
    this.fieldsConcealed = 0;
    this.format = 1n;  // the game's format (GameCreated.data.format; absent: 1)
    this.serverKey = null;
    this.hashes = [];  // each event's hash, by position
    this.failures = [];  // [line, why]
    // What the pages show, by line number: the line's seq and type, and what was checked of it.
    this.lines = new Map();  // n -> {seq, type, hash: "verified" | "failed: why"}
    this.dice = new Map();  // n -> {seq, epoch, seat, dice: [{nonce, sides, value, status, problems}]}
    this.orders = new Map();  // n -> {seq, order_id, seat, status}
    this.reveals = new Map();  // n -> {seq, seat, round, status}
    this.sealedSignatures = new Map();  // n (the seal's or reveal's line) -> {seq, kind, seat, round, status}
    this.commandSignatures = new Map();  // n (the command's line) -> {seq, kind, seat, status}
  }

  get ok() { return this.failures.length === 0; }

  fail(line, message) { this.failures.push([line, message]); }

  sort() { this.failures.sort((a, b) => a[0] - b[0]); }  // stable, as Python's sort

  summary() {
    let head = `game ${pyStr(this.gameId)}: ${this.events} events, chain head ${pyStr(this.chainHead)}; ` +
      `${this.epochsRevealed} dice epochs revealed, ${this.rollsVerified} rolls (${this.diceVerified} dice) ` +
      `verified; ${this.epochsUnrevealed} epoch(s) not yet revealed holding ${this.rollsUnrevealed} roll(s); ` +
      `${this.signaturesVerified} signed order(s) verified`;
    if (this.rollsUnchecked || this.entropiesUnchecked) {
      head += `; NOT CHECKED in this copy: ${this.rollsUnchecked} roll(s) and ${this.entropiesUnchecked} ` +
        "client entropy(ies) derived from an order id it holds as a commitment (the full export checks them)";
    }
    if (this.revealsVerified) head += `; ${this.revealsVerified} sealed-orders reveal(s) verified against their commitments`;
    if (this.sealedSignaturesVerified) head += `; ${this.sealedSignaturesVerified} signed seal(s) and reveal(s) verified`;
    if (this.commandSignaturesVerified) head += `; ${this.commandSignaturesVerified} signed command(s) verified`;
    if (this.sealedRollsVerified || this.sealedRollsUnrevealed || this.sealedNotOpened) {
      head += `; ${this.sealedRollsVerified} sealed roll(s) (${this.sealedDiceVerified} dice) verified, ` +
        `${this.sealedRollsUnrevealed} not yet revealed, ${this.sealedNotOpened} not opened in this copy`;
    }
    if (this.sealedRollsShown) head += `; ${this.sealedRollsShown} sealed roll(s) shown before the end`;
    if (this.fieldsOpened || this.fieldsConcealed) {
      head += `; ${this.fieldsOpened} concealed field(s) opened, ${this.fieldsConcealed} still concealed`;
    }
    if (this.ok) return "OK " + head;
    return [`FAILED ${head}`].concat(this.failures.map(([n, m]) => `  line ${n}: ${m}`)).join("\n");
  }

  /** The report as plain JSON data (numbers of the log as numbers, or as text beyond 2**53). */
  toJSON() {
    const entries = (map) => Array.from(map, ([n, v]) => [n, plain(v)]);
    return { ok: this.ok, summary: this.summary(), failures: this.failures, game_id: plain(this.gameId),
             events: this.events, format: plain(this.format), server_key: this.serverKey, lines: entries(this.lines),
             dice: entries(this.dice), orders: entries(this.orders), reveals: entries(this.reveals),
             sealed_signatures: entries(this.sealedSignatures), command_signatures: entries(this.commandSignatures) };
  }
}

function plain(v) {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: plain(v[k]), enumerable: true, writable: true });
    return out;
  }
  return v === undefined ? null : v;
}

// ------------------------------------------------------------------------------- reading ----
/** The lines of an export's text as Python reads a text file: split at \n, \r\n or \r. */
export function textLines(text) {
  const out = text.split(/\r\n|\r|\n/);
  if (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

const PY_SPACE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

function parseLines(raws, report) {
  return raws.map((raw, i) => {
    const n = i + 1;
    if (PY_SPACE.test(raw)) { report.fail(n, "empty line"); return null; }
    let obj;
    try {
      obj = parse(raw, { unique: true });
    } catch (e) {
      if (e instanceof DuplicateKey) { report.fail(n, twice(e.key)); return null; }
      if (!(e instanceof JsonError) && !(e instanceof RangeError)) throw e;
      if (e instanceof RangeError || e.message === "nested too deep") report.fail(n, "not JSON this reader can take: nested too deep");
      else if (e.message.startsWith("a number of more")) report.fail(n, "not JSON this reader can take: a number of more than 4300 digits");
      else report.fail(n, `not JSON: ${e.message}`);
      return null;
    }
    if (!isObject(obj)) { report.fail(n, "not a JSON object"); return null; }
    return obj;
  });
}

/** domain/verify.py's DuplicateKey, in its words. */
function twice(key) {
  return `the key ${pyRepr(key)} is written twice in one object: a reader that takes the first value ` +
    "(json.loads takes the last) would read another line than the one checked";
}

/** The header of the first line, or null (an event); one naming a key twice fails at line 1 and
 * gives nothing (no server key), as in domain/verify.py. */
function header(raw, report) {
  let obj, dup = null;
  try {
    obj = parse(raw, { unique: true });
  } catch (e) {
    if (!(e instanceof DuplicateKey)) return null;
    dup = e.key;
    try { obj = parse(raw); } catch (e2) { return null; }
  }
  const keys = isObject(obj) ? Object.keys(obj) : [];
  if (!(keys.length === 1 && keys[0] === HEADER_KEY && isObject(obj[HEADER_KEY]))) return null;
  if (dup !== null) { report.fail(1, twice(dup)); return Object.create(null); }
  return obj[HEADER_KEY];
}

/** Verify an export's text; a header line first (not an event, not numbered) gives the server key.
 * ``options.head``: a kept signed head (JSON text or an object read by json.js), checked against
 * ``options.serverKey`` or the header's key. */
export async function verifyText(text, options = {}) {
  const report = new Report();
  let raws = textLines(text);
  const found = raws.length ? header(raws[0], report) : null;
  if (found !== null) {
    raws = raws.slice(1);
    report.serverKey = typeof found.server_key === "string" ? found.server_key : null;
  }
  const lines = parseLines(raws, report);
  await verify(lines, report);
  if (found !== null && "version" in found && !pyEq(found.version, report.format)) {
    // format 2's export names its version in the header; a format-1 file has none (docs/dice.md)
    report.fail(1, `the header line says export version ${pyStr(found.version)}, but the game is of format ${pyStr(report.format)}`);
  }
  if (options.head !== undefined && options.head !== null) {
    await verifyHead(report, options.head, options.serverKey || report.serverKey);
  }
  report.sort();
  return report;
}

// ----------------------------------------------------------------------------- the chain ----
/** The game's format, from line 1 when it is a GameCreated (its data's "format"; absent: 1). */
function formatOf(lines) {
  const first = lines[0];
  if (!first || !LINE_KEYS.every((k) => k in first) || first.type !== "GameCreated" || !isObject(first.data)) return 1n;
  return "format" in first.data ? first.data.format : 1n;
}

function malformed(type, e) {
  if (e instanceof PyError || e instanceof EncodeError) return `malformed ${pyStr(type)} data: ${e.message}`;
  throw e;
}

/** Check the chain (order, links, hashes), the dice, signatures and sealed reveals of parsed lines
 * (null for a line that did not parse, already reported). */
export async function verify(lines, report = new Report()) {
  const fmt = report.format = formatOf(lines);
  const known = isFormat1(fmt) || fmt === 2n || fmt === 2;  // Python: fmt in (1, 2)
  // Each line's own hash does not depend on the others: all computed at once, checked in order.
  const hashes = await Promise.all(lines.map((line) => (line && known ? lineHash(line, fmt).catch((e) => e) : null)));
  let prev = GENESIS;
  const commitments = new Map();  // sealed orders: (seat, round) -> the commitment
  const revealed = new Map();  // (seat, round) of each OrderRevealed -> {seat, round, n, orders (null: hidden here)}
  const dice = new Dice(report, known && !isFormat1(fmt));
  const signed = new Signed(report);
  let ended = null;  // the line of the game's GameEnded
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    let line = lines[i];
    report.hashes.push(line && "hash" in line ? line.hash : null);
    if (line === null) continue;
    const keys = Object.keys(line);
    const oddKeys = keys.length !== LINE_KEYS.length || !LINE_KEYS.every((k) => k in line);
    if (oddKeys) {
      const missing = LINE_KEYS.filter((k) => !(k in line));
      if (missing.length) { report.fail(n, `missing ${missing.join(", ")}`); continue; }
    }
    const seen = { seq: line.seq, type: line.type, hash: "verified" };
    const before = report.failures.length;
    if (typeof line.hash !== "string") {  // it could not even name the line after it
      report.fail(n, "hash is not text (64 hex characters)");
      line = Object.assign(Object.create(null), line, { hash: "" });
    }
    report.events += 1;
    report.lines.set(n, seen);
    if (report.gameId === null) report.gameId = line.game_id;
    else if (!pyEq(line.game_id, report.gameId)) report.fail(n, `belongs to game ${pyStr(line.game_id)}, not ${pyStr(report.gameId)}`);
    if (!pyEq(line.seq, n)) report.fail(n, `seq ${pyStr(line.seq)} where ${n} was expected (an event was deleted, inserted or moved)`);
    if (!pyEq(line.prev_hash, prev)) report.fail(n, "prev_hash does not match the hash of the line before (chain broken)");
    if ((line.type === "GameCreated") !== (n === 1)) {  // replayed, a second one would make the game anew
      report.fail(n, n === 1 ? "the first event is not the game's GameCreated: a game is created once, on line 1"
        : "a second GameCreated: a game is created once, on line 1");
    }
    if (oddKeys) {
      const extra = keys.filter((k) => !LINE_KEYS.includes(k)).sort(byCodePoint);
      report.fail(n, `unexpected keys ${extra.join(", ")}`);
    }
    const altered = known ? hashProblem(line, hashes[i])
      : `format ${pyRepr(fmt)} is not one this verifier knows (1, 2)`;
    if (altered) report.fail(n, altered);
    if (dice.format2) concealedFields(line, n, report);
    if (report.failures.length > before) seen.hash = "failed: " + report.failures.slice(before).map((f) => f[1]).join("; ");
    try {
      await signed.step(line, n);
    } catch (e) {
      report.fail(n, malformed(line.type, e));
    }
    signed.seen.add(hashKey(line.hash));
    prev = line.hash;
    if (line.type === "GameEnded" && ended === null) ended = n;
    if (SEALED_EVENTS.includes(line.type)) await sealedStep(line, n, commitments, report, revealed);
    else if (line.type === "OrderAccepted") carriedOut(line, n, revealed, report);
    // an OrderSealed's commitment is also its seat's input to the next client entropy
    if (!SEALED_EVENTS.includes(line.type) || line.type === "OrderSealed") await dice.step(line, n);
  }
  signed.finish();
  dice.finish();
  if (ended !== null && dice.open !== null) {  // a server keeping the seed of the last epoch
    report.fail(ended, `the game ended here, but dice epoch ${pyStr(dice.open)} was never revealed: its seed ` +
      "is revealed right after GameEnded (docs/dice.md section 1), and no die of it can be checked");
  }
  if (ended !== null && dice.sealed.made.size && !dice.sealed.revealed) {
    report.fail(ended, "the game ended here, but the sealed dice were never revealed: their seed is revealed " +
      "right after the last epoch's (docs/dice.md, \"Sealed rolls\"), and no sealed die can be checked");
  }
  report.chainHead = prev;
  return report;
}

function hashProblem(line, hash) {
  if (typeof hash === "string" && pyEq(hash, line.hash)) return null;
  if (hash instanceof EncodeError) {  // format 2: RFC 8785 has no encoding for a value of this line
    return `cannot be hashed (${hash.message}), so it was not written by warlog or was altered`;
  }
  if (line.redacted === true) {
    return `hash does not match: this ${pyStr(line.type)} is redacted (hidden information removed from a ` +
      "seat's or spectator's copy); only an umpire's export verifies";
  }
  return `hash does not match the line's content (${pyStr(line.type)} was altered)`;
}

// ------------------------------------------------------------------------ concealed fields ----
/** Format 2: each concealed field is opened (its salt there: the hash form's commitment is
 * computed from its value) or still concealed (its salt null: its value must be a commitment). */
function concealedFields(line, n, report) {
  const data = line.data;
  const salts = isObject(data) ? data[CONCEALED] : null;
  if (!isObject(salts)) return;
  for (const name of Object.keys(salts)) {
    if (salts[name] !== null) {
      report.fieldsOpened += 1;
    } else {
      report.fieldsConcealed += 1;
      if (typeof data[name] !== "string" || !HEX64.test(data[name])) {
        report.fail(n, `the concealed field ${name} holds no commitment (64 lowercase hex characters) and no salt`);
      }
    }
  }
}

// --------------------------------------------------------------------------- sealed orders ----
/** The commitment of sealed orders (docs/dice.md, section 8): sha256 of the canonical JSON of
 * {game, seat, round, orders, salt}. */
export async function sealedCommitment(gameId, seat, round, orders, salt) {
  const body = Object.create(null);
  Object.assign(body, { game: pyStr(gameId), seat, round, orders, salt });
  return sha256Hex(bytesOf(canonical(body)));
}

async function sealedStep(line, n, commitments, report, revealed) {
  const data = isObject(line.data) ? line.data : Object.create(null);
  try {
    const seat = get(data, "seat"), round = get(data, "round");
    const key = hashKey(seat) + "\u0000" + hashKey(round);
    if (line.type === "OrderSealed") {
      if (commitments.has(key)) report.fail(n, `${pyStr(seat)} sealed its orders for round ${pyStr(round)} twice`);
      commitments.set(key, get(data, "commitment"));
      return;
    }
    const shown = { seq: line.seq, seat, round, status: "" };
    report.reveals.set(n, shown);
    if (!commitments.has(key)) {
      shown.status = `failed: ${pyStr(seat)} revealed orders for round ${pyStr(round)} without a commitment before them`;
      report.fail(n, shown.status.slice(8));
      return;
    }
    if (revealed.has(key)) {  // a seat reveals once a round (Game.reveal_sealed): a replay carries it out again
      shown.status = `failed: ${pyStr(seat)} revealed its orders for round ${pyStr(round)} twice`;
      report.fail(n, shown.status.slice(8));
      return;
    }
    const hiddenHere = line.redacted === true || hidden(data, "orders") || hidden(data, "salt");
    revealed.set(key, { seat, round, n, orders: hiddenHere ? null : get(data, "orders") });
    if (hiddenHere) {
      shown.status = "hidden in this copy: cannot be checked here";
      return;
    }
    const made = await sealedCommitment(line.game_id, seat, round, get(data, "orders"), get(data, "salt"));
    if (!pyEq(made, commitments.get(key))) {
      shown.status = `failed: the orders ${pyStr(seat)} revealed for round ${pyStr(round)} do not match its commitment`;
      report.fail(n, shown.status.slice(8));
      return;
    }
    shown.status = "verified";
    report.revealsVerified += 1;
  } catch (e) {
    report.fail(n, malformed(line.type, e));
  }
}

const SEALED_PREFIX = "sealed:";  // the ids of revealed sealed orders (docs/dice.md section 8)
const INDEX = /^(0|[1-9][0-9]*)$/;

/** An order carried out under a sealed id (`sealed:ROUND:SEAT:INDEX`) is order INDEX of SEAT's reveal
 * for ROUND before it, as that seat's: the reveal is what the seat signed, and its orders are carried
 * out unsigned one by one, so the server could otherwise carry out another order, or one never revealed. */
function carriedOut(line, n, revealed, report) {
  const data = line.data;
  if (!isObject(data) || line.redacted === true || hidden(data, "order_id")) return;
  const orderId = "order_id" in data ? data.order_id : null;
  if (typeof orderId !== "string" || !orderId.startsWith(SEALED_PREFIX)) return;
  for (const { seat, round, n: at, orders } of revealed.values()) {
    const prefix = `${SEALED_PREFIX}${pyStr(round)}:${pyStr(seat)}:`;
    if (!(orderId.startsWith(prefix) && INDEX.test(orderId.slice(prefix.length)))) continue;
    const index = Number(orderId.slice(prefix.length));
    if (orders === null || hidden(data, "order") || hidden(data, "seat")) return;  // hidden in this copy
    if (!Array.isArray(orders) || index >= orders.length) break;
    if (!pyEq(field(data, "seat"), seat) || !pyEq(field(data, "order"), orders[index])) {
      failCarried(report, n, `order ${pyRepr(orderId)} is not order ${index} of the orders ${pyStr(seat)} revealed for ` +
        `round ${pyStr(round)} on line ${at}, as ${pyStr(seat)}'s: the reveal binds the orders carried out under it`);
    }
    return;
  }
  failCarried(report, n, `order ${pyRepr(orderId)} carries out no order revealed before it: a sealed order's id names a ` +
    "seat's reveal of a round and an order of it");
}

/** The failure of an order carried out under a sealed id, and its verdict on the page. */
function failCarried(report, n, why) {
  report.fail(n, why);
  const shown = report.orders.get(n);
  if (shown) shown.status = "failed: " + why;
}

// ---------------------------------------------------------------------------- signatures ----
/** The bytes a seat signs for an order: the canonical JSON of {game, order_id, order, head}. */
export function orderMessage(gameId, orderId, order, head) {
  const body = Object.create(null);
  Object.assign(body, { game: gameId, order_id: orderId, order, head });
  return bytesOf(canonical(body));
}

/** The bytes the server signs for a chain head: the canonical JSON of {game, seq, hash}. */
export function headMessage(gameId, seq, hash) {
  const body = Object.create(null);
  Object.assign(body, { game: gameId, seq, hash });
  return bytesOf(canonical(body));
}

/** The bytes a seat signs for its seal of sealed orders: the canonical JSON of
 * {game, kind: "seal", seat, round, commitment, head}. */
export function sealMessage(gameId, seat, round, commitment, head) {
  const body = Object.create(null);
  Object.assign(body, { game: gameId, kind: "seal", seat, round, commitment, head });
  return bytesOf(canonical(body));
}

/** The bytes a seat signs for its reveal: the canonical JSON of {game, kind: "reveal", seat, round, orders, salt, head}. */
export function revealMessage(gameId, seat, round, orders, salt, head) {
  const body = Object.create(null);
  Object.assign(body, { game: gameId, kind: "reveal", seat, round, orders, salt, head });
  return bytesOf(canonical(body));
}

/** The bytes a seat signs for another command (format 2): the canonical JSON of
 * {game, kind, seat, <the command's fields>, head} (domain/signatures.py command_message). */
export function commandMessage(gameId, kind, seat, fields, head) {
  const body = Object.create(null);
  Object.assign(body, fields, { game: gameId, kind, seat, head });
  return bytesOf(canonical(body));
}

const SEALED_KINDS = { OrderSealed: "seal", OrderRevealed: "reveal" };  // the signed kind of each
// A keyed seat's other commands (format 2): each line's signed kind and the fields of the line it
// signs (an answer's `accept` is its event type); the line is followed by its CommandSigned.
const COMMANDS = {
  Conceded: ["concede", []],
  TakeBackRequested: ["take_back", ["reason"]],
  TakeBackAccepted: ["take_back_answer", []],
  TakeBackDeclined: ["take_back_answer", []],
  StandingOrderSet: ["standing_order", ["policy_id", "decision_kind", "policy"]],
  StandingOrderCancelled: ["standing_order_cancel", ["policy_id"]],
  ClientSeedChanged: ["client_seed", ["client_seed"]],
  UmpireAccepted: ["umpire_answer", []],
  UmpireDeclined: ["umpire_answer", []],
  UmpireRevoked: ["umpire_answer", []],  // by a seat: it withdrew its agreement
  // a private one's kind is "private_annotation" (commandKind)
  AnnotationAdded: ["annotation", ["annotation_id", "about_seq", "text"]],
  VacationTaken: ["vacation", ["days"]],
  ExtensionGranted: ["extension", ["days"]],
  WinClaimed: ["claim_win", []],
};
const ACCEPTED = new Set(["TakeBackAccepted", "UmpireAccepted"]);
const SIGNED_BY = { OrderAccepted: "OrderSigned", OrderSealed: "SealedOrdersSigned", OrderRevealed: "SealedOrdersSigned" };
for (const type of Object.keys(COMMANDS)) SIGNED_BY[type] = "CommandSigned";

/** The signed kind of a COMMANDS line: a private annotation's is its own. */
function commandKind(type, data) {
  if (type === "AnnotationAdded" && isObject(data) && data.private === true) return "private_annotation";
  return COMMANDS[type][0];
}

/** Whether a line's type is one of COMMANDS, as Python's `type in _COMMANDS` asks it: a type that is
 * a list or an object cannot be looked up (unhashable), and the line is malformed. */
function isCommand(type) {
  if (type !== null && typeof type === "object") throw new PyTypeError(`unhashable type: '${pyType(type)}'`);
  return typeof type === "string" && Object.hasOwn(COMMANDS, type);
}

/** ``data[key]`` as Python's ``data.get(key)`` reads it: null when ``data`` is no object or lacks it. */
function field(data, key) {
  return isObject(data) && key in data ? data[key] : null;
}

/** A name as Python's backslashreplace writes it in ASCII: \xHH, \uHHHH or \UHHHHHHHH past 0x7f. */
function asciiEscaped(s) {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 0x80) out += ch;
    else if (c < 0x100) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c < 0x10000) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += "\\U" + c.toString(16).padStart(8, "0");
  }
  return out;
}

/** The seat whose command a COMMANDS line records (an UmpireRevoked's `by`; the admin's is none). */
function commandSeat(type, data) {
  const name = type === "UmpireRevoked" ? "by" : "seat";
  return isObject(data) && name in data ? data[name] : null;
}

/** Each OrderAccepted of a seat that registered a key is followed by its OrderSigned, whose
 * signature covers the game, the order id, the order as recorded and the hash of a line before;
 * in a format-2 game each OrderSealed and OrderRevealed of such a seat by its SealedOrdersSigned,
 * whose signature covers the game, its kind, seat and round, the commitment or the orders and
 * salt as recorded, and the hash of a line before. */
class Signed {
  constructor(report) {
    this.report = report;
    this.keys = new Map();  // seat -> public key
    this.keySeats = new Map();  // each key registered -> {seat, n}: the first seat to register it, its line
    this.keyShared = [];  // [{seat, why: "line N: why"}] for each seat whose key another seat registered too
    this.countedOrders = new Set();  // the verdict of each order counted in signaturesVerified
    this.seen = new Set();  // hashes of the lines before the current one
    this.commandSignatures = new Map();  // each CommandSigned's signature (but annotations'): its line
    this.waiting = null;  // {n, type, data, hash, redacted, shown}
    this.previous = { type: null, data: null };  // the line before
    this.accepted = new Map();  // each order id accepted: its line
    this.seats = null;  // GameCreated's seats (null: not a list of names)
    this.passes = false;  // the game's time control gives a pass at a timeout (TimeControlSet on_timeout "pass")
    this.joined = new Map();  // each seat joined: its SeatJoined's line
  }

  /** An order, seal, reveal or command names a seat of the game (GameCreated's `seats`): one under
   * another name ("Blue" with a zero-width space, shown as Blue) has no key, so the server could
   * write it unsigned and have it read as a keyed seat's. */
  seatOfGame(line, type, data, n) {
    if (this.seats === null || typeof type !== "string" || !isObject(data) || !("seat" in data) || line.redacted === true ||
        hidden(data, "seat")) return;
    if (!SEAT_LINES.includes(type) && !(Object.hasOwn(COMMANDS, type) && type !== "UmpireRevoked" && type !== "AnnotationAdded")) {
      return;  // an UmpireRevoked's `by` may be the admin, an annotation's author a spectator or the umpire
    }
    const seat = data.seat;
    if (!(typeof seat === "string" && this.seats.includes(seat))) {
      const shown = typeof seat === "string" ? asciiEscaped(seat) : pyStr(seat);
      this.report.fail(n, `this ${type} names seat '${shown}', which is not a seat of this game (GameCreated's ` +
        `seats are ${this.seats.join(", ")}): a seat's orders and commands are recorded under its name`);
    }
  }

  /** An order under a `timeout:` id is the server's pass for a late seat (TC 4), unsigned: it follows
   * at once a TimedOut naming that seat, in a game whose time control passes; anywhere else it would
   * be an order of a keyed seat that no signature binds. */
  timeoutPass(data, previous, n) {
    const before = previous.data, seats = field(before, "seats"), seat = field(data, "seat");
    if (!(this.passes && previous.type === "TimedOut" && pyEq(field(before, "on_timeout"), "pass") &&
          Array.isArray(seats) && seats.some((s) => pyEq(s, seat)))) {
      this.report.fail(n, `order ${pyRepr(field(data, "order_id"))} is recorded as the server's pass for seat ` +
        `${pyStr(seat)} at a timeout, but it does not follow at once a TimedOut of that seat in a game ` +
        "whose time control passes (TimeControlSet on_timeout 'pass'): no signature binds it");
    }
  }

  /** An order id is accepted once (it is the order's idempotency key, docs/api.md): a second
   * OrderAccepted under it would carry out the seat's order, and its signature, again. */
  once(orderId, n) {
    const first = this.accepted.get(orderId);
    if (first === undefined) {
      this.accepted.set(orderId, n);
    } else {
      this.report.fail(n, `order ${pyRepr(orderId)} was accepted before, on line ${first}: an order is recorded once, ` +
        "so this repeats it (a signed order replayed)");
    }
  }

  /** A seat's key is registered once, right after its SeatJoined (docs/dice.md, "Seats' keys"):
   * a key the server registered later, or a second one, would let it sign as the seat. */
  registered(seat, previous, n) {
    if (this.keys.has(hashKey(seat))) {
      this.report.fail(n, `seat ${pyStr(seat)}'s key is registered a second time: a key is registered once, with ` +
        "the join, and never changed");
    } else if (!(previous.type === "SeatJoined" && isObject(previous.data) && "seat" in previous.data &&
                 pyEq(previous.data.seat, seat))) {
      this.report.fail(n, `seat ${pyStr(seat)}'s key is not registered right after its SeatJoined: a key is registered ` +
        "once, with the join");
    }
  }

  /** No two seats register one key (docs/dice.md, "Seats' keys"): an order's signed bytes do not
   * name its seat, so one seat's signed order could be recorded as the other's and verify. */
  shared(seat, key, n) {
    if (typeof key !== "string") return;
    const first = this.keySeats.get(key);
    if (first === undefined) {
      this.keySeats.set(key, { seat, n });
    } else if (!pyEq(first.seat, seat)) {
      const why = `seat ${pyStr(seat)}'s key is the key seat ${pyStr(first.seat)} registered on line ` +
        `${first.n}: an order's signature does not name its seat, so the two seats' signed orders cannot be told apart`;
      this.report.fail(n, why);
      for (const holder of [first.seat, seat]) this.keyShared.push({ seat: holder, why: `line ${n}: ${why}` });
    }
  }

  async step(line, n) {
    const type = line.type, data = line.data;
    if (this.waiting !== null && type !== SIGNED_BY[this.waiting.type]) this.unsigned();
    const previous = this.previous;
    this.previous = { type, data };
    if (type === "OrderAccepted" && isObject(data) && typeof data.order_id === "string" && !hidden(data, "order_id")) {
      this.once(data.order_id, n);
    }
    if (n === 1 && type === "GameCreated" && isObject(data)) {
      const seats = "seats" in data ? data.seats : null;
      this.seats = Array.isArray(seats) && seats.every((s) => typeof s === "string") ? seats : null;
    }
    this.seatOfGame(line, type, data, n);
    if (type === "TimeControlSet" && isObject(data)) this.passes = pyEq(field(data, "on_timeout"), "pass");
    if (type === "OrderAccepted" && isObject(data) && pyStr(field(data, "order_id")).startsWith("timeout:") &&
        !(line.redacted === true || hidden(data, "order_id") || hidden(data, "seat"))) {
      this.timeoutPass(data, previous, n);
    }
    if (type === "SeatJoined" && isObject(data) && typeof field(data, "seat") === "string" &&
        !(line.redacted === true || hidden(data, "seat"))) {
      const first = this.joined.get(data.seat);
      if (first === undefined) {
        this.joined.set(data.seat, n);
      } else {  // Game.join: "already taken"
        this.report.fail(n, `seat ${data.seat} joined before, on line ${first}: a seat joins once (a second ` +
          "join would set its client seed unsigned, which only its ClientSeedChanged may change)");
      }
    }
    if (type === "SeatKeyRegistered") {
      const found = await publicKeyProblem(get(data, "public_key"));
      if (found) this.report.fail(n, `seat ${pyStr(get(data, "seat"))}'s key: ${found}`);
      this.registered(get(data, "seat"), previous, n);
      this.shared(get(data, "seat"), get(data, "public_key"), n);
      this.keys.set(hashKey(get(data, "seat")), data.public_key);
    } else if (type === "OrderAccepted") {
      const seat = get(data, "seat");
      const shown = { seq: line.seq, order_id: data.order_id, seat, status: "not signed: its seat registered no key" };
      this.report.orders.set(n, shown);
      if (this.keys.has(hashKey(seat))) {
        if (pyStr(get(data, "order_id")).startsWith("sealed:")) {
          // a revealed sealed order is bound by its seat's commitment and reveal, not signed one by one
          shown.status = "carried out from a sealed reveal (checked against its commitment)";
        } else if (pyStr(get(data, "order_id")).startsWith("timeout:")) {
          // a pass the server gave for a late seat (time control, on_timeout "pass"): the server's, unsigned
          shown.status = "the server's pass at a timeout (not signed by the seat)";
        } else {
          shown.status = "failed: not followed by its signature";
          this.waiting = { n, type, data, hash: line.hash, redacted: line.redacted === true || hidden(data, "order"), shown };
        }
      }
    } else if ((type === "OrderSealed" || type === "OrderRevealed") && !isFormat1(this.report.format) &&
               this.keys.has(hashKey(get(data, "seat")))) {
      const shown = { seq: line.seq, kind: SEALED_KINDS[type], seat: data.seat, round: data.round,
                      status: "failed: not followed by its signature" };
      this.report.sealedSignatures.set(n, shown);
      const redacted = line.redacted === true || (type === "OrderRevealed" && (hidden(data, "orders") || hidden(data, "salt")));
      this.waiting = { n, type, data, hash: line.hash, redacted, shown };
    } else if (isCommand(type) && !isFormat1(this.report.format) &&
               this.keys.has(hashKey(commandSeat(type, data)))) {
      const kind = commandKind(type, data), names = COMMANDS[type][1];
      const shown = { seq: line.seq, kind, seat: commandSeat(type, data), status: "failed: not followed by its signature" };
      this.report.commandSignatures.set(n, shown);
      const redacted = line.redacted === true || names.some((name) => hidden(data, name));
      this.waiting = { n, type, data, hash: line.hash, redacted, shown };
    } else if (type === "OrderSigned") {
      await this.signed(data, n, line.redacted === true || hidden(data, "signature"));
    } else if (type === "SealedOrdersSigned") {
      await this.sealedSigned(data, n, line.redacted === true || hidden(data, "signature"));
    } else if (type === "CommandSigned") {
      await this.commandSigned(data, n, line.redacted === true || hidden(data, "signature"));
    }
  }

  unsigned() {
    const { n, type, data, shown } = this.waiting;
    this.waiting = null;
    const why = type === "OrderAccepted"
      ? `order ${pyRepr(get(data, "order_id"))} of seat ${pyStr(get(data, "seat"))}, who registered a key, ` +
        "is not followed by its signature (OrderSigned)"
      : Object.hasOwn(COMMANDS, type)
      ? `the ${commandKind(type, data).replaceAll("_", " ")} command (${type}) of seat ${pyStr(commandSeat(type, data))}, ` +
        "who registered a key, is not followed by its signature (CommandSigned)"
      : `the ${SEALED_KINDS[type]} of seat ${pyStr(get(data, "seat"))}, who registered a key, for round ` +
        `${pyStr("round" in data ? data.round : null)} is not followed by its signature (SealedOrdersSigned)`;
    shown.status = "failed: " + why;
    this.report.fail(n, why);
  }

  /** The waiting line that the signature ``type`` on line ``n`` signs; null (reported) when none. */
  take(type, n) {
    const taken = this.waiting;
    this.waiting = null;
    if (taken === null) {
      const what = type === "OrderSigned" ? "an order"
        : type === "SealedOrdersSigned" ? "a seal or reveal of sealed orders" : "a command";
      this.report.fail(n, `${type} does not follow ${what} of a seat with a key`);
    }
    return taken;
  }

  /** A signature is concealed only with what it signs (domain/visibility.py): one held as a
   * commitment beside a shown order, seal or command would let a forged one pass unchecked. */
  hiddenAlone(data, signedHidden, n) {
    if (!(isObject(data) && hidden(data, "signature") && !signedHidden)) return null;
    const why = "the signature on this line is held as a commitment, but what it signs is shown: a " +
      "signature is concealed only with what it signs, so this one would go unchecked";
    this.report.fail(n, why);
    return "failed: " + why;
  }

  /** Why ``head`` is not the hash of a line before the signed one, or null. */
  headProblem(head, signedHash, what) {
    if (!this.seen.has(hashKey(head)) || pyEq(head, signedHash)) {
      return `the head this ${what} was signed over is not the hash of a line before it`;
    }
    return null;
  }

  async signed(data, n, redacted) {
    const report = this.report;
    const taken = this.take("OrderSigned", n);
    if (taken === null) return;
    const { n: at, data: order, hash: orderHash, redacted: orderRedacted, shown } = taken;
    if (redacted || orderRedacted) {
      shown.status = this.hiddenAlone(data, orderRedacted, n) || "hidden in this copy: its signature cannot be checked here";
      return;
    }
    if (!pyEq(get(data, "order_id"), get(order, "order_id")) || !pyEq(get(data, "seat"), get(order, "seat"))) {
      const why = `OrderSigned names order ${pyRepr(data.order_id)} of ${pyStr(data.seat)}, not the order ` +
        `${pyRepr(order.order_id)} of ${pyStr(order.seat)} on line ${at}`;
      shown.status = "failed: " + why;
      report.fail(n, why);
      return;
    }
    const problems = [];
    const head = get(data, "head");
    const late = this.headProblem(head, orderHash, "order");
    if (late) {
      problems.push(late);
      report.fail(n, late);
    }
    const gameId = report.gameId ? report.gameId : "";
    const message = orderMessage(gameId, get(order, "order_id"), get(order, "order"), head);
    if (!await signatureValid(this.keys.get(hashKey(get(order, "seat"))), get(data, "signature"), message)) {
      const why = `the signature on line ${n} is not seat ${pyStr(order.seat)}'s of order ${pyRepr(order.order_id)} ` +
        "as recorded here (the order or its signature was altered)";
      problems.push(why);
      report.fail(at, why);
    } else {
      report.signaturesVerified += 1;
      this.countedOrders.add(shown);
    }
    shown.status = problems.length ? "failed: " + problems.join("; ") : "verified";
  }

  async sealedSigned(data, n, redacted) {
    const report = this.report;
    const taken = this.take("SealedOrdersSigned", n);
    if (taken === null) return;
    const { n: at, type, data: done, hash: doneHash, redacted: doneRedacted, shown } = taken;
    const kind = SEALED_KINDS[type];
    if (!pyEq(get(data, "kind"), kind) || !pyEq(get(data, "seat"), get(done, "seat")) ||
        !pyEq(get(data, "round"), get(done, "round"))) {
      const why = `SealedOrdersSigned names the ${pyStr(get(data, "kind"))} of ${pyStr(get(data, "seat"))} for round ` +
        `${pyStr(get(data, "round"))}, not the ${kind} of ${pyStr(get(done, "seat"))} for round ${pyStr(get(done, "round"))} ` +
        `on line ${at}`;
      shown.status = "failed: " + why;
      report.fail(n, why);
      return;
    }
    if (redacted || doneRedacted) {
      shown.status = this.hiddenAlone(data, doneRedacted, n) || "hidden in this copy: its signature cannot be checked here";
      return;
    }
    const problems = [];
    const head = get(data, "head");
    const late = this.headProblem(head, doneHash, kind);
    if (late) {
      problems.push(late);
      report.fail(n, late);
    }
    const gameId = report.gameId ? report.gameId : "";
    const message = kind === "seal"
      ? sealMessage(gameId, get(done, "seat"), get(done, "round"), get(done, "commitment"), head)
      : revealMessage(gameId, get(done, "seat"), get(done, "round"), get(done, "orders"), get(done, "salt"), head);
    if (!await signatureValid(this.keys.get(hashKey(get(done, "seat"))), get(data, "signature"), message)) {
      const why = `the signature on line ${n} is not seat ${pyStr(done.seat)}'s of its ${kind} for round ` +
        `${pyStr(done.round)} as recorded here (the ${kind} or its signature was altered)`;
      problems.push(why);
      report.fail(at, why);
    } else {
      report.sealedSignaturesVerified += 1;
    }
    shown.status = problems.length ? "failed: " + problems.join("; ") : "verified";
  }

  async commandSigned(data, n, redacted) {
    const report = this.report;
    const taken = this.take("CommandSigned", n);
    if (taken === null) return;
    const { n: at, type, data: done, hash: doneHash, redacted: doneRedacted, shown } = taken;
    const kind = commandKind(type, done), names = COMMANDS[type][1];
    const seat = commandSeat(type, done);
    if (!pyEq(get(data, "kind"), kind) || !pyEq(get(data, "seat"), seat)) {
      const why = `CommandSigned names the ${pyStr(get(data, "kind"))} command of ${pyStr(get(data, "seat"))}, not the ` +
        `${kind} command (${type}) of ${pyStr(seat)} on line ${at}`;
      shown.status = "failed: " + why;
      report.fail(n, why);
      return;
    }
    if (redacted || doneRedacted) {
      shown.status = this.hiddenAlone(data, doneRedacted, n) || "hidden in this copy: its signature cannot be checked here";
      return;
    }
    const problems = [];
    const head = get(data, "head");
    const late = this.headProblem(head, doneHash, `${kind} command`);
    if (late) {
      problems.push(late);
      report.fail(n, late);
    }
    const signature = get(data, "signature");
    if (kind !== "annotation" && kind !== "private_annotation" && typeof signature === "string") {
      if (!this.commandSignatures.has(signature)) this.commandSignatures.set(signature, n);
      const first = this.commandSignatures.get(signature);
      if (first !== n) {  // an annotation's id is used once; any other signed command is recorded once
        const why = `the signature on line ${n} is already on line ${first}: a signed command is recorded once ` +
          "(this one is sent again)";
        problems.push(why);
        report.fail(n, why);
      }
    }
    const fields = Object.create(null);
    for (const name of names) fields[name] = get(done, name);
    if (kind === "take_back_answer" || kind === "umpire_answer") fields.accept = ACCEPTED.has(type);
    const gameId = report.gameId ? report.gameId : "";
    if (!await signatureValid(this.keys.get(hashKey(seat)), get(data, "signature"),
                              commandMessage(gameId, kind, seat, fields, head))) {
      const why = `the signature on line ${n} is not seat ${pyStr(seat)}'s of its ${kind} command as recorded here ` +
        "(the command or its signature was altered)";
      problems.push(why);
      report.fail(at, why);
    } else {
      report.commandSignaturesVerified += 1;
    }
    shown.status = problems.length ? "failed: " + problems.join("; ") : "verified";
  }

  finish() {
    if (this.waiting !== null) this.unsigned();
    // A signature valid under a key two seats registered does not say which of them gave the order:
    // the file fails at the key's line (as `warlog verify` says), and so does each such order's verdict,
    // which the summary's count leaves out.
    for (const shown of this.report.orders.values()) {
      const shared = this.keyShared.find((s) => pyEq(s.seat, shown.seat));
      if (!shared) continue;
      if (shown.status === "verified") shown.status = "failed: " + shared.why;
      if (this.countedOrders.has(shown)) this.report.signaturesVerified -= 1;
    }
  }
}

// ---------------------------------------------------------------------------- kept heads ----
const HASH = /^[0-9a-f]{64}$/;

/** Why ``head`` is not a head signed by ``serverKey``, or null (domain/signatures.py). */
export async function signedHeadProblem(head, serverKey) {
  const keys = isObject(head) ? Object.keys(head).sort() : [];
  if (keys.join(",") !== "game,hash,seq,signature") {
    return "a signed head is a JSON object with exactly game, seq, hash and signature";
  }
  if (typeof head.game !== "string" || typeof head.seq !== "bigint" || typeof head.hash !== "string" || !HASH.test(head.hash)) {
    return "a signed head's game is text, its seq an integer and its hash 64 lowercase hex characters";
  }
  if (!await signatureValid(serverKey, head.signature, headMessage(head.game, head.seq, head.hash))) {
    return "the head's signature is not the server key's";
  }
  return null;
}

/** Check a verified file against a kept signed head: signed by the server key, and the file's line
 * ``seq`` has its hash, so a file cut short or rewritten since the head was handed out fails here.
 * ``head``: JSON text, read as a line is (a head naming a key twice fails), or a value read by json.js. */
export async function verifyHead(report, head, serverKey) {
  if (typeof head === "string") {
    try {
      head = parse(head, { unique: true });
    } catch (e) {
      report.fail(0, e instanceof DuplicateKey ? `kept head: ${twice(e.key)}` : `kept head: not JSON (${e.message})`);
      return;
    }
  }
  if (!serverKey) {
    report.fail(0, "the file names no server key (no header line) and none was given: the head cannot be checked");
    return;
  }
  const found = await signedHeadProblem(head, serverKey);
  if (found) { report.fail(0, `kept head: ${found}`); return; }
  const seq = head.seq, total = report.hashes.length;
  if (!pyEq(head.game, report.gameId)) {
    report.fail(0, `the kept head is of game ${head.game}, not ${pyStr(report.gameId)}`);
  } else if (!(1n <= seq && seq <= BigInt(total))) {
    report.fail(Number(seq), `the server signed a head at line ${seq}, but the file ends at line ${total} (the log was cut short)`);
  } else if (!pyEq(report.hashes[Number(seq) - 1], head.hash)) {
    report.fail(Number(seq), `the server signed hash ${head.hash} for this line, the file has ` +
      `${pyStr(report.hashes[Number(seq) - 1])} (the log was rewritten)`);
  }
  report.sort();
}

