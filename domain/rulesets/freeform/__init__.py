"""Freeform: a verifiable PBEM dice server and log for any wargame.

The players keep their game's rules themselves; warlog rolls the dice, keeps the VP track and the
sequence, and records everything. Its own rules are numbered FF 1-9 (rules.py, docs/rulesets.md).
"""

from domain.rulesets import register
from domain.rulesets.freeform.rules import Freeform

RULESET = register(Freeform())
