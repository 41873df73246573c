/* The dice of a log, checked line by line (docs/dice.md sections 1 to 3, and "Format 2"): epochs
 * opened, rolled in and revealed; nonces without gap or repeat; every revealed seed against its
 * commitment and every die against its seed. A format-2 log also: each seed committed to
 * (DiceCommitted) before any input of its client entropy exists, the client entropy recomputed
 * from the orders and client seeds, each roll's input (the last order accepted before it) in its
 * dice, and the sealed stream (SealedDiceRolled, SealedDiceRevealed), whose rolls a seat's copy
 * may hold as commitments only ("sealed, not opened") until a SealedRollShown opens one.
 *
 * Failures are reported as domain/verify.py words them ("line N: why"), and each die gets a
 * verdict: "verified", "failed: why", "not yet revealed" or "sealed, not opened in this copy".
 */

import { isObject } from "./json.js";
import { EncodeError, PyError, PyTypeError, PyValueError, byCodePoint, get, hashKey, jcs, num, pyEq, pyRepr,
         pyStr, pyType } from "./canonical.js";
import { CONCEALED, fieldCommitment } from "./chain.js";
import { bytesOf, fromHex, sha256Hex } from "./crypto.js";
import { EpochDice, commitment, prefix1, prefix2 } from "./dice.js";

const TWO_64 = 2n ** 64n;
export const NOT_REVEALED = "not yet revealed";
const UNCHECKED = "not checked in this copy: the order id it derives from is held as a commitment";
export const NOT_OPENED = "sealed, not opened in this copy";
const SYSTEM = "system";

/** Whether ``field`` of ``data`` is concealed in this copy: its salt withheld, its value a commitment. */
export function hidden(data, field) {
  const salts = isObject(data) ? data[CONCEALED] : null;
  return isObject(salts) && field in salts && salts[field] === null;
}

export class Dice {
  constructor(report, format2) {
    this.report = report;
    this.format2 = format2;
    this.epochs = new Map();  // hashKey(epoch) -> {number, commitment, entropy, nextNonce, rolls, revealed}
    this.open = null;  // the open epoch's number; null: none open (an epoch numbered null too, as in Python)
    // format 2: the commitments recorded ahead, and the inputs of the next client entropy
    this.committed = new Map();  // hashKey(epoch) -> {n, commitment}
    this.seeds = new Map();  // human seat -> its client seed as recorded
    this.orders = [];  // order ids accepted since the last epoch opened
    this.firstInput = null;  // the line of the first of those inputs (an order, a join, a seed)
    this.anyInput = null;  // the line of the file's first input (a join, a seed, an order)
    this.lastOrder = "";  // a roll's input: the id of the last order accepted before it
    this.lastOrderHidden = false;  // that id is held as a commitment in this copy
    this.sealed = { committed: null, next: 0n, rolls: [], revealed: false, notOpened: 0,
                    made: new Map() };  // hashKey(seq) -> {n, data, roll, shown} of each sealed roll
  }

  /** One line, after its place in the chain was checked. */
  async step(line, n) {
    const type = line.type;
    const data = isObject(line.data) ? line.data : Object.create(null);
    if (this.format2) this.inputs(type, data, n);
    const handler = typeof type === "string" && Object.hasOwn(STEPS, type) ? STEPS[type] : null;  // a type may be any JSON value
    if (!handler || (!this.format2 && !["DiceEpochOpened", "DiceRolled", "DiceEpochRevealed"].includes(type))) return;
    try {
      await handler.call(this, data, n, line);
    } catch (e) {
      if (!(e instanceof PyError || e instanceof EncodeError)) throw e;
      this.report.fail(n, `malformed ${pyStr(type)} data: ${e.message}`);
    }
  }

  /** Format 2: what the next client entropy is made of, and each roll's input. Read leniently:
   * a line that does not fit is reported by the checks that read it. */
  inputs(type, data, n) {
    if (type === "GameCreated" && n === 1 && Array.isArray(data.seats)) {
      for (const seat of data.seats) if (typeof seat === "string" && seat !== SYSTEM) this.seeds.set(seat, "");
    } else if ((type === "SeatJoined" || type === "ClientSeedChanged") && typeof data.seat === "string") {
      // only the seats of GameCreated bring a client seed (docs/dice.md section 1), as in domain/verify.py
      if (this.seeds.has(data.seat)) this.seeds.set(data.seat, data.client_seed === undefined ? null : data.client_seed);
      this.input(n);
    } else if (type === "OrderAccepted") {
      if ("order_id" in data) {
        // an id this copy holds as a commitment: what is derived from it is not checked here
        this.lastOrderHidden = hidden(data, "order_id");
        this.orders.push(this.lastOrderHidden ? null : data.order_id);
        this.lastOrder = data.order_id;
      }
      this.input(n);
    } else if (type === "OrderSealed") {
      // a sealed round's orders get the server's ids: the seats' commitments are their input
      if ("commitment" in data) this.orders.push(hidden(data, "commitment") ? null : data.commitment);
      this.input(n);
    }
  }

