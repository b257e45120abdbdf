"""Paytable configurations: presets, exact house edges, the player-edge guard, versioning."""

import copy

import pytest
from django.core.exceptions import ValidationError

from pit import game
from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import (
    paytable_create,
    paytable_create_from_preset,
    paytable_supersede,
    paytable_update,
)
from tests import factories

pytestmark = pytest.mark.django_db

COMMISSION_BOX_EDGES = {
    "banker": {"house_edge": "0.0105790578", "variance": "0.8600188668"},
    "banker_pair": {"house_edge": "0.1036144578", "variance": "9.9531194658"},
    "player": {"house_edge": "0.0123508133", "variance": "0.9046914894"},
    "player_pair": {"house_edge": "0.1036144578", "variance": "9.9531194658"},
    "tie": {"house_edge": "0.1435962878", "variance": "6.9742060916"},
}


def with_either_pair(rules: dict, odds: str = "11:1") -> dict:
    rules = copy.deepcopy(rules)
    rules["bets"]["either_pair"] = {
        "rules": [{"when": ["either_pair"], "result": "win", "odds": odds, "commission": False}]
    }
    return rules


def test_preset_stores_rules_and_exact_house_edges():
    configuration = paytable_create_from_preset(preset="commission_box")
    configuration.refresh_from_db()
    assert (configuration.code, configuration.version, configuration.preset) == (
        "commission-box",
        1,
        "commission_box",
    )
    assert configuration.rules == game.PRESETS["commission_box"].to_dict()
    assert configuration.house_edges == COMMISSION_BOX_EDGES
    assert configuration.override_reason == ""


@pytest.mark.parametrize(
    ("preset", "bet", "edge"),
    [
        ("commission_deducted", "banker", "0.0105790578"),
        ("no_commission", "banker", "0.0145810446"),
        ("ez_baccarat", "banker", "0.0101830076"),
        ("ez_baccarat", "dragon_7", "0.0761133447"),
        ("ez_baccarat", "panda_8", "0.1018763217"),
    ],
)
def test_house_edges_of_other_presets(preset, bet, edge):
    assert paytable_create_from_preset(preset=preset).house_edges[bet]["house_edge"] == edge


def test_unknown_preset_is_refused():
    with pytest.raises(ValidationError) as caught:
        paytable_create_from_preset(preset="punto_loco")
    assert list(caught.value.message_dict) == ["preset"]
    assert PaytableConfiguration.objects.count() == 0


def test_malformed_rules_are_refused_by_field():
    rules = game.PRESETS["commission_box"].to_dict()
    rules["commission_rate"] = 0.05  # a float
    with pytest.raises(ValidationError) as caught:
        paytable_create(code="bad", name="Bad", rules=rules)
    assert list(caught.value.message_dict) == ["rules"]
    assert PaytableConfiguration.objects.count() == 0


def test_player_favoured_bet_needs_an_override_reason():
    rules = with_either_pair(game.PRESETS["commission_box"].to_dict())
    with pytest.raises(ValidationError) as caught:
        paytable_create(code="either", name="Either pair 11:1", rules=rules)
    assert caught.value.message_dict["override_reason"] == [
        "These bets give the player the edge: either_pair (house edge -72.5802%). "
        "Give an override reason to accept the configuration anyway."
    ]
    with pytest.raises(ValidationError):
        paytable_create(code="either", name="Either pair 11:1", rules=rules, override_reason="   ")
    assert PaytableConfiguration.objects.count() == 0

    accepted = paytable_create(
        code="either", name="Either pair 11:1", rules=rules, override_reason=" Promotion approved by J. Doe. "
    )
    accepted.refresh_from_db()
    assert accepted.override_reason == "Promotion approved by J. Doe."
    assert accepted.house_edges["either_pair"] == {"house_edge": "-0.7258024624", "variance": "17.7312354096"}


def test_update_before_any_coup_edits_in_place():
    configuration = paytable_create_from_preset(preset="commission_box")
    rules = game.PRESETS["commission_box"].to_dict()
    rules["bets"]["tie"]["rules"][0]["odds"] = "9:1"
    updated = paytable_update(configuration=configuration, rules=rules, name="Tie 9 to 1")
    updated.refresh_from_db()
    assert (updated.pk, updated.version, updated.name) == (configuration.pk, 1, "Tie 9 to 1")
    assert updated.rules["bets"]["tie"]["rules"][0]["odds"] == "9:1"
    assert updated.house_edges["tie"]["house_edge"] != COMMISSION_BOX_EDGES["tie"]["house_edge"]


def test_update_to_player_favoured_needs_a_reason_and_keeps_the_old_rules():
    configuration = paytable_create_from_preset(preset="commission_box")
    with pytest.raises(ValidationError) as caught:
        paytable_update(configuration=configuration, rules=with_either_pair(configuration.rules))
    assert list(caught.value.message_dict) == ["override_reason"]
    configuration.refresh_from_db()
    assert "either_pair" not in configuration.rules


def test_update_refused_after_settling_a_coup():
    table = factories.table()
    configuration = table.paytable
    factories.coup(factories.shoe(table), 1, ["2H", "5D"], ["4C", "5S"])
    rules = game.PRESETS["commission_box"].to_dict()
    rules["bets"]["tie"]["rules"][0]["odds"] = "9:1"
    with pytest.raises(ValidationError) as caught:
        paytable_update(configuration=configuration, rules=rules)
    assert "supersede it with a new version" in caught.value.messages[0]
    configuration.refresh_from_db()
    assert configuration.rules == game.PRESETS["commission_box"].to_dict()


def test_supersede_moves_tables_and_old_coups_keep_their_version(django_user_model):
    user = django_user_model.objects.create_user("accountant", password="x")
    table = factories.table("BB1")
    other = factories.table("BB2")
    old = table.paytable
    shoe = factories.shoe(table)
    first = factories.coup(shoe, 1, ["2H", "5D"], ["4C", "5S"])
    rules = game.PRESETS["commission_box"].to_dict()
    rules["bets"]["tie"]["rules"][0]["odds"] = "9:1"

    new = paytable_supersede(configuration=old, rules=rules, user=user)

    new.refresh_from_db()
    assert (new.code, new.version, new.supersedes_id, new.created_by_id) == (old.code, 2, old.pk, user.pk)
    assert new.name == old.name
    table.refresh_from_db()
    other.refresh_from_db()
    assert table.paytable_id == other.paytable_id == new.pk
    first.refresh_from_db()
    assert first.paytable_id == old.pk
    second = factories.coup(shoe, 2, ["2H", "5D"], ["4C", "5S"])
    assert second.paytable_id == new.pk
    old.refresh_from_db()
    assert old.rules == game.PRESETS["commission_box"].to_dict()

    with pytest.raises(ValidationError) as caught:
        paytable_supersede(configuration=old, rules=rules)
    assert "already superseded" in caught.value.messages[0]
    assert PaytableConfiguration.objects.filter(code=old.code).count() == 2


def test_supersede_with_a_player_edge_needs_a_reason():
    old = paytable_create_from_preset(preset="commission_box")
    with pytest.raises(ValidationError):
        paytable_supersede(configuration=old, rules=with_either_pair(old.rules))
    assert PaytableConfiguration.objects.count() == 1
    new = paytable_supersede(configuration=old, rules=with_either_pair(old.rules), override_reason="Promo week")
    assert new.override_reason == "Promo week"
