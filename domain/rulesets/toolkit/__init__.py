"""The rules toolkit: the mechanisms every game's ruleset shares (docs/rulesets.md, "The rules toolkit")."""
