/* The two canonical encodings a line's hash is taken over (docs/dice.md, section 5 and "Format 2"),
 * written from their definitions, of values read by json.js (integers as BigInt, other numbers
 * as doubles, objects without prototype):
 *
 * - format 1: Python's json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False):
 *   keys in code point order, a float as Python's repr writes it, strings escaped as Python does;
 * - format 2: RFC 8785 (JCS): keys in UTF-16 code unit order, numbers as ECMAScript writes them,
 *   integers only within +-(2**53 - 1), no NaN or infinity, no lone surrogate (as the library
 *   `rfc8785` refuses them).
 *
 * Plus the few Python spellings the verifier's messages use (str() and repr() of a value).
 */

import { isObject } from "./json.js";

export class EncodeError extends Error {}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Python's repr() of a double: the shortest digits that read back to it (as ECMAScript's), placed
 * as Python places them: plain from 1e-4 to below 1e16, with ".0" when integral; else d.ddde+XX. */
export function pyFloatRepr(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, exp] = Math.abs(x).toExponential().split("e");  // shortest round-trip digits
  const digits = mantissa.replace(".", "");
  const point = Number(exp) + 1;  // where the decimal point goes, counted from the first digit
  if (point < -3 || point > 16) {
    const e = Number(exp);
    const frac = digits.length > 1 ? "." + digits.slice(1) : "";
    return `${sign}${digits[0]}${frac}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Compare two strings by code point (Python's order of str), not by UTF-16 code unit. */
export function byCodePoint(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    const cx = a.codePointAt(i), cy = b.codePointAt(i);
    return cx < cy ? -1 : cx > cy ? 1 : 0;
  }
  return a.length - b.length;
}

function byCodeUnit(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A string as both encodings write it: JSON.stringify's escapes (", \\, \b \f \n \r \t, other
 * control characters as lowercase \u00xx, everything else as is) are exactly Python's with
 * ensure_ascii=False and RFC 8785's; a lone surrogate cannot be written as UTF-8 by either. */
function quote(s) {
  if (LONE_SURROGATE.test(s)) throw new EncodeError("input contains non-UTF-8 codepoints");  // rfc8785's words
  return JSON.stringify(s);
}

/** Format 1: Python's json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function pythonJson(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (value === Infinity) return "Infinity";
    if (value === -Infinity) return "-Infinity";
    return pyFloatRepr(value);
  }
  if (typeof value === "string") return quote(value);
  if (Array.isArray(value)) return "[" + value.map(pythonJson).join(",") + "]";
  const keys = Object.keys(value).sort(byCodePoint);
  return "{" + keys.map((k) => quote(k) + ":" + pythonJson(value[k])).join(",") + "}";
}

const INT_MAX = 2n ** 53n - 1n;

/** Format 2: RFC 8785, as the Python library `rfc8785` writes it (and refuses what it refuses). */
export function jcs(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "bigint") {
    if (value > INT_MAX || value < -INT_MAX) throw new EncodeError(`${value} exceeds safe integer domain for JSON floats`);
    return value.toString();
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new EncodeError(`${pyFloatRepr(value)} is not representable in JCS`);
    return String(value);  // ECMAScript's Number::toString, -0 as "0"
  }
  if (typeof value === "string") return quote(value);
  if (Array.isArray(value)) return "[" + value.map(jcs).join(",") + "]";
  const keys = Object.keys(value).sort(byCodeUnit);
  return "{" + keys.map((k) => quote(k) + ":" + jcs(value[k])).join(",") + "}";
}

// ------------------------------------------------------------- Python's words for values ----
/** Python's str() of a value read from JSON (what an f-string writes). */
export function pyStr(v) {
  if (typeof v === "string") return v;
  return pyRepr(v);
}

/** Python's repr() of a value read from JSON: 'text' in quotes, True, None, 5, 5.0, [...], {...}. */
export function pyRepr(v) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return pyFloatRepr(v);
  if (typeof v === "string") return reprStr(v);
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  return "{" + Object.keys(v).map((k) => reprStr(k) + ": " + pyRepr(v[k])).join(", ") + "}";
}

function reprStr(s) {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === "\\" || ch === q) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return q + out + q;
}

/** Python's == between values read from JSON: 1 == 1.0 == True, dicts equal whatever their order. */
export function pyEq(a, b) {
  const na = numeric(a), nb = numeric(b);
  if (na !== null || nb !== null) return na !== null && nb !== null && na == nb;  // eslint-disable-line eqeqeq
  if (typeof a === "string" || typeof b === "string" || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && pyEq(a[k], b[k]));
  }
  return false;
}

/** A number's value for comparing (bool as 0 or 1, as in Python), or null for anything else. */
export function numeric(v) {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1n : 0n;
  return null;
}

/** Python's order of two numbers (a < b etc. mix int and float exactly); a TypeError otherwise. */
export function num(v) {
  const n = numeric(v);
  if (n === null) throw new PyTypeError(`'<=' not supported between instances of 'int' and '${pyType(v)}'`);
  return n;
}

export function pyType(v) {
  if (v === null) return "NoneType";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  return Array.isArray(v) ? "list" : "dict";
}

/** What Python's KeyError / TypeError / ValueError would be, for "malformed ... data" messages. */
export class PyError extends Error {
  constructor(kind, message) { super(`${kind}(${reprStr(message)})`); this.kind = kind; }
}
export class PyTypeError extends PyError { constructor(m) { super("TypeError", m); } }
export class PyKeyError extends PyError { constructor(k) { super("KeyError", ""); this.message = `KeyError(${pyRepr(k)})`; } }
export class PyValueError extends PyError { constructor(m) { super("ValueError", m); } }

/** data[key] as Python reads it: a KeyError when missing, a TypeError when data is no dict. */
export function get(data, key) {
  if (!isObject(data)) {
    if (typeof data === "string" || Array.isArray(data)) throw new PyTypeError(`${pyType(data)} indices must be integers or slices, not str`);
    throw new PyTypeError(`'${pyType(data)}' object is not subscriptable`);
  }
  if (!(key in data)) throw new PyKeyError(key);
  return data[key];
}

/** Python's hashing of a value used as a dict key or set member: equal numbers are one key. */
export function hashKey(v) {
  if (typeof v === "string") return "s" + v;
  if (typeof v === "bigint") return "n" + v;
  if (typeof v === "boolean") return v ? "n1" : "n0";
  if (typeof v === "number") return Number.isInteger(v) ? "n" + BigInt(v) : "f" + v;
  if (v === null) return "None";
  throw new PyTypeError(`unhashable type: '${pyType(v)}'`);
}
