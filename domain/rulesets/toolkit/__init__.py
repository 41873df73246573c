"""The rules toolkit: the shared machinery every game's rules are built on (docs/rulesets.md)."""
