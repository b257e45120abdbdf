"""Recording coups through the API: evaluation, settlement and violations in the answer; replays;
conflicts; every malformed input a 400 naming the field with nothing written; batches."""

import pytest

from pit.compliance.models import RuleViolation
from pit.shoes.models import Coup, Wager
from tests.api.conftest import counts, coup_body, wagers7

pytestmark = pytest.mark.django_db


def url(shoe, suffix=""):
    return f"/api/v1/shoes/{shoe.pk}/coups/{suffix}"


def test_a_coup_is_recorded_with_its_evaluation_settlement_and_writer(device, shoe, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(
            url(shoe), coup_body(dealt_at="2026-11-29T21:14:05Z", reported_winner="player"), format="json"
        )
    assert response.status_code == 201
    body = response.json()
    coup = Coup.objects.get()
    assert body == {
        "id": coup.pk,
        "shoe": shoe.pk,
        "number": 1,
        "dealt_at": "2026-11-29T21:14:05Z",
        "gaming_day": "2026-11-29",
        "player": ["5H", "KD", "2C"],
        "banker": ["6S", "TD"],
        "player_total": 7,
        "banker_total": 6,
        "winner": "player",
        "natural": False,
        "player_pair": False,
        "banker_pair": False,
        "reported_winner": "player",
        "paytable": shoe.table.paytable_id,
        "recorded_by": "device shoe reader @ BB1",
        "wagers": [
            {
                "seat": 1,
                "bet": "player",
                "amount": "100.00",
                "paid": None,
                "result": "win",
                "payout": "100.00",
                "commission": "0.00",
            },
            {
                "seat": 2,
                "bet": "banker",
                "amount": "100.00",
                "paid": None,
                "result": "lose",
                "payout": "0.00",
                "commission": "0.00",
            },
            {
                "seat": 3,
                "bet": "tie",
                "amount": "25.00",
                "paid": None,
                "result": "lose",
                "payout": "0.00",
                "commission": "0.00",
            },
            {
                "seat": 5,
                "bet": "player",
                "amount": "50.00",
                "paid": None,
                "result": "win",
                "payout": "50.00",
                "commission": "0.00",
            },
            {
                "seat": 6,
                "bet": "banker",
                "amount": "250.00",
                "paid": None,
                "result": "lose",
                "payout": "0.00",
                "commission": "0.00",
            },
            {
                "seat": 7,
                "bet": "player_pair",
                "amount": "10.00",
                "paid": None,
                "result": "lose",
                "payout": "0.00",
                "commission": "0.00",
            },
            {
                "seat": 8,
                "bet": "banker",
                "amount": "75.00",
                "paid": None,
                "result": "lose",
                "payout": "0.00",
                "commission": "0.00",
            },
        ],
        "violations": [],
    }
    assert coup.recorded_by_device == device.device and coup.recorded_by_user is None
    assert Wager.objects.filter(coup=coup).count() == 7
    # The rule checks; the win re-check of its table-day, the refresh of rollups, of the table-day's
    # ratings and of the progressive meters a coup of a past gaming day owes (pit.core.derived).
    assert len(callbacks) == 5


def test_a_banker_win_owes_commission_and_a_wrong_draw_is_recorded_and_flagged(
    device, shoe, django_capture_on_commit_callbacks
):
    # Banker 7 wins; then a coup where Banker (5) failed to draw on Player's third card 4: stored, flagged.
    banker_win = coup_body(
        1,
        ["2H", "3D", "KC"],
        ["7S", "TD"],
        wagers=[{"seat": 2, "bet": "banker", "amount": "100.00", "paid": "100.00"}],
    )
    body = device.post(url(shoe), banker_win, format="json").json()
    assert body["winner"] == "banker" and body["banker_total"] == 7 and body["player_total"] == 5
    assert body["wagers"] == [
        {
            "seat": 2,
            "bet": "banker",
            "amount": "100.00",
            "paid": "100.00",
            "result": "win",
            "payout": "100.00",
            "commission": "5.00",
        }
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = device.post(url(shoe), coup_body(2, ["AH", "AD", "4C"], ["2S", "3H"], wagers=[]), format="json")
    assert response.status_code == 201
    assert [v["code"] for v in response.json()["violations"]] == ["banker_missing_card"]
    assert RuleViolation.objects.get().code == "banker_missing_card"
    assert Coup.objects.count() == 2


def test_the_same_coup_again_is_200_and_writes_nothing(device, shoe):
    first = device.post(url(shoe), coup_body(), format="json")
    before = counts()
    again = device.post(url(shoe), coup_body(), format="json")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert counts() == before


def test_the_same_number_with_other_cards_is_409_and_a_violation(device, shoe, django_capture_on_commit_callbacks):
    first = device.post(url(shoe), coup_body(), format="json").json()
    before = counts()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(url(shoe), coup_body(player=["5H", "KD", "3C"]), format="json")
    assert response.status_code == 409
    body = response.json()
    violation = RuleViolation.objects.get()
    assert body["code"] == "conflict"
    assert body["details"] == {"coup_id": first["id"], "violation_id": violation.pk}
    assert "recorded with other cards (player 5H KD 2C, banker 6S TD)" in body["message"]
    assert violation.coup_id == first["id"]
    assert counts() == {**before, "RuleViolation": before["RuleViolation"] + 1}
    assert callbacks == []


def _assert_400(device, shoe, body, field, message_part, content_type=None):
    before = counts()
    if content_type:
        response = device.generic("POST", url(shoe), body, content_type=content_type)
    else:
        response = device.post(url(shoe), body, format="json")
    assert response.status_code == 400, response.content
    payload = response.json()
    assert payload["status"] == 400 and payload["code"] in ("invalid", "parse_error")
    assert field in payload["errors"], payload
    assert any(message_part in message for message in payload["errors"][field]), payload
    assert counts() == before


def _with_wager(index_field, value):
    wagers = wagers7()
    wagers[2][index_field] = value
    return coup_body(wagers=wagers)


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (_with_wager("amount", 25.5), "wagers[2].amount", "JSON numbers are not accepted"),
        (_with_wager("amount", 25), "wagers[2].amount", "JSON numbers are not accepted"),
        (_with_wager("amount", "-25.00"), "wagers[2].amount", "no sign"),
        (_with_wager("amount", "0.00"), "wagers[2].amount", "must be more than zero"),
        (_with_wager("amount", "25.001"), "wagers[2].amount", "more decimals than USD allows"),
        (_with_wager("amount", "1e3"), "wagers[2].amount", "is not a decimal amount"),
        (_with_wager("paid", "-1.00"), "wagers[2].paid", "no sign"),
        (_with_wager("seat", 4), "wagers[2].seat", "4 is not a seat at table BB1"),
        (_with_wager("bet", "dragon_7"), "wagers[2].bet", "'dragon_7' is not a bet at table BB1"),
        (_with_wager("surprise", 1), "wagers[2].surprise", "Unknown field."),
        (coup_body(player=["5H", "KX"]), "player", "'KX' is not a card code"),
        (coup_body(banker=["6S"]), "banker", "at least 2"),
        (coup_body(banker=["6S", "TD", "2C", "3C"]), "banker", "no more than 3"),
        (coup_body(number=0), "number", "greater than or equal to 1"),
        (coup_body(reported_winner="dragon"), "reported_winner", "is not one of player, banker, tie"),
        (coup_body(color="red"), "color", "Unknown field."),
        (
            coup_body(wagers=[{"seat": 1, "bet": "player", "amount": "10.00"}] * 2),
            "wagers[1].bet",
            "two player wagers",
        ),
        ([1, 2], "body", "Expected a dictionary"),
    ],
)
def test_malformed_coups_are_400_naming_the_field_and_write_nothing(device, shoe, body, field, message):
    _assert_400(device, shoe, body, field, message)


