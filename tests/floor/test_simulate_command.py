"""`manage.py simulate`: its options, what it prints, and what it refuses."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from pit.compliance.models import RuleViolation
from pit.shoes.models import Shoe, ShoeStatus


def test_simulate_plays_the_tables_asked_for_and_lists_the_faults_it_made(
    pit_tables, django_capture_on_commit_callbacks
):
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "simulate",
            "--tables",
            "BB2,MD1",
            "--shoes",
            "1",
            "--seed",
            "3",
            "--leave-open",
            "--no-progress",
            "--fault-rate",
            "misreported_winner=0.05",
            stdout=out,
        )
    text = out.getvalue()
    assert "at 2 table(s)" in text and "seed 3, digest " in text
    faults = [line for line in text.splitlines() if line.startswith("  misreported_winner")]
    assert faults and f"Faults injected: {len(faults)}" in text
    assert RuleViolation.objects.filter(code="reported_winner_mismatch").count() == len(faults)
    assert set(Shoe.objects.values_list("table__code", "status")) == {
        ("BB2", ShoeStatus.CLOSED),
        ("BB2", ShoeStatus.DEALING),
        ("MD1", ShoeStatus.CLOSED),
        ("MD1", ShoeStatus.DEALING),
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fault-rate", "wrong_deal=0.1"], "'wrong_deal' is not a fault"),
        (["--tables", "XX9"], "No table XX9"),
        (["--url", "http://127.0.0.1:1"], "--url needs --key"),
    ],
)
def test_simulate_refuses_what_it_cannot_do_and_writes_nothing(pit_tables, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", *args, stdout=StringIO())
    assert not Shoe.objects.exists()
