"""Write tests/data/format1_exports.json: real exports of format 1, kept as files.

Games created since format 2 are format 2, but a format-1 file must verify forever, in
`warlog verify` and in the browser (docs/dice.md, "Checking in the browser"). So the format-1
exports of the shared tampering cases (tests/tampers.py) are files made once, by the games of
tests/tampers.py played on the code from before format 2 (commit 19d3ed2 of branch
i34-browser-verify):

    git archive 19d3ed2 | tar -x -C /tmp/pre
    PYTHONPATH=/tmp/pre .venv/bin/python tests/data/make_format1_exports.py > tests/data/format1_exports.json

Besides each file's lines: the signed head its player kept and the server's public key, and what
a forger of the tampering cases holds: the server's private key (made for this file only) and
Blue's orders.
"""

from __future__ import annotations

import json
import sys
import tempfile

from domain import signatures
from domain.storage import config_from_env
from tests import tampers
from tests.conftest import make_app


def main() -> None:
    app = make_app(config_from_env({"WARLOG_DATA_DIR": tempfile.mkdtemp() + "/data"}))
    try:
        made = tampers.games(app)
    finally:
        app.close()
    out = {}
    for name, x in made.items():
        first = x.lines()[0]
        assert first["type"] == "GameCreated" and "format" not in first["data"], "not the code from before format 2"
        secret = {k: signatures.private_key_text(v) if k == "server" else v for k, v in x.secret.items() if k != "key"}
        out[name] = {"text": x.text, "head": x.head, "server_key": x.server_key, "secret": secret}
    sys.stdout.write(json.dumps({"comment": "Made by tests/data/make_format1_exports.py; see its docstring.",
                                 "exports": out}, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
