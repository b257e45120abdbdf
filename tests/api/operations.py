"""The API's operations as its OpenAPI schema lists them, and a floor to call them on: the tests that
walk every operation (tests/api/test_strict_fields.py, tests/api/test_replays.py) build on this."""

import datetime as dt
import functools
import re
from dataclasses import dataclass
from decimal import Decimal

from django.apps import apps
from django.contrib.auth import get_user_model
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from pit import game
from pit.accounts.services import user_create_with_role
from pit.compliance.services import violation_record
from pit.core.gaming_day import gaming_day_for
from pit.dealers.models import Dealer
from pit.players.models import Patron, PatronVersion, SeatSession, SessionEvent, Tier
from pit.progressives.services import meter_file
from pit.ratings.models import CompEntry
from pit.shoes.models import Coup
from tests import factories
from tests.api.conftest import coup_body

DAY = "2026-11-20"


@functools.cache
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(method: str) -> list[tuple[str, dict]]:
    """(path template, operation) of every operation of `method` the schema documents."""
    return [
        (path, item[method])
        for path, item in sorted(schema()["paths"].items())
        if method in item and path.startswith("/api/v1/")
    ]


def component(reference: str) -> dict:
    return schema()["components"]["schemas"][reference.rsplit("/", 1)[1]]


def request_body(operation: dict) -> dict | None:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    return component(content["schema"]["$ref"]) if content else None


def resolved(schema_: dict) -> dict:
    if "$ref" in schema_:
        return component(schema_["$ref"])
    if "allOf" in schema_:
        return resolved(schema_["allOf"][0])
    return schema_


def leaf_fields(body: dict, prefix: str = "") -> list[tuple[str, dict]]:
    """(field path, schema) of every leaf field of a request body: `wagers[0].amount` for a list of
    objects, `burn[0]` for a list of strings."""
    found = []
    for name, field in body.get("properties", {}).items():
        field = resolved(field)
        path = f"{prefix}.{name}" if prefix else name
        if field.get("type") == "object" and "properties" in field:
            found += leaf_fields(field, path)
        elif field.get("type") == "array":
            items = resolved(field["items"])
            if items.get("type") == "object":
                found += leaf_fields(items, f"{path}[0]")
            else:
                found.append((f"{path}[0]", items))
        else:
            found.append((path, field))
    return found


def body_with(path: str, value) -> dict:
    """A body that holds `value` at `path` (`wagers[0].amount`), and nothing else."""
    body: dict = {}
    target = body
    parts = re.findall(r"([^.\[\]]+)(\[0\])?", path)
    for index, (name, listed) in enumerate(parts):
        last = index == len(parts) - 1
        if listed:
            if last:
                target[name] = [value, value]  # two: lists of cards take two at least
            else:
                target[name] = [{}]
                target = target[name][0]
        elif last:
            target[name] = value
        else:
            target = target.setdefault(name, {})
    return body


def view_class(path: str):
    return resolve(path).func.view_class


def rows() -> dict[str, int]:
    """Rows of every model of the project (pit.*): a refused request writes none."""
    return {
        model._meta.label: model._default_manager.count()
        for model in apps.get_models()
        if model.__module__.startswith("pit.") and model._meta.managed and not model._meta.proxy
    }


@dataclass
class Floor:
    client: APIClient
    table_code: str
    shoe_id: int
    coup_id: int
    violation_id: int

    def fill(self, path: str, **given) -> str:
        values = {
            "code": self.table_code,
            "shoe_id": self.shoe_id,
            "seat": 1,
            "coup_id": self.coup_id,
            "violation_id": self.violation_id,
            "kind": "fill",
            "number": "F-1",
            "day": DAY,
            "slug": "hourly-drop",
            "finding_id": 1,
            "card_number": "100234",
            **given,
        }
        return re.sub(r"\{(\w+)\}", lambda match: str(values[match.group(1)]), path)


def build_floor() -> Floor:
    """Table BB1 with a dealing shoe, coup 1 recorded with a violation, two signers (dana, boss), a
    dealer D042, fill slip F-1 requested and patron 100234 with 500.00 in comps; called by a
    superuser (every permission)."""
    table = factories.table("BB1")
    user_create_with_role(username="dana", password="a-long-password-123", role="pit boss")
    user_create_with_role(username="boss", password="a-long-password-123", role="pit boss")
    Dealer.objects.create(code="D042", name="Dana")
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "a-long-password-123")
    client = APIClient()
    client.force_authenticate(user=admin)
    shoe = factories.shoe(table)
    answer = client.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(1), format="json")
    assert answer.status_code == 201, answer.content
    slip = {
        "kind": "fill",
        "number": "F-1",
        "table": "BB1",
        "gaming_day": DAY,
        "reason": "tray low",
        "chips": {"25.00": 40},
    }
    assert client.post("/api/v1/accounting/slips/", slip, format="json").status_code == 201
    # A progressive meter on BB1's Player bet, with the cage's cashier to sign its payouts: coup 1's
    # Player win at seat 1 is a hit to pay.
    user_create_with_role(username="cashier", password="a-long-password-123", role="cage")
    meter_file(
        code="PP1",
        name="Player jackpot",
        bet="player",
        currency=table.currency,
        effective_from=dt.datetime.now(dt.UTC) - dt.timedelta(hours=1),
        base=Decimal("1000"),
        reset=Decimal("500"),
        rate=Decimal("0.01"),
        tables=[table],
        filing_reference="F-1",
    )
    # Patron 100234, with comps earned in a session at seat 7 that has stood up.
    patron = Patron.objects.create(card_number="100234")
    PatronVersion.objects.create(
        patron=patron, name="Li Wei", tier=Tier.objects.get_or_create(code="gold", defaults={"name": "Gold"})[0]
    )
    sat = shoe.shuffled_at - dt.timedelta(hours=2)
    session = SeatSession.objects.create(
        table=table, seat=7, patron=patron, started_at=sat, gaming_day=gaming_day_for(sat)
    )
    SessionEvent.objects.create(session=session, kind="stand", at=sat + dt.timedelta(hours=1))
    CompEntry.objects.create(patron=patron, kind="earned", session=session, currency="USD", amount_minor=50000)
    coup = Coup.objects.get(shoe=shoe, number=1)
    violation = violation_record(
        finding=game.violation("payout_mismatch", "Seat 1 was paid 90.00 for a 100.00 win."),
        fingerprint=f"test:{coup.pk}",
        table=table,
        gaming_day=coup.gaming_day,
        found_by="test",
        shoe=shoe,
        coup=coup,
    )
    return Floor(
        client=client,
        table_code="BB1",
        shoe_id=shoe.pk,
        coup_id=coup.pk,
        violation_id=violation.pk,
    )


def recent(minutes: int) -> str:
    return (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=minutes)).replace(microsecond=0).isoformat()
