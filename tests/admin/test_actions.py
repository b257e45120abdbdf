"""Admin actions go through the services with the acting user; a review demands a note (an
intermediate page), and a refusal comes back as a message, never a server error."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.urls import reverse

from pit.compliance.models import RuleViolation, ViolationStatus
from pit.core.admin_site import money_html
from pit.ledger.models import Reconciliation, ReconciliationStatus
from pit.shoes.models import CoupCorrection
from pit.shoes.selectors import wagers_standing
from pit.shoes.services import shoe_close
from pit.tables.models import Table, TableEvent, TableEventKind, TableStatus

VIOLATIONS = reverse("admin:compliance_ruleviolation_changelist")


def messages_of(response):
    return [(m.level_tag, m.message) for m in get_messages(response.wsgi_request)]


def act(client, url, action, objects, **data):
    return client.post(url, {"action": action, ACTION_CHECKBOX_NAME: [o.pk for o in objects], **data})


# ---------------------------------------------------------------------------------------- tables


def test_a_table_with_a_shoe_dealing_is_not_closed_and_the_message_names_the_shoe(client, pit, pit_boss):
    client.force_login(pit_boss)
    response = act(client, reverse("admin:tables_table_changelist"), "close_tables", [pit.bb1, pit.mb1])
    assert response.status_code == 302
    assert messages_of(response) == [
        (
            "error",
            f"BB1: Table BB1 cannot close while shoe 2 (id {pit.shoe2.pk}) is still dealing; close the shoe "
            "with its commission box count first.",
        ),
        (
            "error",
            f"MB1: Table MB1 cannot close while shoe 1 (id {pit.shoe3.pk}) is still dealing; close the shoe "
            "with its commission box count first.",
        ),
    ]
    assert set(Table.objects.values_list("code", "status")) == {("BB1", "open"), ("MB1", "open"), ("MB2", "closed")}
    assert not TableEvent.objects.filter(kind=TableEventKind.CLOSED).exists()


def test_close_and_open_tables_record_events_by_the_user(client, pit, pit_boss):
    client.force_login(pit_boss)
    url = reverse("admin:tables_table_changelist")
    shoe_close(shoe=pit.shoe2, box_counts=[])
    shoe_close(shoe=pit.shoe3, box_counts=[])
    response = act(client, url, "close_tables", [pit.bb1, pit.mb1])
    assert response.status_code == 302
    assert messages_of(response) == [("success", "2 tables closed.")]
    assert set(Table.objects.values_list("code", "status")) == {
        ("BB1", "closed"),
        ("MB1", "closed"),
        ("MB2", "closed"),
    }
    events = TableEvent.objects.filter(kind=TableEventKind.CLOSED).order_by("table__code")
    assert [(e.table.code, e.recorded_by_user) for e in events] == [("BB1", pit_boss), ("MB1", pit_boss)]

    response = act(client, url, "open_tables", [pit.bb1])
    assert Table.objects.get(code="BB1").status == TableStatus.OPEN
    assert TableEvent.objects.filter(kind=TableEventKind.OPENED, recorded_by_user=pit_boss).count() == 1


def test_auditor_cannot_open_or_close_tables(client, pit, auditor):
    client.force_login(auditor)
    response = act(client, reverse("admin:tables_table_changelist"), "close_tables", [pit.bb1])
    assert Table.objects.get(code="BB1").status == TableStatus.OPEN
    assert not TableEvent.objects.filter(kind=TableEventKind.CLOSED).exists()
    assert response.status_code == 200  # the list again, with "no action selected"


# ---------------------------------------------------------------------------------------- violations


def test_review_action_asks_for_a_note_first(client, pit, pit_boss, violation):
    client.force_login(pit_boss)
    response = act(client, VIOLATIONS, "acknowledge_with_note", [violation])
    assert response.status_code == 200
    assert response.templates[0].name == "admin/pit/note_action.html"
    assert str(violation) in response.content.decode()
    violation.refresh_from_db()
    assert violation.status == ViolationStatus.OPEN


def test_review_action_refuses_a_blank_note(client, pit, pit_boss, violation):
    client.force_login(pit_boss)
    response = act(client, VIOLATIONS, "acknowledge_with_note", [violation], post="yes", note="   ")
    assert response.status_code == 200
    assert response.context["form"].errors == {"note": ["This field is required."]}
    violation.refresh_from_db()
    assert (violation.status, violation.status_note, violation.status_changed_by) == ("open", "", None)


def test_review_action_with_a_note(client, pit, pit_boss):
    client.force_login(pit_boss)
    chosen = list(RuleViolation.objects.filter(table=pit.mb1).order_by("pk")[:3])
    response = act(client, VIOLATIONS, "resolve_with_note", chosen, post="yes", note=" Limits sign fixed. ")
    assert response.status_code == 302
    assert messages_of(response) == [("success", "3 rule violations resolved.")]
    for violation in chosen:
        violation.refresh_from_db()
        assert (violation.status, violation.status_note, violation.status_changed_by) == (
            ViolationStatus.RESOLVED,
            "Limits sign fixed.",
            pit_boss,
        )
    assert RuleViolation.objects.filter(status=ViolationStatus.OPEN).count() == 6


def test_review_action_refused_by_the_service_is_a_message(client, pit, pit_boss, violation):
    from pit.compliance.services import violation_dismiss

    violation_dismiss(violation=violation, user=pit_boss, note="a false alarm")
    other = RuleViolation.objects.filter(status=ViolationStatus.OPEN).order_by("pk").first()
    client.force_login(pit_boss)
    response = act(client, VIOLATIONS, "acknowledge_with_note", [violation, other], post="yes", note="seen")
    assert response.status_code == 302
    assert messages_of(response) == [
        ("error", f"{violation}: A violation that is dismissed cannot be marked acknowledged."),
        ("success", "1 rule violation acknowledged."),
    ]
    violation.refresh_from_db()
    assert (violation.status, violation.status_note) == (ViolationStatus.DISMISSED, "a false alarm")


def test_auditor_has_no_review_action(client, pit, auditor, violation):
    client.force_login(auditor)
    response = client.get(VIOLATIONS)
    assert response.context["action_form"] is None
    act(client, VIOLATIONS, "acknowledge_with_note", [violation], post="yes", note="seen")
    violation.refresh_from_db()
    assert violation.status == ViolationStatus.OPEN


# ---------------------------------------------------------------------------------------- the review form


def review_url(violation):
    return reverse("admin:compliance_ruleviolation_review", args=[violation.pk])


def test_violation_page_offers_the_review(client, pit, pit_boss, violation):
    client.force_login(pit_boss)
    response = client.get(reverse("admin:compliance_ruleviolation_change", args=[violation.pk]))
    html = response.content.decode()
    assert f'action="{review_url(violation)}"' in html
    assert [key for key, _ in response.context["review_choices"]] == ["acknowledge", "resolve", "dismiss"]
    assert 'name="_save"' not in html
    assert reverse("admin:shoes_coup_change", args=[violation.coup_id]) in html
    assert reverse("admin:shoes_shoe_change", args=[violation.shoe_id]) in html
    assert reverse("admin:tables_table_change", args=[violation.table_id]) in html


@pytest.mark.parametrize(
    ("decision", "status"),
    [("acknowledge", "acknowledged"), ("resolve", "resolved"), ("dismiss", "dismissed")],
)
def test_review_form(client, pit, pit_boss, violation, decision, status):
    client.force_login(pit_boss)
    response = client.post(review_url(violation), {"decision": decision, "note": "Checked the camera."})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:compliance_ruleviolation_change", args=[violation.pk])
    assert messages_of(response) == [("success", f"{violation} {status}.")]
    violation.refresh_from_db()
    assert (violation.status, violation.status_note, violation.status_changed_by) == (
        status,
        "Checked the camera.",
        pit_boss,
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"decision": "acknowledge", "note": ""}, "Not reviewed: note: This field is required."),
        (
            {"decision": "approve", "note": "x"},
            "Not reviewed: decision: Select a valid choice. approve is not one of the available choices.",
        ),
    ],
)
def test_review_form_refuses_bad_input(client, pit, pit_boss, violation, data, message):
    client.force_login(pit_boss)
    response = client.post(review_url(violation), data)
    assert response.status_code == 302
    assert messages_of(response) == [("error", message)]
    violation.refresh_from_db()
    assert (violation.status, violation.status_changed_by) == ("open", None)


def test_review_form_refused_transition_is_a_message(client, pit, pit_boss, violation):
    client.force_login(pit_boss)
    client.post(review_url(violation), {"decision": "resolve", "note": "fixed"})
    response = client.post(review_url(violation), {"decision": "acknowledge", "note": "again"})
    assert messages_of(response)[-1] == (
        "error",
        "Not reviewed: A violation that is resolved cannot be marked acknowledged.",
    )
    violation.refresh_from_db()
    assert (violation.status, violation.status_note) == ("resolved", "fixed")


def test_review_form_is_forbidden_without_change_permission(client, pit, auditor, accountant, violation):
    for user in (auditor, accountant):
        client.force_login(user)
        response = client.post(review_url(violation), {"decision": "acknowledge", "note": "x"})
        assert response.status_code == 403
    client.logout()
    response = client.post(review_url(violation), {"decision": "acknowledge", "note": "x"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    violation.refresh_from_db()
    assert violation.status == "open"


def test_review_form_is_post_only(client, pit, pit_boss, violation):
    client.force_login(pit_boss)
    assert client.get(review_url(violation)).status_code == 405


# ---------------------------------------------------------------------------------------- reconciliations


def test_accountant_explains_a_variance_with_a_note(client, pit, accountant):
    reconciliation = Reconciliation.objects.get()
    client.force_login(accountant)
    url = reverse("admin:ledger_reconciliation_changelist")
    response = act(client, url, "explain_variance_with_note", [reconciliation], post="yes", note="")
    assert response.status_code == 200
    reconciliation.refresh_from_db()
    assert reconciliation.status == ReconciliationStatus.VARIANCE

    response = act(
        client,
        url,
        "explain_variance_with_note",
        [reconciliation],
        post="yes",
        note="Two dollars found under the box.",
    )
    assert messages_of(response) == [("success", "1 reconciliation explained.")]
    reconciliation.refresh_from_db()
    assert (reconciliation.status, reconciliation.explanation, reconciliation.explained_by) == (
        ReconciliationStatus.EXPLAINED,
        "Two dollars found under the box.",
        accountant,
    )
    assert reconciliation.variance_minor == -200  # the figures stay as counted


def test_pit_boss_cannot_explain_a_variance(client, pit, pit_boss):
    reconciliation = Reconciliation.objects.get()
    client.force_login(pit_boss)
    url = reverse("admin:ledger_reconciliation_changelist")
    assert client.get(url).context["action_form"] is None
    act(client, url, "explain_variance_with_note", [reconciliation], post="yes", note="x")
    reconciliation.refresh_from_db()
    assert reconciliation.status == ReconciliationStatus.VARIANCE


def test_explaining_a_balanced_reconciliation_is_a_message(client, pit, accountant):
    Reconciliation.objects.update(status=ReconciliationStatus.BALANCED)
    reconciliation = Reconciliation.objects.get()
    client.force_login(accountant)
    response = act(
        client,
        reverse("admin:ledger_reconciliation_changelist"),
        "explain_variance_with_note",
        [reconciliation],
        post="yes",
        note="nothing",
    )
    assert messages_of(response) == [
        ("error", f"{reconciliation}: A balanced reconciliation has no variance to explain."),
    ]


def explain_url(reconciliation):
    return reverse("admin:ledger_reconciliation_explain", args=[reconciliation.pk])


def test_reconciliation_page_offers_the_explanation_to_an_accountant_only(client, pit, accountant, pit_boss):
    reconciliation = Reconciliation.objects.get()
    page = reverse("admin:ledger_reconciliation_change", args=[reconciliation.pk])
    client.force_login(accountant)
    assert f'action="{explain_url(reconciliation)}"' in client.get(page).content.decode()
    client.force_login(pit_boss)
    response = client.get(page)
    assert response.status_code == 200
    assert explain_url(reconciliation) not in response.content.decode()


def test_explanation_form(client, pit, accountant):
    reconciliation = Reconciliation.objects.get()
    client.force_login(accountant)
    response = client.post(explain_url(reconciliation), {"note": ""})
    assert messages_of(response) == [("error", "Not explained: a note is required.")]
    reconciliation.refresh_from_db()
    assert reconciliation.status == ReconciliationStatus.VARIANCE

    response = client.post(explain_url(reconciliation), {"note": "Recounted: 2.00 in the drop box."})
    assert response["Location"] == reverse("admin:ledger_reconciliation_change", args=[reconciliation.pk])
    reconciliation.refresh_from_db()
    assert (reconciliation.status, reconciliation.explanation, reconciliation.explained_by) == (
        ReconciliationStatus.EXPLAINED,
        "Recounted: 2.00 in the drop box.",
        accountant,
    )


def test_explanation_form_is_refused_to_pit_bosses_and_auditors(client, pit, pit_boss, auditor):
    reconciliation = Reconciliation.objects.get()
    for user in (pit_boss, auditor):
        client.force_login(user)
        assert client.post(explain_url(reconciliation), {"note": "x"}).status_code == 403
    reconciliation.refresh_from_db()
    assert reconciliation.status == ReconciliationStatus.VARIANCE


# ---------------------------------------------------------------------------------------- corrections and voids

COUPS = reverse("admin:shoes_coup_changelist")


def test_pit_boss_voids_a_coup_with_a_reason(client, pit, pit_boss, django_capture_on_commit_callbacks):
    coup = pit.shoe2.coups.get(number=2)
    client.force_login(pit_boss)
    response = act(client, COUPS, "void_with_note", [coup])
    assert response.status_code == 200 and b"a note is required" in response.content  # asks first
    response = act(client, COUPS, "void_with_note", [coup], post="yes", note="  ")
    assert response.status_code == 200 and not CoupCorrection.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        response = act(client, COUPS, "void_with_note", [coup], post="yes", note="Misdeal: card exposed")
    assert messages_of(response) == [("success", "1 coup voided.")]
    void = CoupCorrection.objects.get()
    assert (void.coup, void.kind, void.reason, void.recorded_by_user) == (
        coup,
        "void",
        "Misdeal: card exposed",
        pit_boss,
    )
    assert not wagers_standing(coup.wagers.all()).exists()


def test_pit_boss_corrects_the_wagers_of_one_coup(client, pit, pit_boss, django_capture_on_commit_callbacks):
    coup = pit.shoe1.coups.get(number=1)  # seat 1 Banker 100, seat 2 Player 50; the shoe is reconciled
    client.force_login(pit_boss)
    response = act(client, COUPS, "correct_wagers", [coup])
    assert response.status_code == 200
    assert response.context["form"]["wagers"].initial == "1 banker 100.00\n2 player 50.00"

    data = {"wagers": "1 banker 200.00\n\n2 player 50.00", "reason": "Bet recognition misread seat 1"}
    response = act(client, COUPS, "correct_wagers", [coup], post="yes", **data)
    assert response.status_code == 200 and not CoupCorrection.objects.exists()  # the check page first
    assert [(row["seat"], row["owed"], row["paid"], row["mispaid"]) for row in response.context["preview"]] == [
        (1, money_html(20000, "USD"), money_html(20000, "USD"), False),
        (2, money_html(0, "USD"), money_html(0, "USD"), False),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = act(client, COUPS, "correct_wagers", [coup], post="yes", confirm="yes", **data)
    correction = CoupCorrection.objects.get()
    assert messages_of(response) == [("success", f"{coup}: corrected ({correction}).")]
    assert sorted(wagers_standing(coup.wagers.all()).values_list("seat", "amount_minor", "commission_minor")) == [
        (1, 20000, 1000),
        (2, 5000, 0),
    ]
    # The shoe was reconciled: the supplement shows on its reconciliation's page.
    page = client.get(reverse("admin:ledger_reconciliation_change", args=[pit.shoe1.reconciliation.pk]))
    assert b"pit-supplements" in page.content
    coup_page = client.get(reverse("admin:shoes_coup_change", args=[coup.pk]))
    assert b"Bet recognition misread seat 1" in coup_page.content and b"correction 1" in coup_page.content


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"wagers": "1 banker 100.00\n2 player 50.00", "reason": "same"}, "nothing to correct"),
        ({"wagers": "4 banker 100.00", "reason": "seat four"}, "4 is not a seat at table BB1"),
    ],
)
def test_a_refused_correction_is_a_message(client, pit, pit_boss, data, message):
    coup = pit.shoe1.coups.get(number=1)
    client.force_login(pit_boss)
    response = act(client, COUPS, "correct_wagers", [coup], post="yes", confirm="yes", **data)
    ((level, text),) = messages_of(response)
    assert level == "error" and message in text
    assert not CoupCorrection.objects.exists()


@pytest.mark.parametrize(
    ("line", "paid", "mismatch"),
    [("1 banker 300.00", 30000, False), ("1 banker 300.00 120.00", 12000, True)],
    ids=["paid-what-it-owes", "paid-given"],
)
def test_a_corrected_stake_is_paid_what_it_owes_unless_told(
    client, pit, pit_boss, django_capture_on_commit_callbacks, line, paid, mismatch
):
    """The form's lines carry no stale paid figure: a corrected stake is paid what the paytable owes on
    it (no payout_mismatch from the correction itself); a paid figure typed is stored as typed."""
    coup = pit.shoe1.coups.get(number=1)
    client.force_login(pit_boss)
    initial = act(client, COUPS, "correct_wagers", [coup]).context["form"]["wagers"].initial
    wagers = initial.replace("1 banker 100.00", line)
    data = {"wagers": wagers, "reason": "Misread stake", "post": "yes"}
    preview = act(client, COUPS, "correct_wagers", [coup], **data).context["preview"]
    assert [(row["seat"], row["mispaid"]) for row in preview] == [(1, mismatch), (2, False)]
    with django_capture_on_commit_callbacks(execute=True):
        act(client, COUPS, "correct_wagers", [coup], confirm="yes", **data)
    assert sorted(wagers_standing(coup.wagers.all()).values_list("seat", "amount_minor", "paid_minor")) == [
        (1, 30000, paid),
        (2, 5000, 0),
    ]
    holding = RuleViolation.objects.filter(coup=coup, code="payout_mismatch", cleared_at__isnull=True)
    assert [v.wager.seat for v in holding] == ([1] if mismatch else [])


def test_the_correction_form_names_a_bad_line_and_writes_nothing(client, pit, pit_boss):
    coup = pit.shoe1.coups.get(number=1)
    client.force_login(pit_boss)
    response = act(client, COUPS, "correct_wagers", [coup], post="yes", wagers="1 banker 1OO", reason="x")
    assert response.status_code == 200
    assert response.context["form"].errors["wagers"] == [
        "Line 1 ('1 banker 1OO'): write seat, bet, amount [paid], e.g. 2 banker 500.00."
    ]
    response = act(
        client,
        COUPS,
        "correct_wagers",
        [coup, pit.shoe1.coups.get(number=2)],
        post="yes",
        wagers="1 banker 200",
        reason="x",
    )
    assert messages_of(response) == [("error", "Select exactly one coup to correct its wagers.")]
    assert not CoupCorrection.objects.exists()


def test_a_violation_reads_in_context(client, pit, pit_boss, violation, django_capture_on_commit_callbacks):
    """The rule in words, the cards as cards with what the engine reads against what was
    reported, and each wager of the coup with what the paytable owes against what was paid."""
    from tests import factories as f
    from tests.admin.conftest import BANKER_WINS, deal

    client.force_login(pit_boss)
    context = client.get(reverse("admin:compliance_ruleviolation_change", args=[violation.pk])).context["in_context"]
    assert context["rule"] == "Banker drew a card the rule did not call for"
    assert "pit-card" in context["coup"]["player"] and context["coup"]["totals"] == "9–0"
    assert [wager["seat"] for wager in context["wagers"]] == [2]

    with django_capture_on_commit_callbacks(execute=True):
        deal(pit.shoe2, 6, BANKER_WINS, wagers=[f.wager(1, "banker", "200", paid="390"), f.wager(3, "player", "50")])
    mispaid = RuleViolation.objects.get(code="payout_mismatch", coup__number=6, coup__shoe=pit.shoe2)
    response = client.get(reverse("admin:compliance_ruleviolation_change", args=[mispaid.pk]))
    wagers = response.context["in_context"]["wagers"]
    assert [(w["seat"], w["bet"], w["this"]) for w in wagers] == [(1, "Banker", True), (3, "Player", False)]
    assert "$200.00" in wagers[0]["owed"] and "$390.00" in wagers[0]["paid"] and "$190.00" in wagers[0]["difference"]
    assert 'id="pit-in-context"' in response.content.decode()


def test_violations_are_worked_by_kind_then_money_at_stake(client, pit, pit_boss, django_capture_on_commit_callbacks):
    """Open first, high before medium before low, and among them the most money at stake: a
    1,000.00 overpayment comes before a 10.00 one, whatever was found last."""
    from tests import factories as f
    from tests.admin.conftest import BANKER_WINS, deal

    with django_capture_on_commit_callbacks(execute=True):
        deal(pit.shoe2, 6, BANKER_WINS, wagers=[f.wager(1, "banker", "1000", paid="2000")])
        deal(pit.shoe2, 7, BANKER_WINS, wagers=[f.wager(1, "banker", "100", paid="110")])
    client.force_login(pit_boss)
    queue = client.get(reverse("admin:compliance_ruleviolation_changelist"), {"status__exact": "open"})
    listed = list(queue.context["cl"].result_list)
    mispays = [v for v in listed if v.code == "payout_mismatch"]
    assert [v.at_stake_minor for v in mispays] == [100000, 1000]
    ranks = [v.severity_rank for v in listed if v.status == "open"]
    assert ranks == sorted(ranks)
    html = client.get(reverse("admin:compliance_ruleviolation_changelist")).content.decode()
    assert "$1,000.00" in html


def test_bulk_review_by_code_with_one_note(client, pit, pit_boss):
    """The queue filtered by code, all selected, one note: each is reviewed by the service."""
    client.force_login(pit_boss)
    same_code = list(RuleViolation.objects.filter(code="wager_under_minimum", status="open"))
    assert len(same_code) > 1
    response = act(client, VIOLATIONS, "acknowledge_with_note", same_code, post="yes", note="Dealer retrained.")
    assert response.status_code == 302
    assert {(v.status, v.status_note) for v in RuleViolation.objects.filter(code="wager_under_minimum")} == {
        ("acknowledged", "Dealer retrained.")
    }
