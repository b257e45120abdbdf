"""An example of every answer object in the schema, as the server answers it: the coup is the schema's
request example (pit/api/resources/coups.py COUP_EXAMPLE, a rule-clean coup) evaluated and settled by the engine
under the `commission_box` preset, the odds are the engine's for 8 decks. tests/api/test_schema_examples.py
checks each example against its schema and the coup against what the server answers."""

from typing import Any

WAGERS = [
    {
        "seat": 1,
        "bet": "player",
        "amount": "100.00",
        "paid": "100.00",
        "result": "win",
        "payout": "100.00",
        "commission": "0.00",
    },
    {
        "seat": 2,
        "bet": "banker",
        "amount": "250.00",
        "paid": "0.00",
        "result": "lose",
        "payout": "0.00",
        "commission": "0.00",
    },
    {
        "seat": 3,
        "bet": "tie",
        "amount": "25.00",
        "paid": "0.00",
        "result": "lose",
        "payout": "0.00",
        "commission": "0.00",
    },
]
COUP = {
    "id": 8121,
    "shoe": 412,
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
    "paytable": 3,
    "recorded_by": "device shoe reader @ BB1",
    "wagers": WAGERS,
    "violations": [],
}
SHOE = {
    "id": 412,
    "table": "BB1",
    "sequence": 7,
    "decks": 8,
    "shuffled_at": "2026-11-29T21:02:40Z",
    "cut_card_position": 380,
    "burn": ["7C", "KS", "2D", "9H", "QD", "4S", "JC", "8D"],
    "status": "dealing",
    "closed_at": None,
    "cards_dealt": 5,
    "coups_recorded": 1,
    "cards_left_before_cut": 375,
    "recorded_by": "device shoe reader @ BB1",
}
TABLE_LIMIT = {"bet": "banker", "minimum": "25.00", "maximum": "10000.00"}
TABLE = {
    "code": "BB1",
    "name": "Big baccarat 1",
    "game": "big",
    "seats": [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16],
    "squeeze": True,
    "status": "open",
    "currency": "USD",
    "paytable": 3,
    "limits": [
        TABLE_LIMIT,
        {"bet": "player", "minimum": "25.00", "maximum": "10000.00"},
        {"bet": "tie", "minimum": "5.00", "maximum": "1000.00"},
    ],
    "dealing_shoe": 412,
}
RECONCILIATION_SEAT = {
    "seat": 2,
    "accrued": "12.50",
    "collected_earlier": "5.00",
    "expected": "7.50",
    "counted": "7.00",
    "variance": "-0.50",
}
RECONCILIATION = {
    "shoe": 412,
    "currency": "USD",
    "status": "variance",
    "accrued": "12.50",
    "collected_earlier": "5.00",
    "expected": "7.50",
    "counted": "7.00",
    "variance": "-0.50",
    "reconciled_at": "2026-11-29T23:40:12Z",
    "explanation": "",
    "seats": [RECONCILIATION_SEAT],
}
VIOLATION = {
    "id": 77,
    "code": "reported_winner_mismatch",
    "message": "The table reported banker; the cards give player (Player 7, Banker 6).",
    "severity": "high",
    "status": "open",
    "table": "BB1",
    "shoe": 412,
    "coup": 8121,
    "wager": None,
    "seat": None,
    "gaming_day": "2026-11-29",
    "found_at": "2026-11-29T21:14:06Z",
    "found_by": "coup_verification",
    "cleared_at": None,
    "status_note": "",
    "status_changed_by": None,
    "status_changed_at": None,
}
# One alarm is one event: a shoe dealt unshuffled raised one finding a coup; the newest stands for them.
ALARM = {
    **VIOLATION,
    "code": "shoe_sequence_repeat",
    "message": "Shoe 412 repeats the card order of shoe 398 from its first card: it was not shuffled.",
    "count": 31,
    "first_found_at": "2026-11-29T20:41:55Z",
    "last_found_at": "2026-11-29T21:14:06Z",
}
RULES: dict[str, Any] = {
    "name": "commission_box",
    "commission_mode": "box",
    "commission_rate": "0.05",
    "commission_rounding": {"increment": "0.01", "mode": "half_up"},
    "bet_increments": {},
    "ties_push": True,
    "bets": {
        "player": {"rules": [{"when": ["player_wins"], "result": "win", "odds": "1:1", "commission": False}]},
        "banker": {"rules": [{"when": ["banker_wins"], "result": "win", "odds": "1:1", "commission": True}]},
        "tie": {"rules": [{"when": ["tie"], "result": "win", "odds": "8:1", "commission": False}]},
    },
}
HOUSE_EDGE = {"house_edge": "0.0105790578", "variance": "0.8600188668"}
PAYTABLE = {
    "id": 3,
    "code": "commission-box",
    "version": 1,
    "name": "commission_box",
    "preset": "commission_box",
    "rules": RULES,
    "house_edges": {
        "banker": HOUSE_EDGE,
        "player": {"house_edge": "0.0123508133", "variance": "0.9046914894"},
        "tie": {"house_edge": "0.1435962878", "variance": "6.9742060916"},
    },
    "override_reason": "",
    "supersedes": None,
    "superseded_by": None,
}
OUTCOME = {"result": "win", "net": "0.95", "probability": "0.458597422633"}
BET_ODDS = {
    "bet": "banker",
    "house_edge": "0.010579057842",
    "variance": "0.860018866805",
    "outcomes": [
        OUTCOME,
        {"result": "push", "net": "0", "probability": "0.095155968024"},
        {"result": "lose", "net": "-1", "probability": "0.446246609344"},
    ],
}
BATCH_SUMMARY = {"created": 1, "existing": 0, "conflict": 1, "invalid": 0}
BATCH_ITEM = {"index": 0, "number": 1, "status": "created", "id": 8121, "errors": {}}
BATCH_CONFLICT = {
    "index": 1,
    "number": 1,
    "status": "conflict",
    "id": 8121,
    "errors": {"wagers[0].amount": ["recorded 100.00, posted 150.00"]},
}
BATCH_BRIEF = {"shoe": 412, "summary": BATCH_SUMMARY, "results": [BATCH_ITEM, BATCH_CONFLICT]}
# The same answer with ?answer=full: each item carries its coup.
BATCH_FULL = {**BATCH_BRIEF, "results": [{**BATCH_ITEM, "coup": COUP}, {**BATCH_CONFLICT, "coup": COUP}]}


