"""The commission report publishes each gaming day's hash-chain heads (pit.records): a JSON field
and a last XLSX sheet, so an accountant's export pins the record as it stood."""

import hashlib
import io
import json

import openpyxl

from pit.records.models import ChainHead
from pit.reports.catalog import COMMISSION, TABLE_RESULTS
from pit.reports.definitions import ReportFilters
from pit.reports.renderers import json_chunks, xlsx_write
from tests.reports.conftest import DAY_1, DAY_2

FILTERS = ReportFilters(DAY_1, DAY_2)


def expected_heads(pit):
    days = []
    for day, shoes in ((DAY_1, [pit.shoe_a, pit.shoe_c]), (DAY_2, [pit.shoe_b])):
        heads = [(shoe, ChainHead.objects.get(shoe=shoe)) for shoe in sorted(shoes, key=lambda shoe: shoe.pk)]
        digest = hashlib.sha256("\n".join(f"{shoe.pk}:{head.length}:{head.head}" for shoe, head in heads).encode())
        days.append(
            {
                "gaming_day": day.isoformat(),
                "digest": digest.hexdigest(),
                "shoes": [
                    {
                        "shoe": shoe.pk,
                        "table": shoe.table.code,
                        "sequence": shoe.sequence,
                        "rows": head.length,
                        "head": head.head,
                    }
                    for shoe, head in heads
                ],
            }
        )
    return days


def test_the_commission_json_carries_the_record_heads_of_each_gaming_day(pit):
    body = json.loads(b"".join(json_chunks(COMMISSION, FILTERS)))
    assert body["record_heads"] == expected_heads(pit)
    assert [shoe["rows"] for day in body["record_heads"] for shoe in day["shoes"]] == [
        ChainHead.objects.get(shoe=pit.shoe_a).length,
        ChainHead.objects.get(shoe=pit.shoe_c).length,
        ChainHead.objects.get(shoe=pit.shoe_b).length,
    ]
    assert "record_heads" not in json.loads(b"".join(json_chunks(TABLE_RESULTS, FILTERS)))


def test_the_commission_xlsx_ends_with_a_record_heads_sheet(pit):
    out = io.BytesIO()
    xlsx_write(COMMISSION, FILTERS, out)
    out.seek(0)
    sheet = openpyxl.load_workbook(out)["Record heads"]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    heads = expected_heads(pit)
    day_1 = heads[0]
    assert rows[0][0] == "Gaming day"
    assert rows[1][1:] == ["day digest", None, None, sum(shoe["rows"] for shoe in day_1["shoes"]), day_1["digest"]]
    first_shoe = day_1["shoes"][0]
    assert rows[2][1:] == ["BB1", 1, first_shoe["shoe"], first_shoe["rows"], first_shoe["head"]]
    assert rows[2][0].date() == DAY_1
    assert len(rows) == 1 + sum(1 + len(day["shoes"]) for day in heads)
