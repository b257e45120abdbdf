"""The engine's management commands: verify_coups (JSON lines in, JSON lines out) and odds."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from pit.game import PRESETS

GOOD = '{"player": ["5H","KD","2C"], "banker": ["9S","7D"], "reported_winner": "player", "ref": "c1"}'
WRONG = '{"player": ["5H","KD"], "banker": ["9S","7D","2C"], "reported_winner": "player", "ref": 2}'
BAD_CARD = '{"player": ["5H","1X"], "banker": ["9S","7D"], "ref": 3}'


def verify(text=None, path=None):
    out, err = StringIO(), StringIO()
    if path is None:
        call_command("verify_coups", "-", stdin=StringIO(text), stdout=out, stderr=err)
    else:
        call_command("verify_coups", str(path), stdout=out, stderr=err)
    return [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_verify_coups_from_stdin():
    results, summary = verify("\n".join([GOOD, WRONG, "{not json", BAD_CARD, ""]) + "\n")
    assert results == [
        {
            "player_total": 7,
            "banker_total": 6,
            "winner": "player",
            "natural": False,
            "player_pair": False,
            "banker_pair": False,
            "violations": [],
            "ref": "c1",
        },
        {
            "player_total": 5,
            "banker_total": 8,
            "winner": "banker",
            "natural": False,
            "player_pair": False,
            "banker_pair": False,
            "violations": [
                {
                    "code": "player_missing_card",
                    "message": "Player stood on 5; the rule says Player draws on 0 to 5.",
                },
                {
                    "code": "banker_extra_card",
                    "message": "Banker drew a third card (2♣) on 6 after Player stood; "
                    "the rule says Banker stands "
                    "(when Player stands, Banker draws on 0 to 5 and stands on 6 or 7).",
                },
                {
                    "code": "reported_winner_mismatch",
                    "message": "Reported winner is Player, but the cards give Banker 8 over Player 5.",
                },
            ],
            "ref": 2,
        },
        {
            "line": 3,
            "error": "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        },
        {
            "line": 4,
            "error": "player card 2: '1X' is not a card code (rank A,2-9,T/10,J,Q,K then suit S,H,D,C)",
            "ref": 3,
        },
    ]
    assert summary.strip() == "2 coups verified: 1 with rule violations (3 in all), 2 lines could not be read."


def test_verify_coups_from_a_file(tmp_path):
    path = tmp_path / "coups.jsonl"
    path.write_text(GOOD + "\n" + WRONG + "\n", encoding="utf-8")
    results, _ = verify(path=path)
    assert [r["ref"] for r in results] == ["c1", 2]
    assert [len(r["violations"]) for r in results] == [0, 3]


def test_verify_coups_reports_undecodable_bytes_as_a_bad_line(tmp_path):
    path = tmp_path / "coups.jsonl"
    path.write_bytes(GOOD.encode() + b"\n\xff\xfe\n" + GOOD.encode() + b"\n")
    results, _ = verify(path=path)
    assert [r.get("line") for r in results] == [None, 2, None]
    assert results[1]["error"].startswith("not valid JSON")


def test_verify_coups_missing_file(tmp_path):
    with pytest.raises(CommandError, match="cannot read .*missing.jsonl: No such file or directory"):
        call_command("verify_coups", str(tmp_path / "missing.jsonl"), stdout=StringIO(), stderr=StringIO())


def odds(*args):
    out = StringIO()
    call_command("odds", *args, stdout=out)
    return out.getvalue()


def test_odds_table_for_the_default_preset():
    text = odds("--decks", "8", "--preset", "commission_box")
    lines = text.splitlines()
    assert lines[0] == "Paytable commission_box: 8-deck shoe, 416 cards left"
    assert "banker_wins  0.458597" in lines
    assert "player_wins  0.446247" in lines
    assert "tie          0.095156" in lines
    banker = next(line for line in lines if line.startswith("banker "))
    assert banker.split() == ["banker", "1.0579%", "0.860019", "0.458597", "0.095156", "0.446247"]
    assert "banker: push on tie; 1:1 less 5% commission on banker_wins" in lines
    assert "FAVOURS THE PLAYER" not in text


def test_odds_json():
    data = json.loads(odds("--preset", "ez_baccarat", "--json"))
    assert data["cards"] == 416
    assert data["outcome_probabilities"]["banker_wins_three_card_7"] == "0.022533820860"
    assert data["bets"]["dragon_7"]["house_edge"] == "0.076113344724"
    assert data["bets"]["panda_8"]["house_edge"] == "0.101876321693"
    assert set(data["bets"]) == set(PRESETS["ez_baccarat"].bets)
    assert all(isinstance(o["probability"], str) for o in data["bets"]["banker"]["outcomes"])


def test_odds_for_a_depleted_shoe_and_other_places():
    data = json.loads(odds("--decks", "6", "--seen", "AS, KD 5C", "--json", "--places", "4"))
    assert data["cards"] == 309
    assert data["composition"]["A"] == 23 and data["composition"]["K"] == 23
    assert data["bets"]["banker"]["house_edge"] == "0.0106"


def test_odds_flags_a_paytable_that_favours_the_player(tmp_path):
    table = PRESETS["commission_box"].to_dict()
    table["name"] = "either_pair_11_to_1"
    table["bets"]["either_pair"] = {"rules": [{"when": ["either_pair"], "result": "win", "odds": "11:1"}]}
    path = tmp_path / "paytable.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    text = odds("--paytable", str(path))
    flagged = [line for line in text.splitlines() if "FAVOURS THE PLAYER" in line]
    assert [line.split()[0] for line in flagged] == ["either_pair"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seen", "1X"], "'1X' is not a card code"),
        (["--decks", "0"], "a shoe holds at least one deck, not 0"),
        (["--decks", "1", "--seen", "AS AH AD AC AS"], "5 aces seen, but the shoe holds only 4"),
    ],
)
def test_odds_errors(args, message):
    with pytest.raises(CommandError, match=message):
        odds(*args)


def test_odds_refuses_a_bad_paytable_file(tmp_path):
    table = PRESETS["commission_box"].to_dict()
    table["bets"]["tie"]["rules"][0]["when"] = ["ties"]
    path = tmp_path / "paytable.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    with pytest.raises(CommandError, match="bet 'tie', rule 1: unknown fact 'ties'"):
        odds("--paytable", str(path))
    path.write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="paytable.json: Expecting property name"):
        odds("--paytable", str(path))


def test_odds_prices_a_suit_bet_from_the_suits_seen():
    # The same ranks seen, other suits: Perfect Pair is worth another amount, the pairs the same.
    hearts = json.loads(odds("--preset", "perfect_pair", "--seen", "5H 5H 5H KH KH KH", "--json"))
    spread = json.loads(odds("--preset", "perfect_pair", "--seen", "5H 5D 5S KH KC KS", "--json"))
    assert hearts["bets"]["perfect_pair"]["house_edge"] != spread["bets"]["perfect_pair"]["house_edge"]
    assert hearts["bets"]["player_pair"] == spread["bets"]["player_pair"]
    assert json.loads(odds("--preset", "perfect_pair", "--json"))["bets"]["perfect_pair"]["house_edge"] == (
        "0.130293909610"
    )
