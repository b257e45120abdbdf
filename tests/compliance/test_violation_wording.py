"""Violations in the reader's language: the recorded English sentence stays the record; the screens
word it from the code (its title, and its whole sentence where the message has one of the code's
forms), in English exactly as recorded."""

import re

import pytest
from django.utils import translation

from pit import game
from pit.compliance.wording import CODE_TITLES, PHRASES, SENTENCES, violation_sentence, violation_title
from pit.game import verification
from pit.game.cards import parse_card
from pit.game.coup import Coup
from tests.catalogs import catalogs  # noqa: F401 - the fixture


def _coup(player: list[str], banker: list[str]) -> Coup:
    return Coup(tuple(map(parse_card, player)), tuple(map(parse_card, banker)))


@pytest.fixture
def zh_hant(catalogs):  # noqa: F811 - the fixture imported above
    with translation.override("zh-hant"):
        yield


def test_every_registered_code_has_its_title_marked_in_the_engines_words():
    assert set(CODE_TITLES) == set(game.VIOLATION_CODES)
    with translation.override(None):
        for code, kind in game.VIOLATION_CODES.items():
            assert str(CODE_TITLES[code]) == kind.title, code
    assert set(SENTENCES) <= set(game.VIOLATION_CODES)


def test_every_code_title_and_every_form_is_translated_in_both_catalogs(catalogs):  # noqa: F811
    forms = [*CODE_TITLES.values(), *(form for forms in SENTENCES.values() for form in forms)]
    forms += [phrase for phrases in PHRASES.values() for phrase in phrases]
    for language in ("zh-hant", "zh-hans"):
        with translation.override(None):
            english = [str(form) for form in forms]
        with translation.override(language):
            worded = [str(form) for form in forms]
        untranslated = [text for text, words in zip(english, worded, strict=True) if text == words]
        assert not untranslated, (language, untranslated)
        for text, words in zip(english, worded, strict=True):
            assert sorted(re.findall(r"%\(\w+\)s", text)) == sorted(re.findall(r"%\(\w+\)s", words)), text


@pytest.mark.parametrize(
    ("violation", "hant", "hans"),
    [
        (
            verification.play_at_closed_table(7, "BB1"),
            "第 7 局在賭枱 BB1 關閉時登記。",
            "第 7 局在赌台 BB1 关闭时登记。",
        ),
        (
            verification.check_coup_number(9, 6),
            "第 9 局在第 6 局之後登記；缺少第 7 至 8 局。",
            "第 9 局在第 6 局之后登记；缺少第 7 至 8 局。",
        ),
        (
            verification.verify_coup(_coup(["2H", "KD", "5S"], ["3C", "2S"]))[0],
            "莊家 5 點在閒家第三張牌 5♠ 之後停牌；規則規定莊家補牌（閒家第三張牌是 4 至 7 時，莊家 5 點補牌）。",
            "庄家 5 点在闲家第三张牌 5♠ 之后停牌；规则规定庄家补牌（闲家第三张牌是 4 至 7 时，庄家 5 点补牌）。",
        ),
        (
            verification.verify_coup(_coup(["9H", "KD"], ["3C", "2S", "4D"]), "player")[0],
            "閒家已是天牌 9 點，莊家仍補了第三張牌（4♦）；天牌時雙方均停牌。",
            "闲家已是天牌 9 点，庄家仍补了第三张牌（4♦）；天牌时双方均停牌。",
        ),
        (
            verification.verify_coup(_coup(["9H", "KD"], ["3C", "2S", "4D"]), "banker")[1],
            "報告的勝方是莊家，但牌面結果是9 點和局。",
            "报告的胜方是庄家，但牌面结果是9 点和局。",
        ),
    ],
    ids=["closed-table", "gap", "banker-stood", "natural", "winner"],
)
def test_the_engines_sentences_are_worded_again_with_their_figures(violation, hant, hans, catalogs):  # noqa: F811
    message = violation.message
    with translation.override("en-us"):
        assert violation_sentence(violation.code, message) == message  # English: as recorded
    with translation.override("zh-hant"):
        worded = violation_sentence(violation.code, message)
    assert worded == hant
    with translation.override("zh-hans"):
        assert violation_sentence(violation.code, message) == hans


def test_a_sentence_without_a_form_shows_the_title_and_the_recorded_words(zh_hant):
    message = "Paid 90.00 on seat 3's Banker 100.00; the paytable owes 95.00."
    assert violation_sentence("payout_mismatch", message) == f"派彩與賠率表不符。原始紀錄：{message}"
    assert violation_title("payout_mismatch") == "派彩與賠率表不符"
    assert violation_sentence("not_a_code", "As it was.") == "As it was."
