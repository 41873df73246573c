/* JSON as Python's json module reads it, so that a line can be written back byte for byte as the
 * chain hashed it (docs/dice.md, "Checking in the browser").
 *
 * JSON.parse would lose what the hash covers: 5.0 and 5 both become the number 5, and an integer
 * above 2**53 is rounded. Here an integer (no fraction, no exponent) is a BigInt, any other number
 * a double (what Python's float() makes of the same text); objects have no prototype, so any key
 * ("__proto__" included) is plain data, and a repeated key keeps its last value, as in Python
 * (or, with ``{unique: true}``, as the verifiers read a line, is a DuplicateKey).
 * NaN, Infinity and -Infinity are read, as Python reads them.
 */

export class JsonError extends Error {}

/** An object naming ``key`` twice, in a text read with ``{unique: true}``. */
export class DuplicateKey extends Error {
  constructor(key) { super("a key written twice"); this.key = key; }
}

/** Python refuses to read an integer of more than 4300 digits (sys.int_info.default_max_str_digits). */
export const MAX_INT_DIGITS = 4300;
const MAX_DEPTH = 900;  // about where Python's decoder gives up with a RecursionError

const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The value of one JSON text (leading and trailing whitespace allowed), or a JsonError;
 * ``unique``: an object naming a key twice is a DuplicateKey (domain/verify.py's loads). */
export function parse(text, { unique = false } = {}) {
  let at = 0;
  const fail = (why) => { throw new JsonError(`${why} at char ${at}`); };
  const skip = () => { while (at < text.length && WS.has(text[at])) at++; };

  function value(depth) {
    if (depth > MAX_DEPTH) throw new JsonError("nested too deep");
    skip();
    const c = text[at];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    for (const [word, v] of WORDS) {
      if (text.startsWith(word, at)) { at += word.length; return v; }
    }
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    return fail("Expecting value");
  }

  function object(depth) {
    const out = Object.create(null);
    let twice = null;  // the first key written twice
    at++;
    skip();
    if (text[at] === "}") { at++; return out; }
    for (;;) {
      skip();
      if (text[at] !== '"') fail("Expecting property name enclosed in double quotes");
      const key = string();
      skip();
      if (text[at] !== ":") fail("Expecting ':' delimiter");
      at++;
      const v = value(depth + 1);
      if (unique && twice === null && key in out) twice = key;
      out[key] = v;
      skip();
      if (text[at] === ",") { at++; continue; }
      if (text[at] === "}") {  // refused once the object closes, as Python's object_pairs_hook sees it
        at++;
        if (twice !== null) throw new DuplicateKey(twice);
        return out;
      }
      fail("Expecting ',' delimiter");
    }
  }

  function array(depth) {
    const out = [];
    at++;
    skip();
    if (text[at] === "]") { at++; return out; }
    for (;;) {
      out.push(value(depth + 1));
      skip();
      if (text[at] === ",") { at++; continue; }
      if (text[at] === "]") { at++; return out; }
      fail("Expecting ',' delimiter");
    }
  }

  function string() {
    at++;  // the opening quote
    let out = "";
    for (;;) {
      const start = at;
      while (at < text.length && text[at] !== '"' && text[at] !== "\\" && text.charCodeAt(at) >= 0x20) at++;
      out += text.slice(start, at);
      if (at >= text.length) fail("Unterminated string");
      const c = text[at];
      if (c === '"') { at++; return out; }
      if (c !== "\\") fail("Invalid control character");
      const e = text[at + 1];
      if (e === "u") {
        const hex = text.slice(at + 2, at + 6);
        if (!HEX4.test(hex)) fail("Invalid \\uXXXX escape");
        out += String.fromCharCode(parseInt(hex, 16));  // a pair of escaped surrogates joins, as in Python
        at += 6;
      } else if (e !== undefined && Object.prototype.hasOwnProperty.call(ESCAPES, e)) {
        out += ESCAPES[e];
        at += 2;
      } else {
        fail("Invalid \\escape");
      }
    }
  }

  function number() {
    if (text.startsWith("-Infinity", at)) { at += 9; return -Infinity; }
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(text);
    if (!m) fail("Expecting value");
    at += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const digits = m[0].replace("-", "").length;
      if (digits > MAX_INT_DIGITS) throw new JsonError("a number of more than 4300 digits");
      return BigInt(m[0]);
    }
    return Number(m[0]);  // correctly rounded, as Python's float() of the same text
  }

  const result = value(0);
  skip();
  if (at !== text.length) fail("Extra data");
  return result;
}

const WORDS = [["null", null], ["true", true], ["false", false], ["NaN", NaN], ["Infinity", Infinity]];

/** Whether a parsed value is a JSON object (a dict), not an array or a scalar. */
export function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
