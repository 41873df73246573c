"""The distinct kinds of error a command can raise.

Malformed input, an illegal order and a conflict are different errors (STYLE 5); each carries a
stable ``code`` the HTTP layer maps to a status, and a rule violation names its rule.
"""

from __future__ import annotations


class WarlogError(Exception):
    """Base of every error the domain and the application service raise on purpose."""

    code = "warlog_error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InvalidOrder(WarlogError):
    """The order is malformed: a field is missing or has the wrong shape."""

    code = "invalid_order"

    def __init__(self, message: str, rule: str | None = None, field: str | None = None):
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule
        self.field = field


class RuleViolation(WarlogError):
    """The order is well formed but the rules forbid it now; names the rule it breaks."""

    code = "rule_violation"

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


class NotYourMove(RuleViolation):
    """The seat may not act now (another seat's turn, or a decision pending elsewhere)."""

    code = "not_your_move"


class Conflict(WarlogError):
    """The game moved on since the version the client saw; nothing was recorded."""

    code = "version_conflict"

    def __init__(self, message: str, current_version: int | None = None):
        super().__init__(message)
        self.current_version = current_version


class StaleVersion(Conflict):
    """The client's expected version (If-Match) is not the game's version; nothing was recorded."""

    code = "stale_version"


class IdempotencyConflict(WarlogError):
    """The order id was used before with a different body."""

    code = "idempotency_conflict"


class CommitmentMismatch(WarlogError):
    """A sealed-orders reveal does not hash to the seat's commitment (domain/sealed.py): the
    orders or the salt are not those sealed. Nothing is recorded."""

    code = "commitment_mismatch"

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule


class GameNotFound(WarlogError):
    code = "game_not_found"


class UnknownSeat(WarlogError):
    code = "unknown_seat"


class UnknownRuleset(WarlogError):
    code = "unknown_ruleset"


class InvalidSetup(WarlogError):
    """Game creation options the ruleset does not accept."""

    code = "invalid_setup"


class InvalidFork(WarlogError):
    """A sandbox cannot start at this event of the source game (past its end, inside an order,
    after the game ended); the message says why and where it can start."""

    code = "invalid_fork"


class ForkHidden(WarlogError):
    """The state at the fork's event holds information hidden from the caller: only a viewer who
    sees all of it (the umpire) may fork there, so no seat learns hidden state through a fork."""

    code = "fork_hidden"


class IntegrityFailure(WarlogError):
    """The stored log or an imported file does not verify: names the first bad line."""

    code = "integrity_failure"

    def __init__(self, message: str, seq: int | None = None):
        super().__init__(f"line {seq}: {message}" if seq is not None else message)
        self.seq = seq


class DamagedLog(IntegrityFailure):
    """The stored log of this game fails verification (a stored event no longer decodes, no longer
    follows its predecessor or no longer has its hash): the store was changed outside warlog. The
    game takes no orders until an operator acts (domain/damage.py); ``seq`` names the line."""

    code = "damaged_log"


class RulesetBug(Exception):
    """A ruleset broke the contract (a roll made but not recorded, a roll in a closed epoch).

    Not a WarlogError: it is the server's fault, never the client's, and nothing is recorded."""


class SignatureRequired(WarlogError):
    """The seat registered a key, and the order carries no signature (or no head)."""

    code = "signature_required"


class BadSignature(WarlogError):
    """The order's signature is not the seat's key's signature of what was sent."""

    code = "bad_signature"


class UnknownHead(WarlogError):
    """The head an order was signed over is not the hash of any line of this game's log."""

    code = "unknown_head"


class SignatureReused(WarlogError):
    """A keyed seat's command carries a signature the log already holds: a signed command is
    recorded once, so a server that kept one cannot record it again (docs/dice.md)."""

    code = "signature_reused"
