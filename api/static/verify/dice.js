/* The face of a die, re-derived in the browser from a revealed seed (docs/dice.md, section 2):
 * HMAC-SHA256 keyed with the seed's raw bytes over "game_id|epoch|client_entropy|nonce|i"
 * (scheme 2, format 2: "game_id|epoch|client_entropy|input|nonce|i"), the first 8 bytes read
 * big-endian, rejection sampling against 2**64 - (2**64 % sides). */

import { bytesOf, hmac, hmacKey, sha256Hex } from "./crypto.js";
import { pyStr } from "./canonical.js";

const TWO_64 = 2n ** 64n;

/** The commitment to a seed: sha256 of its bytes, hex. */
export function commitment(seed) {
  return sha256Hex(seed);
}

function first8(h) {
  let x = 0n;
  for (let k = 0; k < 8; k++) x = (x << 8n) | BigInt(h[k]);
  return x;
}

/** The dice of one epoch (or stream): ``prefix`` is what every die's message starts with, after
 * which come "nonce|i" (scheme 1: "game_id|epoch|client_entropy|"; scheme 2 adds the roll's input). */
export class EpochDice {
  constructor(key) { this.key = key; }

  static async of(seed) {
    return new EpochDice(await hmacKey(seed));
  }

  /** The face (1..sides) of die ``nonce`` under ``prefix``. ``sides`` an integer (BigInt) from 2 to
   * 2**64; a float number of sides (which Python would take) is read as Python's float arithmetic. */
  async face(prefix, nonce, sides) {
    return (await this.draw(prefix, nonce, sides)).face;
  }

  /** {face, attempts}: attempts is the number of HMACs computed (1 unless the rejection step fired). */
  async draw(prefix, nonce, sides) {
    const exact = typeof sides === "bigint";
    const limit = exact ? TWO_64 - (TWO_64 % sides) : 2 ** 64 - (2 ** 64 % sides);
    for (let i = 0; ; i++) {
      const x = first8(await hmac(this.key, bytesOf(`${prefix}${pyStr(nonce)}|${i}`)));
      if (x < limit) return { face: exact ? x % sides + 1n : (Number(x) % sides) + 1, attempts: i + 1 };
    }
  }
}

/** Scheme 1's message prefix: "game_id|epoch|client_entropy|". */
export function prefix1(gameId, epoch, entropy) {
  return `${pyStr(gameId)}|${pyStr(epoch)}|${pyStr(entropy)}|`;
}

/** Scheme 2's message prefix (format 2): "game_id|epoch|client_entropy|input|", where ``input`` is the
 * id of the last order accepted before the roll ("" when none). */
export function prefix2(gameId, epoch, entropy, input) {
  return `${pyStr(gameId)}|${pyStr(epoch)}|${pyStr(entropy)}|${pyStr(input)}|`;
}

/** One die of scheme 2: {face, attempts}, as ``dice.face2`` / ``dice.attempts2``. */
export async function draw2(seed, gameId, epoch, entropy, input, nonce, sides) {
  return (await EpochDice.of(seed)).draw(prefix2(gameId, epoch, entropy, input), nonce, sides);
}

/** One die of scheme 1, for the fixed vectors: {face, attempts} of die ``nonce`` of an epoch. */
export async function draw(seed, gameId, epoch, entropy, nonce, sides) {
  return (await EpochDice.of(seed)).draw(prefix1(gameId, epoch, entropy), nonce, sides);
}