def test_a_body_that_is_not_json_is_400_and_another_content_type_415(device, shoe):
    _assert_400(device, shoe, "{not json", "body", "JSON parse error", content_type="application/json")
    before = counts()
    response = device.generic("POST", url(shoe), "number=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"
    assert counts() == before


def test_unknown_shoe_is_404_in_the_envelope(device):
    response = device.post("/api/v1/shoes/999999/coups/", coup_body(), format="json")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "message": "There is no shoe 999999.",
        "errors": {},
        "details": {},
    }


def test_coups_list_is_paginated_in_number_order_and_a_coup_reads_alone(device, shoe, pit_boss):
    for number in (3, 1, 2):
        assert device.post(url(shoe), coup_body(number, wagers=[]), format="json").status_code == 201
    page = device.get(url(shoe) + "?page_size=2").json()
    assert page["count"] == 3 and [c["number"] for c in page["results"]] == [1, 2]
    assert [c["number"] for c in device.get(page["next"]).json()["results"]] == [3]
    coup = Coup.objects.get(number=2)
    assert pit_boss.get(f"/api/v1/coups/{coup.pk}/").json()["number"] == 2
    assert pit_boss.get("/api/v1/coups/999999/").status_code == 404


def test_a_device_reads_only_its_own_tables_coups(device, other_device, shoe):
    coup = device.post(url(shoe), coup_body(), format="json").json()
    assert other_device.get(f"/api/v1/coups/{coup['id']}/").status_code == 403


