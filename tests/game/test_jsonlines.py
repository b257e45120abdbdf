"""Verifying coups posted as JSON lines: results, errors per line, and the run going on after a bad line."""

import json

import pytest

from pit.game import verify_json_line, verify_json_lines

HINT = "(rank A,2-9,T/10,J,Q,K then suit S,H,D,C)"


def run(*lines):
    return [json.loads(out) for out in verify_json_lines(lines)]


def test_a_good_line():
    line = '{"player": ["5H","KD","2C"], "banker": ["9S","7D"], "reported_winner": "player", "ref": "T3/17"}'
    assert run(line) == [
        {
            "player_total": 7,
            "banker_total": 6,
            "winner": "player",
            "natural": False,
            "player_pair": False,
            "banker_pair": False,
            "violations": [],
            "ref": "T3/17",
        }
    ]


def test_output_is_compact_and_ordered():
    out = list(verify_json_lines(['{"player":["9H","9S"],"banker":["TD","TC"]}']))
    assert out == [
        '{"player_total":8,"banker_total":0,"winner":"player","natural":true,"player_pair":true,'
        '"banker_pair":true,"violations":[]}'
    ]


def test_violations_are_listed_with_code_and_message():
    [result] = run('{"player": ["5H","KD"], "banker": ["9S","7D"], "reported_winner": "player", "ref": 3}')
    assert result["violations"] == [
        {
            "code": "player_missing_card",
            "message": "Player stood on 5; the rule says Player draws on 0 to 5.",
        },
        {
            "code": "reported_winner_mismatch",
            "message": "Reported winner is Player, but the cards give Banker 6 over Player 5.",
        },
    ]
    assert result["ref"] == 3


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            '{"player": ["5H", "1X"], "banker": ["9S", "7D"]}',
            f"player card 2: '1X' is not a card code {HINT}",
        ),
        (
            '{"player": ["5H", "KD"], "banker": ["9S", 7]}',
            f"banker card 2: 7 (int) is not a card code {HINT}",
        ),
        (
            '{"player": ["5H", "KD"], "banker": ["9S", "7D"',
            "not valid JSON: Expecting ',' delimiter: line 1 column 47 (char 46)",
        ),
        ("", None),
        ("not json", "not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        ('["5H"]', "a line must be a JSON object, not list"),
        ('{"banker": ["9S", "7D"]}', "missing field 'player' (a list of card codes)"),
        ('{"player": ["5H", "KD"]}', "missing field 'banker' (a list of card codes)"),
        ('{"player": "5H KD", "banker": ["9S", "7D"]}', "'player' must be a list of card codes, not str"),
        (
            '{"player": ["5H", "KD"], "banker": ["9S", "7D"], "reported_winner": "bank"}',
            "'reported_winner': 'bank' is not a winner (player, banker or tie)",
        ),
        (
            '{"player": ["5H", "KD"], "banker": ["9S", "7D"], "reported_winner": 1}',
            "'reported_winner' must be player, banker or tie, not 1",
        ),
        ("[" * 100000, "not valid JSON: nested too deeply"),
    ],
)
def test_bad_lines_are_reported_by_number(line, error):
    if error is None:
        assert run(line) == []  # blank lines are skipped
        return
    assert verify_json_line(line, 7) == {"line": 7, "error": error}


def test_ref_is_echoed_on_errors_when_readable_and_the_run_goes_on():
    results = run(
        '{"player": ["5H", "XX"], "banker": ["9S", "7D"], "ref": {"table": "T3", "coup": 4}}',
        "",
        '{"player": ["5H", "KD", "2C"], "banker": ["9S", "7D"], "ref": 5}',
        "{oops",
        '{"player": ["5H", "KD", "2C"], "banker": ["9S", "7D"], "reported_winner": null}',
    )
    assert results == [
        {
            "line": 1,
            "error": f"player card 2: 'XX' is not a card code {HINT}",
            "ref": {"table": "T3", "coup": 4},
        },
        {
            "player_total": 7,
            "banker_total": 6,
            "winner": "player",
            "natural": False,
            "player_pair": False,
            "banker_pair": False,
            "violations": [],
            "ref": 5,
        },
        {
            "line": 4,
            "error": "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        },
        {
            "player_total": 7,
            "banker_total": 6,
            "winner": "player",
            "natural": False,
            "player_pair": False,
            "banker_pair": False,
            "violations": [],
        },
    ]


def test_wrong_hand_sizes_are_evaluated_and_reported():
    [result] = run('{"player": ["5H"], "banker": ["9S", "7D", "AC", "2C"]}')
    assert (result["player_total"], result["banker_total"], result["winner"]) == (5, 9, "banker")
    assert [v["code"] for v in result["violations"]] == ["hand_size", "hand_size"]


def test_streams_lazily():
    def lines():
        yield '{"player": ["5H", "KD", "2C"], "banker": ["9S", "7D"]}'
        raise AssertionError("read past the first line")

    assert json.loads(next(verify_json_lines(lines())))["winner"] == "player"
