"""The proving ground: a small ruleset that exercises every mechanism of the rules toolkit end to
end, for the tests and as the worked example of docs/rulesets.md. Not a wargame.

Each mechanism lives in its own module here and registers its order kinds with ``rules.kind``:
tabled rolls and declared results (PG 2, PG 3), set-up by dice (PG 4), standing orders (PG 5),
the hex map and line of sight (PG 6), positions and sandboxes (PG 7).
"""

from domain.rulesets import register
from domain.rulesets.proving.rules import Proving

RULESET = register(Proving())

# Each mechanism's module registers its order kinds on import.
from domain.rulesets.proving import declared  # noqa: F401,E402
from domain.rulesets.proving import hexes  # noqa: F401,E402
from domain.rulesets.proving import positions  # noqa: F401,E402
from domain.rulesets.proving import setup  # noqa: F401,E402
from domain.rulesets.proving import standing  # noqa: F401,E402
from domain.rulesets.proving import tables  # noqa: F401,E402
