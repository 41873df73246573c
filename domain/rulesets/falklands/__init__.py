"""Falklands Showdown (S&T 269): AR vs UK, adjudicated in full (rules FS 1.0-11.3).

Modules: data (the tables, provisional where the text is silent), state (the fold and the
questions), events (its own events), hooks (its steps, its fold and FS 4.5 sudden death on the
toolkit's step engine, domain/rulesets/toolkit/), combat (FS 10), ops (FS 7.1), flow (phases,
turns, FS 5), randomevents (FS 11.3), choices (what legal-orders offers), rules (the ruleset),
play (random legal orders, for the fuzzer and benchmarks).
"""

from domain.rulesets import register
from domain.rulesets.falklands.rules import Falklands

RULESET = register(Falklands())
