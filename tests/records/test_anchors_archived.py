"""Verification of a shoe some of whose chain positions were archived with a month: the runs the
archive's manifest kept stand for them (pit.records.selectors.archived_runs), on either database."""

import pytest
from django.apps import apps

from pit.archive.models import ArchiveAction, MonthArchive
from pit.records.selectors import chains_verify
from tests.records.test_anchors import row_at
from tests.records.test_chain import DAY, tamper

pytestmark = pytest.mark.django_db


def archive_positions(shoe, first: int, last: int, *, kept_hash: str | None = None) -> None:
    """Take positions first..last of the shoe's chain out as an archive would, and record the run."""
    last_hash = kept_hash or row_at(shoe, last)[1][3]
    for seq in range(first, last + 1):
        spec, row = row_at(shoe, seq)
        tamper(f"DELETE FROM {apps.get_model(spec.label)._meta.db_table} WHERE id = %s", [row[1]])
    MonthArchive.objects.create(
        month=DAY.replace(day=1),
        action=ArchiveAction.DETACHED,
        directory="/nowhere",
        manifest={"tables": {}, "chains": {str(shoe.pk): {"runs": [[first, last, last_hash]], "day": str(DAY)}}},
        operator="tester",
    )


def test_a_run_archived_in_the_middle_of_a_chain_stands_for_its_positions(played_shoe):
    archive_positions(played_shoe, 6, 7)  # the two accruals of the first coups
    result = chains_verify(shoe_ids=[played_shoe.pk])
    assert (result.ok, result.rows, result.archived) == (True, 15, {played_shoe.pk: [f"{DAY:%Y-%m}"]})


def test_a_run_whose_kept_hash_is_not_what_the_next_row_chains_from_is_a_break(played_shoe):
    archive_positions(played_shoe, 6, 7, kept_hash="0" * 64)
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert (found.seq, found.kind) == (8, "coup")
    assert "is not the hash of its fields after the row before it" in found.problem


def test_an_archived_tail_counts_toward_the_chain_head(played_shoe):
    archive_positions(played_shoe, 15, 17)
    result = chains_verify(shoe_ids=[played_shoe.pk])
    assert (result.ok, result.rows) == (True, 14)
