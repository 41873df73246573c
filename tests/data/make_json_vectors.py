"""Regenerate tests/data/json_vectors.json: how Python writes the JSON a line's hash is taken over,
for the browser's verifier to be checked against (api/static/verify/canonical.js; docs/dice.md,
"Checking in the browser").

The reference implementations are the ones the spec names, nothing of Warlog's:

- ``float_repr``: Python's ``repr(float)``, of doubles given by their 64 bits (hex), so the
  browser gets exactly that double: edge cases, every power of ten, random bit patterns and
  random short decimals;
- ``python_json``: JSON texts and ``json.dumps(json.loads(text), sort_keys=True,
  separators=(",", ":"), ensure_ascii=False)`` (format 1's canonical JSON);
- ``jcs``: JSON texts and ``rfc8785.dumps(json.loads(text))`` (format 2's), or ``null`` where
  the library refuses the value.

Run from the repository root:

    .venv/bin/python tests/data/make_json_vectors.py > tests/data/json_vectors.json
"""

from __future__ import annotations

import json
import random
import struct
import sys
from pathlib import Path

import rfc8785

VECTORS_FILE = Path(__file__).resolve().parent / "json_vectors.json"


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def doubles() -> list[float]:
    rng = random.Random(34)
    edge = [0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.30000000000000004, 1 / 3, 2 / 3, 1.5, 100.0, 1e15, 1e16, 1e17,
            9999999999999998.0, 1e16 - 2, 123456789012345680.0, 1e21, 1e22, 1e-4, 1e-5, 1.5e-5, 0.00012345,
            5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, 2.0**53,
            2.0**53 + 2, 2.0**63, 2.0**64, 4.35, 0.000001, 1e-7, 12345.678, 6.02214076e23, 1e100, 1e-100]
    out = edge + [10.0**e for e in range(-30, 31)] + [-(10.0**e) for e in range(-5, 18, 3)]
    while len(out) < 800:
        x, = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))
        if x == x and abs(x) != float("inf"):
            out.append(x)
    while len(out) < 1200:  # numbers as people write them: few digits, any exponent
        out.append(float(f"{rng.randint(1, 10**rng.randint(1, 17))}e{rng.randint(-30, 30)}"))
    return out


PYTHON_JSON_TEXTS = [
    '{"b": 1, "a": 2, "A": 3, "_": 4, "aa": 0, "": 5}',
    '{"\\ud83d\\ude00": 1, "\\uffff": 2, "\\ue000": 3, "z": 4, "é": 5}',  # code point order: U+FFFF before U+1F600
    '{"n": [1, -0, 1.0, -0.0, 1e2, 1E-2, 2.5e-5, 1e16, 123456789012345678901234567890, 0.1]}',
    '{"s": "quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t \\u0000 \\u001f \\u007f \\u0080 \\u2028 \\u2029 é 😀"}',
    '{"big": 18446744073709551617, "neg": -9007199254740993, "f": 9007199254740993.0}',
    '{"special": [NaN, Infinity, -Infinity, 1e400, -1e400]}',
    '[true, false, null, {}, [], "", {"x": {"y": [{"z": null}]}}]',
    '{"dup": 1, "dup": 2}',
    '{"__proto__": {"constructor": 1}, "toString": "x", "10": "ten", "9": "nine", "-1": "minus"}',
    '"\\ud800 lone surrogate"',
    ' {"spaced" :\t[ 1 ,2 ] }\r\n',
]

JCS_TEXTS = [
    '{"b": 1, "a": 2, "A": 3, "_": 4, "aa": 0, "": 5}',
    '{"\\ud83d\\ude00": 1, "\\uffff": 2, "\\ue000": 3, "z": 4, "é": 5}',  # UTF-16 order: U+1F600 before U+E000
    # RFC 8785 section 3.2.2 / appendix: its example of sorting and numbers
    '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", '
    '"1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]}',
    '{"n": [1, -0, 1.0, -0.0, 1e2, 1E-2, 2.5e-5, 1e16, 1e21, 1e-7, 0.1, 9007199254740991, -9007199254740991]}',
    '{"s": "quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t \\u0000 \\u001f \\u007f \\u0080 \\u2028 é 😀"}',
    '[true, false, null, {}, [], "", {"x": {"y": [{"z": null}]}}]',
    '{"__proto__": {"constructor": 1}, "10": "ten", "9": "nine"}',
    '{"too big": 9007199254740992}',
    '{"too small": -9007199254740992}',
    '{"nan": NaN}',
    '{"inf": Infinity}',
    '"\\udc00 lone surrogate"',
]


def python_json(text: str) -> str | None:
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode().decode()
    except UnicodeEncodeError:
        return None  # a lone surrogate: Python writes it but cannot encode the line as UTF-8


def jcs(text: str) -> str | None:
    try:
        return rfc8785.dumps(json.loads(text)).decode()
    except rfc8785.CanonicalizationError:
        return None


def vectors() -> dict:
    xs = doubles()
    return {
        "comment": "Made by tests/data/make_json_vectors.py (see its docstring) from Python's repr(float), "
                   "json.dumps(..., sort_keys=True, separators=(',', ':'), ensure_ascii=False) and rfc8785.dumps; "
                   "doubles are given by their 64 bits as hex; null: the value cannot be encoded.",
        "float_repr": [[bits(x), repr(x)] for x in xs],
        "jcs_numbers": [[bits(x), rfc8785.dumps(x).decode()] for x in xs],
        "python_json": [[t, python_json(t)] for t in PYTHON_JSON_TEXTS],
        "jcs": [[t, jcs(t)] for t in JCS_TEXTS],
    }


def dumps(made: dict) -> str:
    """One vector a line, so a change shows as the lines it changes."""
    parts = []
    for key, value in made.items():
        if isinstance(value, list):
            rows = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f"{json.dumps(key)}: [\n{rows}\n]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    sys.stdout.write(dumps(vectors()))
