"""The four report answers are typed in the schema, column by column, and what the server answers
conforms to that schema (issue 17 item 3)."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS30Validator

from pit.progressives.services import meter_file
from pit.reports.catalog import REPORTS
from pit.shoes.services import shoe_close
from tests import factories

pytestmark = pytest.mark.django_db


# Reports this fixture gives no row: no adjustment of a closed gaming day was recorded, no slip book,
# no notification to surveillance, no notice to the regulator, no key drawn.
# No patron is seated and no cash is taken in this fixture either: the players' and the cash reports.
NOTHING_TO_LIST_HERE = {
    "adjustments",
    "slip-series",
    "surveillance-notifications",
    "regulator-notices",
    "key-log",
    "patron-day",
    "top-patrons",
    "rating-accuracy",
    "play-by-nationality",
    "cash-mtl",
    "cash-ctr",
    "cash-sar",
}


def test_each_report_answer_conforms_to_its_typed_schema(accountant, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = factories.table("BB1")
        # A progressive meter on BB1's Banker bet: the progressive liability has its row.
        meter_file(
            code="BJ1",
            name="Banker jackpot",
            bet="banker",
            currency=table.currency,
            effective_from=timezone.now() - dt.timedelta(hours=1),
            base=Decimal("1000"),
            reset=Decimal("500"),
            rate=Decimal("0.01"),
            tables=[table],
            filing_reference="F-1",
        )
        shoe = factories.shoe(table)
        coup = factories.coup(shoe, 1, ["TH", "QH"], ["8C", "KC"], wagers=[factories.wager(1, "banker", "100")])
        factories.coup(shoe, 3, ["9S", "KH"], ["TS", "KD"], wagers=[factories.wager(2, "player", "50")])
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("4.00"))])
    schema = SchemaGenerator().get_schema(request=None, public=True)
    day = coup.gaming_day.isoformat()
    for slug in REPORTS:
        operation = schema["paths"][f"/api/v1/reports/{slug}/"]["get"]
        answer_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert answer_schema["properties"]["rows"]["items"]["properties"], slug
        response = accountant.get(f"/api/v1/reports/{slug}/?from={day}&to={day}")
        assert response.status_code == 200
        body = b"".join(response.streaming_content)
        answer = json.loads(body)
        assert answer["rows"] or slug in NOTHING_TO_LIST_HERE, slug
        errors = [error.message for error in OAS30Validator(answer_schema).iter_errors(answer)]
        assert errors == [], (slug, errors)
