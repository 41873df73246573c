/* The browser's own cryptography (WebCrypto), none made here: SHA-256, HMAC-SHA256 and Ed25519,
 * with the encodings docs/dice.md uses (hex digests, unpadded base64url keys and signatures). */

const subtle = globalThis.crypto && globalThis.crypto.subtle;
const utf8 = new TextEncoder();

/** Why this page cannot check signatures and hashes (no WebCrypto: not https nor localhost), or null. */
export function unavailable() {
  return subtle ? null : "this browser offers no WebCrypto here (the page is not served over HTTPS or from localhost)";
}

export function bytesOf(text) {
  return utf8.encode(text);
}

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Python's bytes.fromhex: pairs of hex digits, ASCII whitespace allowed between them; null when not. */
export function fromHex(text) {
  if (typeof text !== "string") return null;
  const out = [];
  let i = 0;
  while (i < text.length) {
    if (" \t\n\r\x0b\x0c".includes(text[i])) { i++; continue; }
    const pair = text.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) return null;
    out.push(parseInt(pair, 16));
    i += 2;
  }
  return new Uint8Array(out);
}

export async function sha256Hex(bytes) {
  return hex(await subtle.digest("SHA-256", bytes));
}

/** An HMAC-SHA256 key made of raw bytes (a dice seed). */
export async function hmacKey(raw) {
  return subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function hmac(key, bytes) {
  return new Uint8Array(await subtle.sign("HMAC", key, bytes));
}

// ------------------------------------------------------------------------------ base64url ----
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

export function base64Url(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += ALPHABET[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/** The ``size`` bytes that unpadded base64url ``text`` spells, or null: only the one spelling of
 * those bytes is accepted (no padding, no other alphabet, no stray bits), as domain/signatures.py. */
export function fromBase64Url(text, size) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  const bits = [];
  for (const c of text) bits.push(ALPHABET.indexOf(c));
  const out = [];
  for (let i = 0; i < bits.length; i += 4) {
    const n = (bits[i] << 18) | ((bits[i + 1] || 0) << 12) | ((bits[i + 2] || 0) << 6) | (bits[i + 3] || 0);
    const got = Math.floor(((Math.min(4, bits.length - i)) * 6) / 8);
    for (let k = 0; k < got; k++) out.push((n >> (16 - 8 * k)) & 255);
  }
  const raw = new Uint8Array(out);
  return raw.length === size && base64Url(raw) === text ? raw : null;
}

// -------------------------------------------------------------------------------- Ed25519 ----
export const PUBLIC_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

/** Why ``text`` is not a seat's public key, or null (domain/signatures.py ``public_key_problem``). */
/* The Ed25519 points of small order, the sign bit cleared (domain/signatures.py's _SMALL_ORDER):
 * for such a key anyone can make a signature that verifies. */
const SMALL_ORDER = new Set([
  "00".repeat(32), "01" + "00".repeat(31),
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "ec" + "ff".repeat(30) + "7f", "ed" + "ff".repeat(30) + "7f", "ee" + "ff".repeat(30) + "7f"]);

export async function publicKeyProblem(text) {
  const raw = fromBase64Url(text, PUBLIC_KEY_BYTES);
  if (raw === null) return "a public key is the 32 raw bytes of an Ed25519 key as unpadded base64url (43 characters)";
  try {
    await subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch (e) {
    return "this is not an Ed25519 public key";
  }
  const cleared = Uint8Array.from(raw);
  cleared[31] &= 0x7f;
  if (SMALL_ORDER.has(hex(cleared))) {
    return "this Ed25519 key is a point of small order, for which anyone can make a signature that verifies";
  }
  return null;
}

/** Whether ``signature`` (base64url) is ``publicKey``'s (base64url) Ed25519 signature of ``bytes``. */
export async function signatureValid(publicKey, signature, bytes) {
  const rawKey = fromBase64Url(publicKey, PUBLIC_KEY_BYTES);
  const rawSig = fromBase64Url(signature, SIGNATURE_BYTES);
  if (rawKey === null || rawSig === null) return false;
  try {
    const key = await subtle.importKey("raw", rawKey, { name: "Ed25519" }, false, ["verify"]);
    return await subtle.verify({ name: "Ed25519" }, key, rawSig, bytes);
  } catch (e) {
    return false;
  }
}