  input(n) {
    if (this.firstInput === null) this.firstInput = n;
    if (this.anyInput === null) this.anyInput = n;
  }

  fail(n, why) {
    this.report.fail(n, why);
  }

  // ----------------------------------------------------------------------- the open stream ----
  async opened(data, n) {
    const number = get(data, "epoch");
    if (this.epochs.has(hashKey(number))) this.fail(n, `dice epoch ${pyStr(number)} opened twice`);
    if (this.open !== null) this.fail(n, `dice epoch ${pyStr(number)} opened while epoch ${pyStr(this.open)} is still open`);
    const epoch = { number, commitment: get(data, "commitment"), entropy: get(data, "client_entropy"),
                    nextNonce: 0n, rolls: [], revealed: false };
    if (this.format2) await this.openedAhead(epoch, n);
    this.epochs.set(hashKey(number), epoch);
    this.open = number;
  }

  /** Format 2: the epoch's seed was committed to before any input of its client entropy, and its
   * client entropy is the hash of the orders and client seeds recorded since the epoch before. */
  async openedAhead(epoch, n) {
    const e = pyStr(epoch.number);
    const ahead = this.committed.get(hashKey(epoch.number));
    if (ahead === undefined) {
      this.fail(n, `dice epoch ${e} opened, but no commitment to its seed was recorded before it (DiceCommitted)`);
    } else {
      if (!pyEq(ahead.commitment, epoch.commitment)) {
        this.fail(n, `dice epoch ${e} opened with another commitment than the one recorded on line ${ahead.n}`);
      }
      if (this.firstInput !== null && ahead.n > this.firstInput) {
        this.fail(ahead.n, `the commitment to dice epoch ${e} (line ${ahead.n}) was recorded after line ${this.firstInput}, ` +
          "an input of its client entropy");
      }
    }
    const seeds = Object.create(null);
    for (const [seat, seed] of this.seeds) seeds[seat] = seed;
    const made = Object.assign(Object.create(null), { orders: this.orders, seeds });
    if (this.orders.includes(null)) {  // an order id concealed in this copy: the entropy cannot be recomputed here
      this.report.entropiesUnchecked += 1;
    } else if (!pyEq(await sha256Hex(bytesOf(jcs(made))), epoch.entropy)) {
      this.fail(n, `the client entropy of dice epoch ${e} is not the hash of the orders and client seeds recorded before it`);
    }
    this.orders = [];
    this.firstInput = null;
  }

  rolled(data, n, line) {
    const number = get(data, "epoch");
    if (!pyEq(number, this.open) || !this.epochs.has(hashKey(number))) {
      this.fail(n, `roll in dice epoch ${pyStr(number)}, which is not open`);
      return;
    }
    const epoch = this.epochs.get(hashKey(number));
    const roll = this.shown(n, line, data, number, "open");
    const dice = get(data, "dice");
    try {
      this.nonces(dice, epoch.nextNonce, roll, n, "die nonce", "a roll");
    } finally {  // also when a malformed die stops the loop: the nonces counted so far stay counted
      epoch.nextNonce = roll.next;
    }
    epoch.rolls.push({ n, dice, roll });
  }

  async revealed(data, n, line) {
    const number = get(data, "epoch");
    const epoch = this.epochs.get(hashKey(number));
    if (epoch === undefined || !pyEq(number, this.open)) {
      this.fail(n, `dice epoch ${pyStr(number)} revealed but not open`);
      return;
    }
    const seed = seedBytes(get(data, "seed"));
    if (!whole(number)) {
      this.failAll(epoch.rolls, `dice epoch ${pyStr(number)} is not written as a whole number (a JSON integer): the faces ` +
        "are derived from its text, so its spelling would choose them", n);
    } else if (!pyEq(await commitment(seed), epoch.commitment)) {
      this.failAll(epoch.rolls, `the seed of dice epoch ${pyStr(number)} does not match its commitment`, n);
    } else {
      const dice = await EpochDice.of(seed);
      const prefix = (roll) => (this.format2 ? prefix2(line.game_id, number, epoch.entropy, roll.input)
        : prefix1(line.game_id, number, epoch.entropy));
      await this.faces(epoch.rolls, dice, prefix, "die nonce", "the revealed seed");
    }
    epoch.revealed = true;
    this.report.epochsRevealed += 1;
    this.open = null;
  }