def test_a_batch_records_each_coup_on_its_own(device, shoe, django_capture_on_commit_callbacks):
    device.post(url(shoe), coup_body(1), format="json")
    before = counts()
    batch = {
        "coups": [
            coup_body(2),
            coup_body(1),  # a replay
            coup_body(1, player=["5H", "KD", "3C"]),  # a conflict
            coup_body(3, wagers=[{"seat": 4, "bet": "player", "amount": "10.00"}]),  # unknown seat
            coup_body(4, wagers=[{"seat": 1, "bet": "player", "amount": 10.5}]),  # float money
            coup_body(5, banker=["6S", "TD", "ZZ"]),
        ]
    }
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(url(shoe, "batch/?answer=full"), batch, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["summary"] == {"created": 1, "existing": 1, "conflict": 1, "invalid": 3}
    assert [(r["index"], r["number"], r["status"]) for r in body["results"]] == [
        (0, 2, "created"),
        (1, 1, "existing"),
        (2, 1, "conflict"),
        (3, 3, "invalid"),
        (4, 4, "invalid"),
        (5, 5, "invalid"),
    ]
    results = body["results"]
    assert results[0]["coup"]["wagers"][0] == {
        "seat": 1,
        "bet": "player",
        "amount": "100.00",
        "paid": None,
        "result": "win",
        "payout": "100.00",
        "commission": "0.00",
    }
    assert results[1]["coup"]["number"] == 1 and results[1]["errors"] == {}
    assert results[2]["errors"] == {"player": ["recorded 5H KD 2C, posted 5H KD 3C"]}
    assert results[3]["errors"] == {
        "wagers[0].seat": ["4 is not a seat at table BB1 (seats 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16)."]
    }
    assert results[3]["coup"] is None
    assert list(results[4]["errors"]) == ["wagers[0].amount"]
    assert list(results[5]["errors"]) == ["banker"]
    after = counts()
    assert after["Coup"] == before["Coup"] + 1 and after["Wager"] == before["Wager"] + 7
    assert after["RuleViolation"] == before["RuleViolation"] + 1
    assert len(callbacks) == 2  # the check of the coups, the refresh of the table-day's ratings


@pytest.mark.parametrize("body", [{}, {"coups": []}, {"coups": {}}, {"coups": [coup_body()], "extra": 1}, [1]])
def test_a_malformed_batch_is_400_and_writes_nothing(device, shoe, body):
    before = counts()
    response = device.post(url(shoe, "batch/"), body, format="json")
    assert response.status_code == 400
    assert "coups" in response.json()["errors"]
    assert counts() == before


def test_sixty_coups_with_seven_wagers_each_in_one_batch(device, shoe):
    table = shoe.table
    assert table.seats[:7] == [1, 2, 3, 5, 6, 7, 8]
    coups = [coup_body(n) for n in range(1, 61)]
    response = device.post(url(shoe, "batch/"), {"coups": coups}, format="json")
    assert response.json()["summary"] == {"created": 60, "existing": 0, "conflict": 0, "invalid": 0}
    assert Wager.objects.count() == 420
    shoe.refresh_from_db()
    assert shoe.coups_recorded == 60 and shoe.cards_dealt == 300


def test_lists_read_a_fixed_number_of_queries(device, pit_boss, shoe, django_assert_num_queries):
    from pit.compliance.services import violation_record
    from pit.game import violation

    for number in range(1, 4):
        device.post(url(shoe), coup_body(number), format="json")
    # device key, shoe, count, page of coups, their wagers, their violations
    with django_assert_num_queries(6):
        assert len(device.get(url(shoe)).json()["results"]) == 3
    for number in range(4, 10):
        device.post(url(shoe), coup_body(number), format="json")
    with django_assert_num_queries(6):
        assert len(device.get(url(shoe)).json()["results"]) == 9
    for index in range(5):
        violation_record(
            finding=violation("payout_mismatch", "paid 10"),
            fingerprint=f"v{index}",
            table=shoe.table,
            gaming_day=shoe.shuffled_at.date(),
            found_by="test",
        )
    # token, user's permissions (groups), count, page
    with django_assert_num_queries(5):
        assert pit_boss.get("/api/v1/violations/").json()["count"] == 5


@pytest.mark.postgres
def test_a_coup_post_takes_a_fixed_number_of_round_trips(device, shoe):
    """The floor posts every coup with an Idempotency-Key: the path is pinned statement by statement
    so that it cannot grow unnoticed (issue 16: it took 28 statements, 2 commits and 2 more reads)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    device.post(url(shoe), coup_body(1), format="json", HTTP_IDEMPOTENCY_KEY="first")
    # Banker 8 wins on a natural: seat 2's and seat 6's banker wagers owe commission into the box.
    body = coup_body(2, player=["2H", "3D"], banker=["8C", "KH"], reported_winner="banker")
    with CaptureQueriesContext(connection) as captured:
        response = device.post(url(shoe), body, format="json", HTTP_IDEMPOTENCY_KEY="second")
    assert response.status_code == 201
    assert response.json()["wagers"][1]["commission"] == "5.00"
    statements = [
        query["sql"].split("; ", 1)[-1].split(" ", 1)[0]
        if query["sql"].startswith("SELECT set_config")
        else query["sql"].split(" ", 1)[0]
        for query in captured.captured_queries
    ]
    # The test's own transaction turns the request's BEGIN and COMMIT into SAVEPOINT and RELEASE.
    assert statements == [
        "SELECT",  # the device, by its key
        "SAVEPOINT",
        "INSERT",  # BEGIN; the Idempotency-Key taken
        "SELECT",  # shoe and table locked, paytable share-locked
        "SELECT",  # then the chain head locked; the number not recorded yet; the coup's and wagers' ids
        # The gaming day's lock, shared (a close takes it exclusively: pit.accounting.locks), then
        # whether the day is closed, read under that lock (pit.core.daylock): two statements sent together.
        "SELECT",
        # One statement: the coup, its wagers, the commission owed, the chain head, the shoe's
        # counters and the outbox row of the rule checks.
        "WITH",
        "UPDATE",  # the answer stored on the key
        "RELEASE",  # COMMIT; the task is sent after the answer has gone out
    ], [query["sql"][:120] for query in captured.captured_queries]


def test_a_batch_answers_each_item_with_its_status_id_and_errors_only(device, shoe, django_capture_on_commit_callbacks):
    first = device.post(url(shoe), coup_body(1), format="json").json()
    batch = {
        "coups": [
            coup_body(2),
            coup_body(1),  # a replay
            coup_body(1, player=["5H", "KD", "3C"]),  # a conflict
            coup_body(3, wagers=[{"seat": 4, "bet": "player", "amount": "10.00"}]),  # unknown seat
        ]
    }
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(url(shoe, "batch/"), batch, format="json")
    second = Coup.objects.get(shoe=shoe, number=2)
    assert response.status_code == 200
    assert response.json() == {
        "shoe": shoe.pk,
        "summary": {"created": 1, "existing": 1, "conflict": 1, "invalid": 1},
        "results": [
            {"index": 0, "number": 2, "status": "created", "id": second.pk, "errors": {}},
            {"index": 1, "number": 1, "status": "existing", "id": first["id"], "errors": {}},
            {
                "index": 2,
                "number": 1,
                "status": "conflict",
                "id": first["id"],
                "errors": {"player": ["recorded 5H KD 2C, posted 5H KD 3C"]},
            },
            {
                "index": 3,
                "number": 3,
                "status": "invalid",
                "id": None,
                "errors": {
                    "wagers[0].seat": [
                        "4 is not a seat at table BB1 (seats 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16)."
                    ]
                },
            },
        ],
    }
    assert sorted(Wager.objects.filter(coup=second).values_list("seat", "bet", "amount_minor", "payout_minor")) == [
        (1, "player", 10000, 10000),
        (2, "banker", 10000, 0),
        (3, "tie", 2500, 0),
        (5, "player", 5000, 5000),
        (6, "banker", 25000, 0),
        (7, "player_pair", 1000, 0),
        (8, "banker", 7500, 0),
    ]
    assert len(callbacks) == 2  # the check of the coups, the refresh of the table-day's ratings


def test_with_answer_full_each_item_carries_its_coup_as_get_shows_it(device, shoe):
    first = device.post(url(shoe), coup_body(1), format="json").json()
    batch = {"coups": [coup_body(2, reported_winner="banker"), coup_body(1), coup_body(3, player=["5H"])]}
    response = device.post(url(shoe, "batch/?answer=full"), batch, format="json")
    assert response.status_code == 200
    results = response.json()["results"]
    second = Coup.objects.get(shoe=shoe, number=2)
    assert [(r["index"], r["status"], r["id"]) for r in results] == [
        (0, "created", second.pk),
        (1, "existing", first["id"]),
        (2, "invalid", None),
    ]
    assert results[0]["coup"] == device.get(f"/api/v1/coups/{second.pk}/").json()
    assert [v["code"] for v in results[0]["coup"]["violations"]] == ["reported_winner_mismatch"]
    assert results[1]["coup"] == first
    assert results[2]["coup"] is None


@pytest.mark.parametrize("answer", ["everything", "FULL", ""])
def test_an_unknown_answer_form_is_a_400_naming_it_and_writes_nothing(device, shoe, answer):
    before = counts()
    response = device.post(url(shoe, f"batch/?answer={answer}"), {"coups": [coup_body(1)]}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"answer": [f"{answer!r} is not an answer form: brief (the default) or full."]}
    assert counts() == before
