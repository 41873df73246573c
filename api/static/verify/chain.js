/* The hash of an export line (docs/dice.md, section 5 and "Format 2"): sha256, as 64 lowercase
 * hex characters, of the UTF-8 bytes of the line without its "hash", written canonically:
 *
 * - format 1 (a game whose GameCreated has no "format"): Python's json.dumps with sorted keys;
 * - format 2: RFC 8785 of the line's hash form, in which each concealed field holds its
 *   commitment, sha256 of JCS({field, salt, value}), and every salt is null. */

import { isObject } from "./json.js";
import { jcs, pythonJson } from "./canonical.js";
import { bytesOf, sha256Hex } from "./crypto.js";

export const GENESIS = "0".repeat(64);
export const CONCEALED = "concealed";  // the data key naming a line's concealed fields and their salts

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

/** The commitment to a concealed field's value: sha256 of JCS({field, salt, value}), hex. */
export function fieldCommitment(field, salt, value) {
  const opened = Object.create(null);
  Object.assign(opened, { field, salt, value: value === undefined ? null : value });
  return sha256Hex(bytesOf(jcs(opened)));
}

/** A format-2 line as it is hashed: each concealed field holds its commitment (computed from the
 * value and salt when the salt is there, else already one) and no salt is left. */
export async function hashForm(line) {
  const data = line.data;
  const concealed = isObject(data) ? data[CONCEALED] : undefined;
  if (!isObject(concealed)) return line;
  const form = Object.assign(Object.create(null), data);
  const salts = Object.create(null);
  for (const name of Object.keys(concealed)) {
    if (concealed[name] !== null) form[name] = await fieldCommitment(name, concealed[name], data[name]);
    salts[name] = null;
  }
  form[CONCEALED] = salts;
  return Object.assign(Object.create(null), line, { data: form });
}

/** Whether a game of this format hashes as format 1 (Python: ``fmt == 1``, so 1.0 and true too). */
export function isFormat1(fmt) {
  return fmt === 1n || fmt === 1 || fmt === true;
}

/** The hash of an export line of a game of format ``fmt`` (1 or 2). An EncodeError when format 2's
 * RFC 8785 has no encoding for a value of it. */
export async function lineHash(line, fmt = 1n) {
  const body = withoutHash(line);
  if (isFormat1(fmt)) return sha256Hex(bytesOf(canonical(body)));
  return sha256Hex(bytesOf(jcs(await hashForm(body))));
}
