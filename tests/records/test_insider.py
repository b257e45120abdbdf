"""The insider's attacks, as CI runs them: as the database owner, past every trigger
(`session_replication_role = replica`, as tests/facts.py does), one change to one row of each kind of
fact (every kind the registry knows: pit.records.streams, so a kind added later is attacked too),
then `verify_records` must name each one. On PostgreSQL also the columns that may change (a
violation's status, a shoe's close, a user made superuser, a device renamed), changed past the audit
trail's trigger: verification names each row whose columns differ from its latest (chained) event."""

import datetime as dt
import decimal
import uuid
from decimal import Decimal
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from pit.accounts.models import Role
from pit.accounts.services import device_create, staff_token_create, user_create_with_role
from pit.compliance.services import violation_record
from pit.core.gaming_day import current_gaming_day
from pit.game import violation
from pit.ledger.services import commission_collect, shoe_reconcile
from pit.players.models import Patron, SeatSession
from pit.progressives.services import meter_file, meter_payout_record
from pit.ratings.models import CompEntry
from pit.records.canonical import SPECS
from pit.records.services import streams_seal
from pit.records.streams import stream_specs
from pit.shoes.services import shoe_close
from tests import factories
from tests.facts import protection_off
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def _keys(model):
    return list(models.QuerySet(model).order_by("pk").values_list("pk", flat=True)[:20])


def _value(field, index, number):
    """A value the field's column accepts, for a row built as the owner (no service makes it): its
    default if it has one; a key a row of its own (two signers are two people)."""
    if field.is_relation:
        # An existing row of the model it names (the n-th key of the row the n-th: two signers are
        # two people), built where there is none.
        others = _keys(field.related_model) or [built_row(field.related_model, index + 1)]
        return others[field.model._meta.concrete_fields.index(field) % len(others)]
    if field.has_default():
        return field.get_default()
    if field.choices:
        return field.choices[0][0]
    if isinstance(field, models.BooleanField):
        return False
    if isinstance(field, models.DateTimeField):
        return timezone.now()
    if isinstance(field, models.DateField):
        return current_gaming_day()
    if isinstance(field, models.DecimalField):
        return Decimal(number)
    if isinstance(field, models.IntegerField | models.FloatField):
        return number
    if isinstance(field, models.JSONField):
        return {}
    if isinstance(field, models.UUIDField):
        return uuid.uuid4()
    if isinstance(field, models.GenericIPAddressField):
        return "127.0.0.1"
    if isinstance(field, models.CharField | models.TextField):
        return "x"
    raise TypeError(f"no value for {field!r}")


def built_row(model, index):
    """One row of a fact model, inserted as the owner could, every NOT NULL column given: numbers 1,
    or 0 where the table's checks want them to add up."""
    fields = [field for field in model._meta.concrete_fields if not field.primary_key and not field.null]
    for number in (1, 0):
        try:
            with protection_off(), transaction.atomic():
                # bulk_create: an INSERT as the owner's SQL, no model signal (a buy-in's cash receiver)
                row = model(**{f.attname: _value(f, index, number) for f in fields})
                return models.QuerySet(model).bulk_create([row])[0].pk
        except IntegrityError:
            continue
    raise AssertionError(f"no row of {model._meta.label} could be built: make one through its service here")


def tampered(model, row_id, fields):
    """Change one column the row's hash covers, as the owner past the triggers: a number, a time, a
    word, or a foreign key moved (a shoe to another table, a void to another coup). Returns its name."""
    row = models.QuerySet(model).filter(pk=row_id).values(*fields).get()
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    # Its own columns first, a key last (moved onto another row of what it names).
    for attname in sorted(fields, key=lambda name: by_attname[name].is_relation):
        field = by_attname[attname]
        value = row[attname]
        if value is None:
            continue
        if field.is_relation:
            others = [key for key in _keys(field.related_model) if key != value]
            if not others:
                continue
            changed = others[0]
        elif isinstance(value, bool):
            changed = not value
        elif isinstance(value, int | decimal.Decimal):
            changed = value + 1
        elif isinstance(value, dt.datetime | dt.date):
            changed = value + dt.timedelta(days=1)
        elif isinstance(value, str) and field.choices:
            others = [choice for choice, _ in field.choices if choice != value]
            if not others:
                continue
            changed = others[0]
        elif isinstance(value, str):
            changed = value + "y" if len(value) < (field.max_length or 1000) else value[:-1]
        else:
            continue
        try:
            with protection_off(), transaction.atomic():
                models.QuerySet.update(models.QuerySet(model).filter(pk=row_id), **{attname: changed})
        except IntegrityError:  # a unique or checked column: the next one
            continue
        return attname
    raise AssertionError(f"{model._meta.label} has no column to tamper with")


