"""A shoe's life at its table: started after a shuffle, locked while its coups are written, closed
with the commission box counts."""

from collections import Counter
from collections.abc import Sequence
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_for
from pit.core.money import MoneyError, from_minor, to_minor
from pit.ledger.models import BoxCount
from pit.records.links import records_chain
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.persistence import shoe_locked
from pit.shoes.services.settlement import posted_cards
from pit.tables.models import Table


@day_write(writes=("shoes.Shoe",), day_of="the gaming day of its shuffle")
@transaction.atomic
def shoe_start(
    *,
    table: Table,
    cut_card_position: int,
    decks: int = 8,
    burn: Sequence[str] = (),
    shuffled_at=None,
    actor: Actor = SYSTEM,
) -> Shoe:
    """A new shoe at the table, after a shuffle. Refused (Conflict) while another shoe is dealing."""
    burn_cards = posted_cards(list(burn), "burn")
    table = Table.objects.select_for_update().get(pk=table.pk)
    dealing = Shoe.objects.filter(table=table, status=ShoeStatus.DEALING).first()
    if dealing is not None:
        raise Conflict(
            gettext(
                "Shoe {dealing_sequence} (id {dealing_pk}) is still dealing at table {table_code}; close it first."
            ).format(dealing_sequence=dealing.sequence, dealing_pk=dealing.pk, table_code=table.code),
            shoe_id=dealing.pk,
            sequence=dealing.sequence,
        )
    if not isinstance(decks, int) or not 1 <= decks <= 12:
        raise ValidationError({"decks": gettext("A shoe holds 1 to 12 decks.")})
    if not isinstance(cut_card_position, int) or not 1 <= cut_card_position <= decks * 52:
        raise ValidationError(
            {
                "cut_card_position": gettext("The cut card goes between card 1 and card {value}.").format(
                    value=decks * 52
                )
            }
        )
    shuffled_at = shuffled_at or timezone.now()
    days_ensure_open([gaming_day_for(shuffled_at)])
    last = Shoe.objects.filter(table=table).order_by("-sequence").values_list("sequence", flat=True).first()
    shoe = Shoe(
        table=table,
        sequence=(last or 0) + 1,
        decks=decks,
        cut_card_position=cut_card_position,
        shuffled_at=shuffled_at,
        burn_cards=[card.code for card in burn_cards],
        cards_seen=dict(Counter(card.code for card in burn_cards)),
        **actor.recorded_fields(),
    )
    shoe.full_clean()
    shoe.save()
    return shoe


def shoe_lock(shoe_id: int) -> Shoe:
    """The shoe row, locked for this transaction: coups of a shoe are recorded one writer at a time.

    Its table's row is locked with it; the paytable in force only share-locked (PostgreSQL): a plain
    FOR UPDATE over the join locked the paytable row too, so every table playing that paytable
    recorded its coups one after the other. An edit of the paytable (select_for_update) still waits
    for the coups being settled under it.
    """
    return shoe_locked(shoe_id)


@day_write(
    writes=("ledger.BoxCount",), day_of="the gaming days of the shoe's coups and the day it closes (the shuffle)"
)
@transaction.atomic
def shoe_close(*, shoe: Shoe, box_counts: list[tuple[int, Decimal]], closed_at=None, actor: Actor = SYSTEM) -> Shoe:
    """The shuffle: close the shoe with the commission box count per seat; reconcile after commit.

    Closing again with the same counts is a no-op; with other counts it is a Conflict.
    """
    shoe = shoe_lock(shoe.pk)
    table = shoe.table
    counts: dict[int, int] = {}
    for index, (seat, counted) in enumerate(box_counts):
        if seat not in table.seats:
            raise ValidationError(
                {
                    f"commission_box[{index}].seat": gettext("{seat} is not a seat at table {table_code}.").format(
                        seat=seat, table_code=table.code
                    )
                }
            )
        if seat in counts:
            raise ValidationError(
                {f"commission_box[{index}].seat": gettext("Seat {seat} is counted twice.").format(seat=seat)}
            )
        try:
            counted_minor = to_minor(Decimal(counted), table.currency)
        except MoneyError as exc:
            raise ValidationError({f"commission_box[{index}].counted": str(exc)}) from exc
        if counted_minor < 0:
            raise ValidationError({f"commission_box[{index}].counted": gettext("A count cannot be negative.")})
        counts[seat] = counted_minor
    if shoe.status == ShoeStatus.CLOSED:
        recorded = dict(shoe.box_counts.values_list("seat", "counted_minor"))
        posted = {seat: minor for seat, minor in counts.items() if minor or seat in recorded}
        if recorded != posted:
            positions = {seat: index for index, (seat, _) in enumerate(box_counts)}

            def shown(minor: int | None) -> str:
                return "none" if minor is None else str(from_minor(minor, table.currency))

            errors = {
                (f"commission_box[{positions[seat]}].counted" if seat in positions else "commission_box"): [
                    f"seat {seat}: recorded {shown(recorded.get(seat))}, posted {shown(posted.get(seat))}"
                ]
                for seat in sorted(set(recorded) | set(posted))
                if recorded.get(seat) != posted.get(seat)
            }
            raise Conflict(
                gettext("{shoe} was closed already with other commission box counts.").format(shoe=shoe),
                errors=errors,
                shoe_id=shoe.pk,
            )
        return shoe
    close_recorded_at = timezone.now()
    days = set(shoe.coups.order_by().values_list("gaming_day", flat=True).distinct())
    days_ensure_open({*days, gaming_day_for(closed_at or close_recorded_at)})
    shoe.status = ShoeStatus.CLOSED
    shoe.close_recorded_at = close_recorded_at
    shoe.closed_at = closed_at or shoe.close_recorded_at
    shoe.save(update_fields=["status", "closed_at", "close_recorded_at"])
    with records_chain(shoe_id=shoe.pk):
        BoxCount.objects.bulk_create(
            BoxCount(shoe=shoe, seat=seat, currency=table.currency, counted_minor=minor, **actor.recorded_fields())
            for seat, minor in sorted(counts.items())
        )
    derived_follow(("ledger.BoxCount",), shoe_id=shoe.pk, shoe_closed=True)  # the reconciliation
    return shoe
