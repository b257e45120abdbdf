"""Writes of the hash chains: linking new fact rows to their shoe's chain, and recording what a
verification found as a violation."""

from django.apps import apps
from django.db import transaction

from pit import game
from pit.compliance.services import violation_record
from pit.records.selectors import chains_verify, shoe_ids_for_days

RECORDS_CHECK = "records_verify"


def records_verify(*, first_day, last_day):
    """Verify the chains of the shoes of these gaming days; each break is recorded once as a
    `record_chain_broken` violation of its shoe (safe to run twice). Returns the Verification."""
    Shoe = apps.get_model("shoes", "Shoe")  # noqa: N806 - the shoes app's models hash their rows through this app
    result = chains_verify(shoe_ids=shoe_ids_for_days(first_day=first_day, last_day=last_day))
    shoes = Shoe.objects.select_related("table").in_bulk([found.shoe_id for found in result.breaks])
    for found in result.breaks:
        shoe = shoes[found.shoe_id]
        last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
        with transaction.atomic():
            violation_record(
                finding=game.violation(
                    "record_chain_broken",
                    f"The record of {shoe} was altered: {found}. The shoe is quarantined: nothing is derived from "
                    "it until a person resolves or dismisses this violation.",
                ),
                fingerprint=f"record_chain:shoe{shoe.pk}:{found.kind}{found.row_id}:{found.seq}",
                table=shoe.table,
                shoe=shoe,
                gaming_day=last_coup.gaming_day if last_coup else last_day,
                found_by=RECORDS_CHECK,
            )
    return result
