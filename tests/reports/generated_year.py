"""A scaled year of a commission-box pit on PostgreSQL, generated in SQL (INSERT ... SELECT
generate_series), not through the ORM row by row: for the query-plan tests and bench_year.

`tables` big tables deal `shoes_per_day` closed, counted and reconciled shoes each gaming day of
`days` from FIRST_DAY, `coups_per_shoe` coups a shoe, one wager per seat in `seats` on every coup
(Banker on odd seats, Player on even ones). Commission accrues on winning Banker wagers, each seat's
box is counted (about 2% of seats short by 5.00), and the shuffle collects the box. The issue's
year (390k coups, 2.07M wagers, 5,130 shoes) is tables=7, shoes_per_day=2, coups_per_shoe=76, and
seats=5 for about 1.94M wagers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

FIRST_DAY = dt.date(2025, 1, 1)


@dataclass(frozen=True)
class YearSize:
    tables: int = 7
    days: int = 365
    shoes_per_day: int = 2
    coups_per_shoe: int = 76
    seats: int = 5

    @property
    def last_day(self) -> dt.date:
        return FIRST_DAY + dt.timedelta(days=self.days - 1)


GENERATE = """
INSERT INTO shoes_shoe (table_id, sequence, decks, shuffled_at, cut_card_position, burn_cards, status,
                        closed_at, cards_seen, cards_dealt, coups_recorded, recorded_at)
SELECT t.id, s, 8, shuffled, 380, '[]', 'closed', shuffled + (%(coups)s + 1) * interval '1 minute', '{}', 0,
       %(coups)s, now()
FROM tables_table t CROSS JOIN generate_series(1, %(shoes)s) s
CROSS JOIN LATERAL (SELECT %(start)s::timestamptz + ((s - 1) / %(per_day)s) * interval '1 day'
                           + ((s - 1) %% %(per_day)s) * interval '3 hours' AS shuffled) moment;

INSERT INTO shoes_coup (shoe_id, number, dealt_at, gaming_day, player_cards, banker_cards,
                        player_total, banker_total, winner, "natural", player_pair, banker_pair,
                        reported_winner, paytable_id, recorded_at)
SELECT sh.id, n, sh.shuffled_at + n * interval '1 minute', %(first_day)s::date + (sh.sequence - 1) / %(per_day)s,
       CASE w WHEN 'banker' THEN '["2H","KD"]' WHEN 'player' THEN '["9H","KD"]' ELSE '["8H","KD"]' END::jsonb,
       CASE w WHEN 'banker' THEN '["8C","KS"]' WHEN 'player' THEN '["5C","2S"]' ELSE '["8C","KS"]' END::jsonb,
       CASE w WHEN 'banker' THEN 2 WHEN 'player' THEN 9 ELSE 8 END,
       CASE w WHEN 'banker' THEN 8 WHEN 'player' THEN 7 ELSE 8 END,
       w, true, false, false, '', %(paytable)s, now()
FROM shoes_shoe sh CROSS JOIN generate_series(1, %(coups)s) n
CROSS JOIN LATERAL (
  SELECT CASE WHEN r < 0.4586 THEN 'banker' WHEN r < 0.9048 THEN 'player' ELSE 'tie' END AS w
  FROM (SELECT random() + n * 0 + sh.id * 0 AS r) x
) outcome;

INSERT INTO shoes_wager (coup_id, gaming_day, seat, bet, currency, amount_minor, result, payout_minor,
                         commission_minor)
SELECT c.id, c.gaming_day, b.seat, b.bet, 'USD', a.amount,
       CASE WHEN b.bet = c.winner THEN 'win' WHEN c.winner = 'tie' THEN 'push' ELSE 'lose' END,
       CASE WHEN b.bet = c.winner THEN a.amount ELSE 0 END,
       CASE WHEN b.bet = 'banker' AND c.winner = 'banker' THEN a.amount / 20 ELSE 0 END