  // --------------------------------------------------------------------- the sealed stream ----
  committedTo(data, n) {
    const stream = get(data, "stream"), number = get(data, "epoch"), made = get(data, "commitment");
    if (stream === "open") {
      const key = hashKey(number);
      if (this.committed.has(key)) this.fail(n, `dice epoch ${pyStr(number)} committed to twice`);
      else if (this.epochs.has(key)) this.fail(n, `dice epoch ${pyStr(number)} committed to after it opened`);
      else this.committed.set(key, { n, commitment: made });
    } else if (stream === "sealed") {
      if (this.sealed.committed) {
        this.fail(n, "the sealed stream committed to twice");
      } else {
        if (!pyEq(number, 0n)) {  // one seed per game, as domain/verify.py (0 as Python compares it)
          this.fail(n, `the sealed dice are committed as epoch ${pyStr(number)}, not 0 (one seed per game)`);
        } else if (this.anyInput !== null) {  // committed when the game is created, before any seat joins
          this.fail(n, `the sealed dice are committed after line ${this.anyInput}, an input mixed with their ` +
            "seed: the server could have chosen the seed knowing it");
        }
        this.sealed.committed = { n, commitment: made };
      }
    } else {
      this.fail(n, `a commitment to the dice stream ${pyRepr(stream)}, which is neither "open" nor "sealed"`);
    }
  }

  sealedRolled(data, n, line) {
    const made = { n, data, roll: null, shown: false };
    this.sealed.made.set(hashKey(line.seq), made);
    const number = get(data, "epoch");
    if (!pyEq(number, this.open) || !this.epochs.has(hashKey(number))) {
      this.fail(n, `sealed roll in dice epoch ${pyStr(number)}, which is not open`);
      return;
    }
    if (!whole(number)) {
      this.fail(n, `sealed roll in dice epoch ${pyStr(number)}, which is not written as a whole number (a JSON ` +
        "integer): the faces are derived from its text, so its spelling would choose them");
    }
    if (!this.sealed.committed) this.fail(n, "a sealed roll, but no commitment to the sealed stream's seed was recorded before it");
    const roll = made.roll = this.shown(n, line, data, number, "sealed");
    roll.entropy = this.epochs.get(hashKey(number)).entropy;
    const dice = get(data, "dice");
    if (hidden(data, "dice")) {  // a seat's copy: this roll's dice are a commitment, and so its nonces
      roll.hidden = true;
      this.sealed.notOpened += 1;
      this.sealed.next = null;
      return;
    }
    try {
      this.nonces(dice, this.sealed.next, roll, n, "sealed die nonce", "a sealed roll");
    } finally {
      this.sealed.next = roll.next;
    }
    this.sealed.rolls.push({ n, dice, roll });
  }

