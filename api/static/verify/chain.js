/* The hash of an export line (docs/dice.md, section 5): sha256, as 64 lowercase hex characters, of
 * the UTF-8 bytes of the line without its "hash", written canonically. */

import { pythonJson } from "./canonical.js";
import { bytesOf, sha256Hex } from "./crypto.js";

export const GENESIS = "0".repeat(64);

/** The line without its "hash" key. */
export function withoutHash(line) {
  const body = Object.create(null);
  for (const k of Object.keys(line)) if (k !== "hash") body[k] = line[k];
  return body;
}

/** The canonical JSON of format 1 (Python's json.dumps with sorted keys, no spaces, not ASCII-escaped). */
export function canonical(value) {
  return pythonJson(value);
}

/** The hash of an export line. */
export async function lineHash(line) {
  return sha256Hex(bytesOf(canonical(withoutHash(line))));
}
