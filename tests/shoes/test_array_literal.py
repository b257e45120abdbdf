"""The PostgreSQL array literal the single-statement inserts pass per column: every element quoted,
backslashes and double quotes escaped, None as NULL; the fast path (nothing to escape) gives the
same text as the element-by-element one."""

import datetime as dt
import random
from decimal import Decimal

from pit.shoes.persistence import array_literal


def _element_by_element(values: list) -> str:
    return (
        "{"
        + ",".join(
            "NULL" if value is None else '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
            for value in values
        )
        + "}"
    )


def test_array_literals_quote_and_escape_every_element():
    assert array_literal([]) == "{}"
    assert array_literal([None]) == "{NULL}"
    assert array_literal([1, "banker", Decimal("2.50")]) == '{"1","banker","2.50"}'
    assert array_literal(['say "hi"', "a\\b", None]) == '{"say \\"hi\\"","a\\\\b",NULL}'
    assert array_literal(['["KH", "5D"]']) == '{"[\\"KH\\", \\"5D\\"]"}'


def test_array_literals_are_the_element_by_element_text():
    pool = [
        None,
        0,
        -5,
        True,
        False,
        "",
        "a",
        'q"uote',
        "back\\slash",
        '\\"',
        "é",
        "{x,y}",
        "NULL",
        ",",
        " ",
        Decimal("1.50"),
        dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        dt.date(2026, 1, 2),
        '["KH", "5D"]',
    ]
    rng = random.Random(16)
    for _ in range(5000):
        values = [rng.choice(pool) for _ in range(rng.randint(0, 6))]
        assert array_literal(values) == _element_by_element(values), values
