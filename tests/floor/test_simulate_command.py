"""`manage.py simulate`: its options, what it prints, and what it refuses."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from pit.compliance.models import RuleViolation
from pit.dealers.models import Dealer, DealerRotation
from pit.floor.controls import CONTROL_FAULT_CODES
from pit.floor.management.commands.simulate import Command
from pit.floor.simulator import FAULT_KINDS
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


def test_simulate_keeps_the_controls_and_lists_the_lapses_it_made(pit_tables, django_capture_on_commit_callbacks):
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=False):
        call_command(
            "simulate",
            "--tables",
            "BB1",
            "--days",
            "2",
            "--seed",
            "3",
            "--no-progress",
            "--control-fault-rate",
            "unwatched_decks=1,skipped_slip=1",
            stdout=out,
        )
    lines = out.getvalue().splitlines()
    unwatched = [line for line in lines if line.startswith("  unwatched_decks (surveillance_unacknowledged) at BB1")]
    skipped = [line for line in lines if line.startswith("  skipped_slip (slip_number_gap) at BB1")]
    assert len(unwatched) == Shoe.objects.count() == 2
    assert RuleViolation.objects.filter(code="surveillance_unacknowledged").count() == 2
    assert skipped and RuleViolation.objects.filter(code="slip_number_gap").count() == len(skipped)
    assert f"control lapses injected: {len(unwatched) + len(skipped)}" in out.getvalue()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fault-rate", "wrong_deal=0.1"], "'wrong_deal' is not a fault"),
        (["--tables", "XX9"], "No table XX9"),
        (["--url", "http://127.0.0.1:1"], "--url needs --key"),
        (["--tables", "BB1,MN1", "--dealers", "1"], "--dealers: 1 dealers cannot deal at 2 tables at once"),
        (["--dealers", "-1"], "argument --dealers"),
    ],
)
def test_simulate_refuses_what_it_cannot_do_and_writes_nothing(pit_tables, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", *args, stdout=StringIO())
    assert not Shoe.objects.exists()
    assert not DealerRotation.objects.exists()


@pytest.mark.django_db(transaction=True)  # each write commits, and its checks run then, as in a real run
def test_an_erring_dealer_is_listed_and_found_by_an_eager_run(pit_tables):
    out = StringIO()
    call_command(
        "simulate",
        "--tables",
        "BB2,MD1",
        "--days",
        "2",
        "--seed",
        "5",
        "--eager",
        "--no-progress",
        "--fault-rate",
        "erring_dealer=0.3",
        stdout=out,
    )
    text = out.getvalue()
    [listed] = [line for line in text.splitlines() if line.startswith("  erring_dealer (dealer_error_rate)")]
    dealer = listed.split(" dealer ")[1].split(":")[0]
    # One more dealer than tables by default, each rotation posted; the run judged the dealers as beat does.
    assert set(Dealer.objects.values_list("code", flat=True)) == {"SIM01", "SIM02", "SIM03"}
    # (Yesterday's play is always 14:00 to 16:00, so the erring dealer deals there whatever the time now.)
    flagged = RuleViolation.objects.filter(code="dealer_error_rate").values_list("message", flat=True)
    assert flagged and all(message.startswith(f"Dealer {dealer} made ") for message in flagged)
    mistakes = [line for line in text.splitlines() if line.startswith(("  wrong_payout", "  wrong_draw"))]
    assert mistakes and all(f" dealer {dealer}:" in line for line in mistakes)


def test_help_documents_every_injection():
    text = " ".join(Command().create_parser("manage.py", "simulate").format_help().split())
    for kind in (*FAULT_KINDS, *CONTROL_FAULT_CODES):
        assert f"{kind}=" in text, kind
    assert "--dealers" in text
