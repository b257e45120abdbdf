"""A coup posted again under a recorded number: how the two differ, and the violation a difference records."""

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import cast

from pit import game
from pit.compliance.services import violation_record
from pit.core.money import from_minor
from pit.shoes.models import Coup, Shoe
from pit.shoes.services.settlement import PreparedCoup


@dataclass(frozen=True)
class CoupRecord:
    """What a coup says, in the form two postings of it are compared in. `dealt_at` None: not given."""

    player: tuple[str, ...]
    banker: tuple[str, ...]
    reported_winner: str
    dealt_at: dt.datetime | None
    wagers: dict[tuple[int, str], tuple[int, int | None]]  # (seat, bet) -> (amount, paid), minor units
    positions: dict[tuple[int, str], int]  # (seat, bet) -> index in the posted list

    @classmethod
    def posted(cls, prepared: PreparedCoup) -> "CoupRecord":
        return cls(
            player=tuple(card.code for card in prepared.player),
            banker=tuple(card.code for card in prepared.banker),
            reported_winner=prepared.item.reported_winner,
            dealt_at=prepared.item.dealt_at,
            wagers={(w.seat, w.bet): (w.amount_minor, w.paid_minor) for w in prepared.wagers},
            positions={(w.seat, w.bet): index for index, w in enumerate(prepared.wagers)},
        )

    @classmethod
    def recorded(cls, coup: Coup, wagers) -> "CoupRecord":
        return cls(
            player=tuple(coup.player_cards),
            banker=tuple(coup.banker_cards),
            reported_winner=coup.reported_winner,
            dealt_at=coup.dealt_at,
            wagers={(w.seat, w.bet): (w.amount_minor, w.paid_minor) for w in wagers},
            positions={},
        )


def repost_differences(recorded: CoupRecord, posted: CoupRecord, currency: str) -> dict[str, list[str]]:
    """Each field path of the repost (as posted: `wagers[2].amount`) whose value differs from the coup
    recorded, with both values. Empty for a true replay. A repost without `dealt_at` leaves it as it was."""

    def amount(minor):
        return "none" if minor is None else str(from_minor(minor, currency))

    differences: dict[str, list[str]] = {}
    for name in ("player", "banker"):
        was, now = getattr(recorded, name), getattr(posted, name)
        if was != now:
            differences[name] = [f"recorded {' '.join(was)}, posted {' '.join(now)}"]
    if recorded.reported_winner != posted.reported_winner:
        differences["reported_winner"] = [
            f"recorded {recorded.reported_winner or 'none'}, posted {posted.reported_winner or 'none'}"
        ]
    if posted.dealt_at is not None and posted.dealt_at != recorded.dealt_at:
        # What is recorded has its time: a stored coup's, or the batch's first posting's (else this one's).
        was_dealt = cast(dt.datetime, recorded.dealt_at)
        differences["dealt_at"] = [f"recorded {was_dealt.isoformat()}, posted {posted.dealt_at.isoformat()}"]
    for key, index in sorted(posted.positions.items(), key=lambda pair: pair[1]):
        seat, bet = key
        if key not in recorded.wagers:
            differences[f"wagers[{index}]"] = [f"seat {seat} {bet} was not recorded in this coup"]
            continue
        for part, was, now in zip(("amount", "paid"), recorded.wagers[key], posted.wagers[key], strict=True):
            if was != now:
                differences[f"wagers[{index}].{part}"] = [f"recorded {amount(was)}, posted {amount(now)}"]
    missing = [
        f"seat {seat} {bet} {amount(recorded.wagers[(seat, bet)][0])} was recorded and is not in the repost"
        for seat, bet in sorted(set(recorded.wagers) - set(posted.wagers))
    ]
    if missing:
        differences["wagers"] = missing
    return differences


def repost_violation(shoe: Shoe, existing: Coup, prepared: PreparedCoup, differences: dict[str, list[str]]):
    """The violation a differing repost records, once per distinct repost: `coup_conflict` when the cards
    differ, `coup_repost_differs` when only the wagers, the reported winner or the dealt time do."""
    posted = game.Coup(player=prepared.player, banker=prepared.banker)
    if "player" in differences or "banker" in differences:
        recorded = game.Coup.from_codes(player=existing.player_cards, banker=existing.banker_cards)
        finding = game.check_repost(existing.number, recorded, posted)
        posted_codes = (
            " ".join(card.code for card in prepared.player) + "|" + " ".join(card.code for card in prepared.banker)
        )
        fingerprint = f"coup_conflict:coup{existing.pk}:{hashlib.sha256(posted_codes.encode()).hexdigest()[:16]}"
    else:
        finding = game.repost_differs(existing.number, differences)
        canonical = repr(sorted(differences.items()))
        fingerprint = f"coup_repost_differs:coup{existing.pk}:{hashlib.sha256(canonical.encode()).hexdigest()[:16]}"
    return violation_record(
        finding=finding,
        table=shoe.table,
        shoe=shoe,
        coup=existing,
        gaming_day=existing.gaming_day,
        found_by="coup_recording",
        fingerprint=fingerprint,
    )
