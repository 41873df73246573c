"""The rules toolkit: the shared machinery every game's rules are built on (docs/rulesets.md,
"The rules toolkit", is the guide).

Modules: engine (the step engine: ``Ctx``, one step registry per ruleset, ``run``, pending
decisions, any dice, VP through the ruleset's hooks, the input checks), data (the data loader:
checked files, frozen tables, provisional values), coverage (the rules coverage manifests),
hexes (hex grids, names, distance, megahexes, line of sight, hex map files), tables (tabled
rolls read by column and modified roll), declared (values a seat declares for a rule book the
texts lack), hidden (private fields of events, for the hidden-information hooks). The events every
game may emit are in ``domain/events.py``.
"""