def played_shoe(code):
    shoe = factories.shoe(factories.table(code))
    factories.coup(
        shoe,
        1,
        *hands.BANKER_NATURAL,
        wagers=[factories.wager(1, "banker", "100"), factories.wager(2, "banker", "100")],
    )
    commission_collect(shoe=shoe, seat=2)
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("4.00"))])
    shoe_reconcile(shoe_id=shoe.pk)
    return shoe


def test_the_insider_changes_one_row_of_every_fact_kind_and_verify_records_names_each(django_user_model):
    users = [
        django_user_model.objects.create_user(name, password="x", is_staff=True)
        for name in ("first", "second", "third")
    ]
    # Rows of the kinds the services make with the audit trail's events (the rest are built below).
    table = factories.table("DV1")
    device_create(table=table, name="tablet", user=users[0])
    staff_token_create(user=users[0], name="script", created_by=users[0])
    # A progressive meter, its configuration and bank, a hit paid and its readings (the rate's check
    # refuses the numbers a built row would take).
    meter = meter_file(
        code="J1",
        name="Jackpot",
        bet="banker",
        currency=table.currency,
        effective_from=timezone.now() - dt.timedelta(hours=1),
        base=Decimal("100"),
        reset=Decimal("50"),
        rate=Decimal("0.01"),
        tables=[table],
        filing_reference="F-1",
    )
    hit = factories.coup(factories.shoe(table), 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    meter_payout_record(
        meter=meter,
        coup=hit,
        seat=1,
        paid_by=user_create_with_role(username="boss", password="x" * 16, role=Role.PIT_BOSS.value),
        witnessed_by=user_create_with_role(username="cashier", password="x" * 16, role=Role.CAGE.value),
    )
    violation_record(
        finding=violation("record_chain_broken", "A test finding."),
        fingerprint="insider-test",
        table=table,
        gaming_day=current_gaming_day(),
        found_by="test",
    )
    # A comp entry is earned by a session of a patron (its shape needs both).
    patron = Patron.objects.create(card_number="C-INSIDER")
    session = SeatSession.objects.create(
        table=table, seat=1, patron=patron, started_at=timezone.now(), gaming_day=current_gaming_day()
    )
    CompEntry.objects.create(patron=patron, kind="earned", session=session, currency="USD", amount_minor=100)
    # The shoes' six kinds: one shoe each (a shoe's verification names its first break).
    attacked = {}
    for index, spec in enumerate(SPECS):
        shoe = played_shoe(f"T{index}")
        model = apps.get_model(spec.label)
        row_id = (
            models.QuerySet(model).filter(**{spec.shoe_path: shoe.pk}).order_by("pk").values_list("pk", flat=True)[0]
        )
        attacked[spec.label] = (row_id, tampered(model, row_id, spec.fields))
    # Every other kind: a row of its own (built where no service made one), sealed, then changed.
    for index, spec in enumerate(stream_specs()):
        existing = models.QuerySet(spec.model).order_by("pk").values_list("pk", flat=True).first()
        attacked[spec.stream] = (existing if existing is not None else built_row(spec.model, index), None)
    streams_seal()
    for spec in stream_specs():
        row_id, _ = attacked[spec.stream]
        attacked[spec.stream] = (row_id, tampered(spec.model, row_id, spec.fields))

    out, err = StringIO(), StringIO()
    first = current_gaming_day() - dt.timedelta(days=1)
    with pytest.raises(CommandError) as raised:
        call_command(
            "verify_records",
            "--from",
            first.isoformat(),
            "--to",
            current_gaming_day().isoformat(),
            "--no-seal",
            stdout=out,
            stderr=err,
        )
    assert raised.value.returncode == 1
    report = err.getvalue()
    named = {
        label
        for label, (row_id, _) in attacked.items()
        if f"{label} row {row_id} " in report
        or any(spec.label == label and f", {spec.kind} {row_id} at position" in report for spec in SPECS)
    }
    missed = sorted(set(attacked) - named)
    print(f"insider attacks: {len(attacked)} kinds of fact changed, {len(named)} named by verify_records")
    assert missed == [], report
    assert len(attacked) == len(SPECS) + len(stream_specs())
