"""The plain values the shoe services take and give: a coup and its wagers as posted, a wager as settled,
what recording a coup or correcting it came to."""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from pit.shoes.models import Coup, CoupCorrection, Wager


@dataclass(frozen=True)
class WagerInput:
    seat: int
    bet: str
    amount: Decimal
    paid: Decimal | None = None


@dataclass(frozen=True)
class CoupInput:
    number: int
    player: list[str]
    banker: list[str]
    dealt_at: dt.datetime | None = None
    reported_winner: str = ""
    wagers: tuple[WagerInput, ...] = ()


class CoupOutcomeStatus:
    CREATED = "created"  # recorded now
    EXISTING = "existing"  # the same coup was recorded before (a replay): nothing written
    CONFLICT = "conflict"  # the number was recorded before with other values: flagged, nothing else written
    INVALID = "invalid"  # malformed: nothing written


@dataclass(slots=True)
class SettledWager:
    """A wager as the engine settled it, in minor units: the values of a `Wager` row, without the
    model (a day's batch settles some 11,000 of them; instantiating models was a quarter of its time)."""

    seat: int
    bet: str
    currency: str
    amount_minor: int
    result: str
    payout_minor: int
    commission_minor: int
    paid_minor: int | None

    def model(self, **links) -> Wager:
        return Wager(**{name: getattr(self, name) for name in self.__slots__}, **links)


@dataclass
class CoupOutcome:
    status: str
    coup: Coup | None = None
    errors: dict = field(default_factory=dict)
    violation: object = None
    wagers: list[SettledWager] = field(default_factory=list)  # a coup created now: its wagers as stored


@dataclass
class CorrectionOutcome:
    correction: CoupCorrection
    created: bool  # False: the same correction (or void) stands already; nothing written