SUPPLEMENT_SEAT = {
    "seat": 2,
    "change": "5.00",
    "accrued": "30.00",
    "collected_earlier": "0.00",
    "expected": "30.00",
    "counted": "25.00",
    "variance": "-5.00",
}


SEAT_SESSION = {
    "id": 5120,
    "table": "BB1",
    "seat": 3,
    "card_number": "100234",
    "description": "",
    "started_at": "2026-11-29T21:10:00Z",
    "gaming_day": "2026-11-29",
    "recorded_by": "device 'seat readers' (BB1)",
}
SEAT_MONEY = {
    "id": 930,
    "session": 5120,
    "seat": 3,
    "kind": "cash",
    "amount": "5000.00",
    "currency": "USD",
    "at": "2026-11-29T21:11:00Z",
    "recorded_by": "device 'seat readers' (BB1)",
}


def _page(item):
    return {"count": 1, "next": None, "previous": None, "results": [item]}


COMPONENT_EXAMPLES = {
    "SeatSession": SEAT_SESSION,
    "SessionHistory": {**SEAT_SESSION, "state": "stood", "ended_at": "2026-11-29T23:40:00Z"},
    "SessionEvent": {
        "id": 20411,
        "session": 5120,
        "seat": 3,
        "kind": "stand",
        "at": "2026-11-29T23:40:00Z",
        "chips_walked": "7250.00",
        "recorded_by": "device 'seat readers' (BB1)",
    },
    "Identification": {
        "session": 5121,
        "seat": 5,
        "card_number": "100234",
        "reason": "Card shown at the cage after the session began.",
        "recorded_at": "2026-11-29T22:02:13Z",
        "recorded_by": "device 'table terminal' (BB1)",
    },
    "SeatMoney": SEAT_MONEY,
    "PatronLookup": {
        "card_number": "100234",
        "name": None,
        "nationality": None,
        "tier": "gold",
        "status": "active",
        "excluded": False,
        "seated": ["BB1/3"],
    },
    "Table": TABLE,
    "TableLimit": TABLE_LIMIT,
    "Shoe": SHOE,
    "Coup": COUP,
    "Wager": WAGERS[0],
    "ViolationBrief": {
        "code": "reported_winner_mismatch",
        "message": "The table reported banker; the cards give player (Player 7, Banker 6).",
    },
    "CoupBatchItem": BATCH_ITEM,
    "CoupBatchSummary": BATCH_SUMMARY,
    "CoupBatchResult": BATCH_BRIEF,
    "Collection": {"shoe": 412, "seat": 2, "currency": "USD", "collected": "5.00", "entry": 9312},
    "Reconciliation": RECONCILIATION,
    "ReconciliationSeat": RECONCILIATION_SEAT,
    "ReconciliationPending": {
        "shoe": 412,
        "status": "pending",
        "message": "Shoe 412 has no reconciliation yet: it was closed and its reconciliation is queued.",
        "retry_after_seconds": 2,
    },
    "Violation": VIOLATION,
    "Paytable": PAYTABLE,
    "PaytableRules": RULES,
    "PaytableBet": RULES["bets"]["banker"],
    "PaytableRule": RULES["bets"]["banker"]["rules"][0],
    "PaytableRounding": RULES["commission_rounding"],
    "HouseEdge": HOUSE_EDGE,
    "Odds": {"paytable": 3, "decks": 8, "cards": 416, "bets": [BET_ODDS]},
    "BetOdds": BET_ODDS,
    "OutcomeOdds": OUTCOME,
    "PaginatedTableList": _page(TABLE),
    "PaginatedCoupList": _page(COUP),
    "PaginatedViolationList": _page(VIOLATION),
    "Alarm": ALARM,
    "PaginatedAlarmList": _page(ALARM),
    "PaginatedPaytableList": _page(PAYTABLE),
    "Correction": {
        "id": 7,
        "coup": 9120,
        "sequence": 1,
        "kind": "correct",
        "reason": "Bet recognition read 250.00 for a 500.00 stake on seat 2.",
        "recorded_at": "2026-03-01T14:05:09Z",
        "recorded_by": "device 'bet recognition' (BB1)",
        "wagers": [WAGERS[0]],
        "standing": COUP,
    },
    "Supplement": {
        "sequence": 1,
        "status": "variance",
        "currency": "USD",
        "change": "5.00",
        "expected": "30.00",
        "counted": "25.00",
        "variance": "-5.00",
        "recorded_at": "2026-03-01T15:10:00Z",
        "seats": [SUPPLEMENT_SEAT],
    },
    "SupplementSeat": SUPPLEMENT_SEAT,
    "Rotation": {
        "id": 31,
        "table": "BB1",
        "dealer": "D042",
        "started_at": "2026-03-01T14:00:00Z",
        "recorded_at": "2026-03-01T14:00:02Z",
    },
    "Fault": {
        "violation": 5012,
        "fault": "device",
        "note": "The card reader misread the third card.",
        "decided_by": "maria",
        "decided_at": "2026-03-01T16:20:00Z",
    },
    "Meter": {
        "code": "PP1",
        "name": "Player Pair jackpot",
        "bet": "player_pair",
        "currency": "USD",
        "amount": "10412.35",
        "base": "10000.00",
        "reset": "10000.00",
        "rate": "0.050000",
        "tables": ["BB1", "BB2", "MB1"],
        "configuration": 1,
        "contributions": "397.35",
        "carried": "15.00",
        "payouts": 0,
    },
    "Payout": {
        "id": 3,
        "meter": "PP1",
        "coup": 8121,
        "table": "BB1",
        "seat": 7,
        "amount": "10412.35",
        "reset": "10000.00",
        "paid_by": "maria",
        "witnessed_by": "cashier",
        "note": "",
        "recorded_at": "2026-11-29T21:20:00Z",
    },
    "DealerFigures": {
        "dealer": "D042",
        "name": "Ana Lima",
        "coups": 612,
        "hours": "7.50",
        "coups_per_hour": "81.6",
        "errors_per_1000_coups": {"payout_mismatch": "3.27"},
        "errors": {"payout_mismatch": 2},
        "device_faults": 1,
        "mispays": 2,
        "mispaid": {"USD": "45.00"},
    },
    "Error": {
        "status": 400,
        "code": "invalid",
        "message": "The request has errors; see `errors`.",
        "errors": {"wagers[2].amount": ["The amount must be more than zero."]},
        "details": {},
    },
}