  /** A sealed roll shown before the end: it opens every concealed field of an earlier sealed roll
   * of its seat, with the values and salts recorded (or, in a copy holding the roll as
   * commitments, giving them); the dice it opens are checked at the reveal like any others. */
  async sealedShown(data, n) {
    const report = this.report;
    const at = get(data, "roll");
    const made = this.sealed.made.get(hashKey(at));
    if (made === undefined) { this.fail(n, `shows seq ${pyRepr(at)}, which is not a sealed roll before it`); return; }
    if (made.shown) { this.fail(n, `the sealed roll at seq ${pyStr(at)} is shown twice`); return; }
    made.shown = true;
    const rolled = made.data, opened = get(data, "fields");
    const salts = isObject(rolled[CONCEALED]) ? rolled[CONCEALED] : Object.create(null);
    if (!pyEq(get(data, "seat"), get(rolled, "seat"))) {
      this.fail(n, `shows ${pyStr(rolled.seat)}'s sealed roll at seq ${pyStr(at)} as ${pyStr(data.seat)}'s`);
    }
    const names = (o) => Object.keys(o).sort(byCodePoint);
    if (!isObject(opened) || pyRepr(names(opened)) !== pyRepr(names(salts))) {
      this.fail(n, `shows fields ${pyRepr(isObject(opened) ? names(opened) : opened)} of the sealed roll at seq ` +
        `${pyStr(at)}, whose concealed fields are ${pyRepr(names(salts))}`);
      return;
    }
    for (const name of names(opened)) {
      const value = get(opened[name], "value"), salt = get(opened[name], "salt");
      if (!(typeof salt === "string" && /^[0-9a-f]{64}$/.test(salt))) {
        this.fail(n, `the salt shown for field ${pyRepr(name)} is not 64 lowercase hex characters`);
      } else if (salts[name] === null) {  // this copy holds the roll's commitment: the opening must give it
        if (!pyEq(await fieldCommitment(name, salt, value), get(rolled, name))) {
          this.fail(n, `the ${name} shown do not open the commitment of the sealed roll at seq ${pyStr(at)}`);
        }
      } else if (!pyEq(value, get(rolled, name)) || !pyEq(salt, salts[name])) {
        this.fail(n, `the ${name} shown differ from those of the sealed roll at seq ${pyStr(at)}`);
      }
    }
    report.sealedRollsShown += 1;
    const faces = "dice" in opened ? get(opened.dice, "value") : null;
    if (salts.dice === null && Array.isArray(faces) && made.roll) {  // opened here: its dice checked at the reveal
      this.sealed.notOpened -= 1;
      made.roll.hidden = false;
      made.roll.dice = faces.map((die) => ({ nonce: die.nonce, sides: die.sides, value: die.value, problems: [],
                                              status: NOT_REVEALED }));
      this.sealed.rolls.push({ n: made.n, dice: faces, roll: made.roll });
    }
  }

  async sealedRevealed(data, n, line) {
    const sealed = this.sealed;
    if (sealed.revealed) { this.fail(n, "the sealed stream's seed revealed twice"); return; }
    if (!sealed.committed) { this.fail(n, "the sealed stream's seed revealed, but no commitment to it was recorded"); return; }
    const seed = seedBytes(get(data, "seed"));
    if (!pyEq(await commitment(seed), sealed.committed.commitment)) {
      this.failAll(sealed.rolls, "the sealed stream's seed does not match its commitment", n);
    } else {
      const prefix = (roll) => prefix2(line.game_id, roll.epoch, roll.entropy, roll.input);
      await this.faces(sealed.rolls, await EpochDice.of(seed), prefix, "sealed die nonce", "the revealed sealed seed");
    }
    sealed.revealed = true;
  }

  // ------------------------------------------------------------------------------ shared ----
  /** The roll as the pages show it, each die with its verdict. */
  shown(n, line, data, epoch, stream) {
    const roll = { seq: line.seq, epoch, stream, seat: data.seat, purpose: data.purpose, dice: [],
                   input: this.format2 ? this.lastOrder : null,
                   unchecked: this.format2 && stream === "open" && this.lastOrderHidden };
    this.report.dice.set(n, roll);
    return roll;
  }

  /** Check a roll's nonces (from ``next``; null: not known in this copy) and ranges. The next
   * nonce is left in ``roll.next``, also when a malformed die stops the loop. */
  nonces(dice, next, roll, n, word, what) {
    const report = this.report;
    try {
      for (const die of iterate(dice)) {
        const nonce = get(die, "nonce");
        const shown = { nonce, sides: die.sides, value: die.value, problems: [], status: NOT_REVEALED };
        roll.dice.push(shown);
        const problem = (why) => { report.fail(n, why); shown.problems.push(why); shown.status = "failed: " + why; };
        if (next !== null && !pyEq(nonce, next)) {
          problem(`${word} ${pyStr(nonce)} where ${pyStr(next)} was expected (${what} is missing or was repeated)`);
        }
        const sides = get(die, "sides");
        if (!(2n <= num(sides) && num(sides) <= TWO_64)) {
          problem(`a d${pyStr(sides)} is not a die (2 to 2**64 sides)`);
        } else {
          const value = get(die, "value");
          if (!(1n <= num(value) && num(value) <= num(sides))) problem(`die value ${pyStr(value)} is not a face of a d${pyStr(sides)}`);
        }
        next = plusOne(nonce);
      }
    } finally {
      roll.next = next;
    }
  }

