"""A coup posted again (same shoe, same number) is a replay only when it is the same in every field:
anything else is a 409 naming each difference, a violation for the pit boss (once per distinct
repost), and nothing of the repost written (issue 11 item 2)."""

import pytest

from pit.compliance.models import RuleViolation
from tests.api.conftest import counts, coup_body, wagers7

pytestmark = pytest.mark.django_db

DEALT = "2026-11-29T21:14:05Z"


def url(shoe, suffix=""):
    return f"/api/v1/shoes/{shoe.pk}/coups/{suffix}"


def _other_wagers(index, **changes):
    wagers = wagers7()
    wagers[index] = {**wagers[index], **changes}
    return wagers


@pytest.mark.parametrize(
    ("repost", "differences"),
    [
        (
            coup_body(wagers=_other_wagers(1, amount="150.00"), dealt_at=DEALT),
            {"wagers[1].amount": ["recorded 100.00, posted 150.00"]},
        ),
        (
            coup_body(wagers=_other_wagers(0, paid="100.00"), dealt_at=DEALT),
            {"wagers[0].paid": ["recorded none, posted 100.00"]},
        ),
        (
            coup_body(reported_winner="banker", dealt_at=DEALT),
            {"reported_winner": ["recorded none, posted banker"]},
        ),
        (
            coup_body(dealt_at="2026-11-29T21:15:05Z"),
            {"dealt_at": ["recorded 2026-11-29T21:14:05+00:00, posted 2026-11-29T21:15:05+00:00"]},
        ),
        (
            coup_body(wagers=wagers7()[:6], dealt_at=DEALT),
            {"wagers": ["seat 8 banker 75.00 was recorded and is not in the repost"]},
        ),
        (
            coup_body(wagers=[*wagers7(), {"seat": 9, "bet": "tie", "amount": "5.00"}], dealt_at=DEALT),
            {"wagers[7]": ["seat 9 tie was not recorded in this coup"]},
        ),
        (
            coup_body(wagers=_other_wagers(2, seat=9), dealt_at=DEALT),
            {
                "wagers[2]": ["seat 9 tie was not recorded in this coup"],
                "wagers": ["seat 3 tie 25.00 was recorded and is not in the repost"],
            },
        ),
    ],
    ids=["amount", "paid", "reported_winner", "dealt_at", "wager_missing", "wager_extra", "wager_moved"],
)
def test_a_repost_that_differs_is_409_naming_each_difference_and_a_violation_once(
    device, shoe, repost, differences, django_capture_on_commit_callbacks
):
    first = device.post(url(shoe), coup_body(dealt_at=DEALT), format="json").json()
    before = counts()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(url(shoe), repost, format="json")
    assert response.status_code == 409, response.content
    body = response.json()
    violation = RuleViolation.objects.get()
    assert body["code"] == "conflict"
    assert body["errors"] == differences
    assert body["details"] == {"coup_id": first["id"], "violation_id": violation.pk}
    assert f"the repost differs in {', '.join(differences)}" in body["message"]
    assert (violation.code, violation.coup_id, violation.severity, violation.found_by) == (
        "coup_repost_differs",
        first["id"],
        "high",
        "coup_recording",
    )
    listed = "; ".join(f"{path}: {', '.join(problems)}" for path, problems in differences.items())
    assert violation.message == (
        f"Coup 1 was posted again with the same cards but other values ({listed}); the coup as first recorded stands."
    )
    assert counts() == {**before, "RuleViolation": before["RuleViolation"] + 1}
    assert callbacks == []
    # The same differing repost again: still 409, still the one violation.
    assert device.post(url(shoe), repost, format="json").status_code == 409
    assert counts() == {**before, "RuleViolation": before["RuleViolation"] + 1}
    # The coup as first recorded stands, the violation shown with it.
    shown = device.get(f"/api/v1/coups/{first['id']}/").json()
    assert shown == {**first, "violations": [{"code": "coup_repost_differs", "message": violation.message}]}


def test_a_true_replay_is_200_existing_with_or_without_its_dealt_time(device, shoe):
    first = device.post(url(shoe), coup_body(dealt_at=DEALT, reported_winner="player"), format="json")
    before = counts()
    for body in (coup_body(dealt_at=DEALT, reported_winner="player"), coup_body(reported_winner="player")):
        again = device.post(url(shoe), body, format="json")
        assert again.status_code == 200
        assert again.json() == first.json()
    # Wagers in another order are the same wagers.
    again = device.post(url(shoe), coup_body(wagers=wagers7()[::-1], reported_winner="player"), format="json")
    assert again.status_code == 200
    assert counts() == before


def test_different_cards_stay_a_coup_conflict_naming_the_hands(device, shoe):
    device.post(url(shoe), coup_body(), format="json")
    response = device.post(url(shoe), coup_body(player=["5H", "KD", "3C"], reported_winner="banker"), format="json")
    assert response.status_code == 409
    assert response.json()["errors"] == {
        "player": ["recorded 5H KD 2C, posted 5H KD 3C"],
        "reported_winner": ["recorded none, posted banker"],
    }
    assert list(RuleViolation.objects.values_list("code", flat=True)) == ["coup_conflict"]


def test_in_a_batch_a_differing_repost_is_a_conflict_with_its_differences_and_the_rest_is_recorded(device, shoe):
    first = device.post(url(shoe), coup_body(1), format="json").json()
    batch = {
        "coups": [
            coup_body(1, wagers=_other_wagers(6, amount="80.00")),
            coup_body(2),
            coup_body(1),
            coup_body(2, reported_winner="player"),
        ]
    }
    response = device.post(url(shoe, "batch/?answer=full"), batch, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["summary"] == {"created": 1, "existing": 1, "conflict": 2, "invalid": 0}
    results = body["results"]
    assert [(r["number"], r["status"], r["errors"]) for r in results] == [
        (1, "conflict", {"wagers[6].amount": ["recorded 75.00, posted 80.00"]}),
        (2, "created", {}),
        (1, "existing", {}),
        (2, "conflict", {"reported_winner": ["recorded none, posted player"]}),
    ]
    assert results[0]["coup"]["wagers"] == first["wagers"]  # the coup as recorded, untouched
    assert sorted(RuleViolation.objects.values_list("code", "coup__number")) == [
        ("coup_repost_differs", 1),
        ("coup_repost_differs", 2),
    ]
