"""The rules toolkit: the shared machinery every game's rules are built on.

Modules: engine (the step engine: ``Ctx``, one step registry per ruleset, ``run``, pending
decisions, any dice, VP through the ruleset's hooks, and the input checks). The events every
game may emit are in ``domain/events.py``; docs/rulesets.md, "The rules toolkit", is the guide.
"""