  failAll(rolls, why, n) {
    this.fail(n, why);
    for (const { roll } of rolls) for (const die of roll.dice) if (!die.problems.length) die.status = "failed: " + why;
  }

  /** Every die of revealed rolls against the face its seed gives (computed at once, reported in order). */
  async faces(rolls, dice, prefixOf, word, source) {
    const report = this.report;
    const wanted = await Promise.all(rolls.map(({ dice: faces, roll }) => roll.unchecked ? [] : Promise.all(Array.from(iterate(faces), (die) => {
      const sides = get(die, "sides");
      if (!(2n <= num(sides) && num(sides) <= TWO_64)) return null;
      return whole(get(die, "nonce"), sides) ? dice.face(prefixOf(roll), get(die, "nonce"), sides) : NOT_WHOLE;
    }))));
    rolls.forEach(({ n, dice: faces, roll }, r) => {
      if (roll.unchecked) {  // its input is concealed in this copy
        report.rollsUnchecked += 1;
        for (const die of roll.dice) if (!die.problems.length) die.status = UNCHECKED;
        return;
      }
      Array.from(iterate(faces)).forEach((die, k) => {
        const want = wanted[r][k];
        if (want === null) return;  // not a die: reported at the roll
        const shown = roll.dice[k];
        if (want === NOT_WHOLE) {
          const why = `${word} ${pyStr(die.nonce)} of a d${pyStr(die.sides)} is not written as whole numbers (JSON ` +
            "integers): another spelling of the same numbers gives another face, so the spelling would choose it";
          report.fail(n, why);
          shown.problems.push(why);
          shown.status = "failed: " + shown.problems.join("; ");
        } else if (!pyEq(want, die.value)) {
          const why = `${word} ${pyStr(die.nonce)} shows ${pyStr(die.value)} but ${source} gives ${pyStr(want)}`;
          report.fail(n, why);
          shown.problems.push(why);
          shown.status = "failed: " + shown.problems.join("; ");
        } else if (!shown.problems.length) {
          shown.status = "verified";
        }
      });
      if (roll.stream === "sealed") {
        report.sealedRollsVerified += 1;
        report.sealedDiceVerified += Array.from(iterate(faces)).length;
      } else {
        report.rollsVerified += 1;
        report.diceVerified += Array.from(iterate(faces)).length;
      }
    });
  }

  finish() {
    for (const epoch of this.epochs.values()) {
      if (!epoch.revealed) {
        this.report.epochsUnrevealed += 1;
        this.report.rollsUnrevealed += epoch.rolls.length;
      }
    }
    if (!this.sealed.revealed) this.report.sealedRollsUnrevealed += this.sealed.rolls.length;
    this.report.sealedNotOpened += this.sealed.notOpened;
  }
}

const STEPS = {
  DiceEpochOpened: Dice.prototype.opened,
  DiceRolled: Dice.prototype.rolled,
  DiceEpochRevealed: Dice.prototype.revealed,
  DiceCommitted: Dice.prototype.committedTo,
  SealedDiceRolled: Dice.prototype.sealedRolled,
  SealedRollShown: Dice.prototype.sealedShown,
  SealedDiceRevealed: Dice.prototype.sealedRevealed,
};

// The numbers a face is derived from are written into its message as text, the sides used as an
// integer (docs/dice.md, section 2): 3 and 3.0 (or true for 1) are equal to == and to RFC 8785,
// but give other faces. JSON's integers are read as BigInts (json.js), anything else is not one.
const NOT_WHOLE = Symbol("not whole");

function whole(...numbers) {
  return numbers.every((number) => typeof number === "bigint");
}

/** What Python's ``for x in value`` goes through: a list's items, a dict's keys, a string's characters. */
function iterate(value) {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.keys(value);
  if (typeof value === "string") return Array.from(value);
  throw new PyTypeError(`'${pyType(value)}' object is not iterable`);
}

function plusOne(v) {
  if (typeof v === "bigint") return v + 1n;
  if (typeof v === "number") return v + 1;
  if (typeof v === "boolean") return v ? 2n : 1n;
  throw new PyTypeError(`can only concatenate ${pyType(v)} (not "int") to ${pyType(v)}`);
}

function seedBytes(text) {
  if (typeof text !== "string") throw new PyTypeError(`fromhex() argument must be str, not ${pyType(text)}`);
  const seed = fromHex(text);
  if (seed === null) throw new PyValueError("non-hexadecimal number found in fromhex() arg");
  return seed;
}
