"""The rules toolkit: the mechanisms rulesets share (docs/rulesets.md, "The rules toolkit")."""
