"""Solitaire Task Force v1.2 (``../shared/rules/003_74ca0e4e298164eb.txt``): one Player against
the GameSystem (seat ``system``); the rules STF 1.1-13.12, named ``STF n.m`` in code, tests and
errors. docs/rulesets.md, "Solitaire Task Force", says how it is built and every reading made."""

from domain.rulesets import register
from domain.rulesets.stf.rules import SolitaireTaskForce

# Each mechanism registers its order kinds and the GameSystem's steps when imported.
from domain.rulesets.stf import air, campaign, combat, forces, movement, retirement, search, turn  # noqa: E402

MECHANISMS = (campaign, turn, forces, search, movement, air, combat, retirement)

RULES = register(SolitaireTaskForce())