FROM shoes_coup c
CROSS JOIN (SELECT seat, CASE WHEN seat %% 2 = 1 THEN 'banker' ELSE 'player' END AS bet
            FROM generate_series(1, %(seats)s) seat) b
CROSS JOIN LATERAL (SELECT 2500 * (1 + floor(random() * 40 + c.id * 0 + b.seat * 0))::bigint AS amount) a;

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, wager_id,
                                    collection_reason, note, recorded_at)
SELECT c.shoe_id, c.gaming_day, w.seat, 'accrued', 'USD', w.commission_minor, w.id, '', '', c.dealt_at
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE w.commission_minor > 0;

CREATE TEMP TABLE generated_seat ON COMMIT DROP AS
SELECT e.shoe_id, e.seat, min(e.gaming_day) AS gaming_day, sum(e.amount_minor) AS accrued,
       CASE WHEN random() < 0.02 THEN greatest(sum(e.amount_minor) - 500, 0)
            ELSE sum(e.amount_minor) END AS counted
FROM ledger_commissionentry e GROUP BY e.shoe_id, e.seat;

INSERT INTO ledger_boxcount (shoe_id, seat, currency, counted_minor, recorded_at)
SELECT shoe_id, seat, 'USD', counted, now() FROM generated_seat;

INSERT INTO ledger_reconciliation (shoe_id, currency, accrued_minor, collected_earlier_minor, expected_minor,
                                   counted_minor, variance_minor, status, reconciled_at, explanation)
SELECT shoe_id, 'USD', sum(accrued), 0, sum(accrued), sum(counted), sum(counted) - sum(accrued),
       CASE WHEN bool_or(counted <> accrued) THEN 'variance' ELSE 'balanced' END, now(), ''
FROM generated_seat GROUP BY shoe_id;

INSERT INTO ledger_reconciliationseat (reconciliation_id, seat, accrued_minor, collected_earlier_minor,
                                       expected_minor, counted_minor, variance_minor)
SELECT r.id, s.seat, s.accrued, 0, s.accrued, s.counted, s.counted - s.accrued
FROM generated_seat s JOIN ledger_reconciliation r ON r.shoe_id = s.shoe_id;

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, collection_reason,
                                    note, recorded_at)
SELECT s.shoe_id, s.gaming_day, s.seat, 'collected', 'USD', -s.accrued, 'shuffle', '', sh.closed_at
FROM generated_seat s JOIN shoes_shoe sh ON sh.id = s.shoe_id;
"""


def generate_year(size: YearSize) -> dict[str, int]:
    """Create the tables through the services and the year in SQL, inside one transaction (the
    caller's, if any); ANALYZE so the planner sees the sizes. Returns the row counts."""
    from django.db import connection, transaction

    from pit.paytables.services import paytable_create_from_preset
    from pit.tables.services import table_create

    paytable = paytable_create_from_preset(preset="commission_box")
    for number in range(1, size.tables + 1):
        limits = {bet: (Decimal("25"), Decimal("10000")) for bet in ("banker", "player", "tie")}
        table_create(code=f"BY{number:02d}", name=f"Big {number}", game="big", paytable=paytable, limits=limits)
    params = {
        "start": dt.datetime.combine(FIRST_DAY, dt.time(9), tzinfo=dt.UTC),
        "first_day": FIRST_DAY,
        "per_day": size.shoes_per_day,
        "coups": size.coups_per_shoe,
        "shoes": size.shoes_per_day * size.days,
        "seats": size.seats,
        "paytable": paytable.pk,
    }
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        for statement in GENERATE.split(";\n"):
            if statement.strip():
                cursor.execute(statement, params)
        counts = {}
        for name, table in (
            ("shoes", "shoes_shoe"),
            ("coups", "shoes_coup"),
            ("wagers", "shoes_wager"),
            ("ledger_entries", "ledger_commissionentry"),
            ("box_counts", "ledger_boxcount"),
        ):
            cursor.execute(f"ANALYZE {table}")
            cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - fixed names
            counts[name] = cursor.fetchone()[0]
    return counts
