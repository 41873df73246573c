"""Read models: pure folds over events, their stores, and the readable line of an event."""
