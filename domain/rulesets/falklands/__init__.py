"""Falklands Showdown (S&T 269): AR vs UK, adjudicated in full (rules FS 1.0-11.3)."""
