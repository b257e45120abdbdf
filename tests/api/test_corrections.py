"""Corrections and voids over the API: a device of the coup's table or a pit boss, a required
reason, 400 naming the field with nothing written, the same correction twice is one, every POST
idempotent by key; a shoe's supplementary reconciliations."""

from decimal import Decimal

import pytest

from pit.compliance.models import RuleViolation
from pit.shoes.models import CoupCorrection
from pit.shoes.services import shoe_close
from tests import factories
from tests.api.conftest import counts
from tests.factories import wager
from tests.shoes import hands

pytestmark = pytest.mark.django_db

BANKER = [{"seat": 1, "bet": "banker", "amount": "200.00"}, {"seat": 2, "bet": "player", "amount": "50.00"}]


@pytest.fixture
def coup(shoe, django_capture_on_commit_callbacks):
    """Banker wins with a natural: seat 1's Banker 100.00 (misread: it was 200.00), seat 2 Player 50.00."""
    with django_capture_on_commit_callbacks(execute=True):
        return factories.coup(
            shoe, 1, *hands.BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(2, "player", "50")]
        )


def corrections_url(coup):
    return f"/api/v1/coups/{coup.pk}/corrections/"


def void_url(coup):
    return f"/api/v1/coups/{coup.pk}/void/"


def test_a_device_corrects_a_misread_stake(device, coup, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = device.post(corrections_url(coup), {"wagers": BANKER, "reason": "Misread stake"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    correction = CoupCorrection.objects.get()
    assert {key: body[key] for key in ("id", "coup", "sequence", "kind", "reason", "recorded_by")} == {
        "id": correction.pk,
        "coup": coup.pk,
        "sequence": 1,
        "kind": "correct",
        "reason": "Misread stake",
        "recorded_by": "device shoe reader @ BB1",
    }
    assert body["wagers"] == [
        {
            "seat": 1,
            "bet": "banker",
            "amount": "200.00",
            "paid": "200.00",
            "result": "win",
            "payout": "200.00",
            "commission": "10.00",
        },
        {
            "seat": 2,
            "bet": "player",
            "amount": "50.00",
            "paid": "0.00",
            "result": "lose",
            "payout": "0.00",
            "commission": "0.00",
        },
    ]
    assert body["standing"]["wagers"] == body["wagers"]
    # The coup reads as it stands everywhere the API shows it.
    assert device.get(f"/api/v1/coups/{coup.pk}/").json()["wagers"] == body["wagers"]
    listed = device.get(corrections_url(coup)).json()
    assert [(item["id"], item["kind"], item["standing"]) for item in listed] == [(correction.pk, "correct", None)]

    again = device.post(corrections_url(coup), {"wagers": BANKER, "reason": "Misread stake"}, format="json")
    assert (again.status_code, again.json()["id"]) == (200, correction.pk)
    assert CoupCorrection.objects.count() == 1


def test_a_stake_corrected_without_its_paid_figure_is_paid_what_it_owes(
    device, coup, django_capture_on_commit_callbacks
):
    """The table pays the stake it sees: a corrected stake sent without `paid` keeps what the paytable
    owes on it, so the correction raises no payout_mismatch; a paid figure given is stored as given."""
    wagers = [
        {"seat": 1, "bet": "banker", "amount": "300.00"},
        {"seat": 2, "bet": "player", "amount": "50.00", "paid": "10.00"},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = device.post(corrections_url(coup), {"wagers": wagers, "reason": "Misread stake"}, format="json")
    assert response.status_code == 201, response.json()
    assert [(w["amount"], w["payout"], w["paid"]) for w in response.json()["wagers"]] == [
        ("300.00", "300.00", "300.00"),
        ("50.00", "0.00", "10.00"),
    ]
    holding = RuleViolation.objects.filter(coup=coup, cleared_at__isnull=True)
    assert [(v.code, v.wager.seat) for v in holding] == [("payout_mismatch", 2)]


def test_a_pit_boss_voids_a_coup_once(pit_boss, coup):
    response = pit_boss.post(void_url(coup), {"reason": "Misdeal"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["kind"], body["wagers"], body["standing"]["wagers"], body["recorded_by"]) == (
        "void",
        [],
        [],
        "user boss",
    )
    again = pit_boss.post(void_url(coup), {"reason": "Misdeal"}, format="json")
    assert (again.status_code, again.json()["id"]) == (200, body["id"])


def test_an_idempotency_key_replays_the_first_answer(device, coup):
    headers = {"Idempotency-Key": "void-1"}
    first = device.post(void_url(coup), {"reason": "Misdeal"}, format="json", headers=headers)
    replay = device.post(void_url(coup), {"reason": "Misdeal"}, format="json", headers=headers)
    assert (first.status_code, replay.status_code, replay.headers["Idempotent-Replayed"]) == (201, 201, "true")
    assert replay.json() == first.json()
    assert CoupCorrection.objects.count() == 1


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("corrections", {"wagers": BANKER}, "reason"),
        ("corrections", {"wagers": BANKER, "reason": "   "}, "reason"),
        ("corrections", {"reason": "x"}, "wagers"),
        ("corrections", {"wagers": [{"seat": 1, "bet": "banker", "amount": 200}], "reason": "x"}, "wagers[0].amount"),
        (
            "corrections",
            {"wagers": [{"seat": 4, "bet": "banker", "amount": "200.00"}], "reason": "x"},
            "wagers[0].seat",
        ),
        ("corrections", {"wagers": BANKER, "reason": "x", "note": "y"}, "note"),
        (
            "corrections",
            {
                "wagers": [
                    {"seat": 1, "bet": "banker", "amount": "100.00"},
                    {"seat": 2, "bet": "player", "amount": "50.00"},
                ],
                "reason": "x",
            },
            "wagers",
        ),
        ("void", {}, "reason"),
        ("void", {"reason": ""}, "reason"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(device, coup, path, body, field):
    before = counts()
    response = device.post(f"/api/v1/coups/{coup.pk}/{path}/", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["errors"]
    assert counts() == before
    assert not CoupCorrection.objects.exists()


def test_a_device_corrects_only_its_own_tables_coups(other_device, accountant, coup):
    for client in (other_device, accountant):
        assert client.post(void_url(coup), {"reason": "Misdeal"}, format="json").status_code == 403
        assert client.post(corrections_url(coup), {"wagers": BANKER, "reason": "x"}, format="json").status_code == 403
    assert other_device.get(corrections_url(coup)).status_code == 403
    assert not CoupCorrection.objects.exists()
    assert other_device.post("/api/v1/coups/999999/void/", {"reason": "x"}, format="json").status_code == 404


def test_a_shoes_supplements(device, coup, django_capture_on_commit_callbacks):
    shoe = coup.shoe
    url = f"/api/v1/shoes/{shoe.pk}/reconciliation/supplements/"
    assert device.get(url).status_code == 404  # not reconciled yet
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("10.00"))])
    assert device.get(url).json() == []
    with django_capture_on_commit_callbacks(execute=True):
        response = device.post(corrections_url(coup), {"wagers": BANKER, "reason": "Misread"}, format="json")
    assert response.status_code == 201
    (supplement,) = device.get(url).json()
    assert {key: value for key, value in supplement.items() if key != "recorded_at"} == {
        "sequence": 1,
        "status": "balanced",
        "currency": "USD",
        "change": "5.00",
        "expected": "10.00",
        "counted": "10.00",
        "variance": "0.00",
        "seats": [
            {
                "seat": 1,
                "change": "5.00",
                "accrued": "10.00",
                "collected_earlier": "0.00",
                "expected": "10.00",
                "counted": "10.00",
                "variance": "0.00",
            }
        ],
    }
