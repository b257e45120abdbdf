"""Writes to paytable configurations: built from the engine's presets or edited, always versioned.

Every save computes the exact house edge of every bet with the engine; a configuration where a
bet gives the player the edge is refused unless it carries an override reason.
"""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from pit import game
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable

# House edges are computed for a full shoe of this many decks, the pit's usual shoe.
EDGE_DECKS = 8


def _house_edges(rules: dict) -> tuple[dict, list[str]]:
    """The engine's exact edge and variance per bet, and the bets that favour the player."""
    paytable = engine_paytable(rules)
    odds = game.exact_odds(paytable, EDGE_DECKS)
    edges, player_favoured = {}, []
    for bet, bet_odds in odds.bets.items():
        edges[bet] = {
            "house_edge": str(game.fraction_to_decimal(bet_odds.house_edge, 10)),
            "variance": str(game.fraction_to_decimal(bet_odds.variance, 10)),
        }
        if bet_odds.house_edge < 0:
            player_favoured.append(bet)
    return edges, player_favoured


def _checked_rules(rules: dict | game.Paytable, override_reason: str) -> tuple[dict, dict]:
    if isinstance(rules, game.Paytable):
        rules = rules.to_dict()
    try:
        rules = game.Paytable.from_dict(rules).to_dict()
    except (game.InvalidPaytable, ValueError, TypeError, KeyError) as exc:
        raise ValidationError({"rules": str(exc)}) from exc
    edges, player_favoured = _house_edges(rules)
    if player_favoured and not override_reason.strip():
        details = ", ".join(
            f"{bet} (house edge {Decimal(edges[bet]['house_edge']) * 100:.4f}%)" for bet in player_favoured
        )
        raise ValidationError(
            {
                "override_reason": gettext(
                    "These bets give the player the edge: {details}. Give an override "
                    "reason to accept the configuration anyway."
                ).format(details=details)
            }
        )
    return rules, edges


@transaction.atomic
def paytable_create(
    *, code: str, name: str, rules: dict | game.Paytable, preset: str = "", override_reason: str = "", user=None
) -> PaytableConfiguration:
    """The first version of a new paytable family."""
    rules, edges = _checked_rules(rules, override_reason)
    configuration = PaytableConfiguration(
        code=code,
        version=1,
        name=name,
        preset=preset,
        rules=rules,
        house_edges=edges,
        override_reason=override_reason.strip(),
        created_by=user,
    )
    configuration.full_clean()
    configuration.save()
    return configuration


def paytable_create_from_preset(*, preset: str, code: str = "", name: str = "", user=None) -> PaytableConfiguration:
    try:
        paytable = game.PRESETS[preset]
    except KeyError:
        raise ValidationError(
            {
                "preset": gettext("{preset!r} is not a preset; choose one of {names}").format(
                    preset=preset, names=", ".join(sorted(game.PRESETS))
                )
            }
        ) from None
    return paytable_create(
        code=code or preset.replace("_", "-"), name=name or paytable.name, rules=paytable, preset=preset, user=user
    )


def paytable_has_settled(configuration: PaytableConfiguration) -> bool:
    return configuration.coups.exists()


@transaction.atomic
def paytable_update(
    *,
    configuration: PaytableConfiguration,
    rules: dict | game.Paytable,
    name: str | None = None,
    override_reason: str | None = None,
) -> PaytableConfiguration:
    """Edit a version that has not settled any coup yet; one that has must be superseded."""
    configuration = PaytableConfiguration.objects.select_for_update().get(pk=configuration.pk)
    if paytable_has_settled(configuration):
        raise ValidationError(
            gettext(
                "{configuration} has settled coups and can never be edited again; supersede it with a new version."
            ).format(configuration=configuration)
        )
    reason = configuration.override_reason if override_reason is None else override_reason
    configuration.rules, configuration.house_edges = _checked_rules(rules, reason)
    configuration.override_reason = reason.strip()
    if name is not None:
        configuration.name = name
    configuration.full_clean()
    configuration.save(update_fields=PaytableConfiguration.fact_updatable)
    return configuration


@transaction.atomic
def paytable_supersede(
    *,
    configuration: PaytableConfiguration,
    rules: dict | game.Paytable,
    name: str | None = None,
    override_reason: str = "",
    user=None,
) -> PaytableConfiguration:
    """A new version of the family; tables playing the old version move to it for their next coups."""
    configuration = PaytableConfiguration.objects.select_for_update().get(pk=configuration.pk)
    if hasattr(configuration, "superseded_by"):
        raise ValidationError(
            gettext("{configuration} is already superseded by {configuration_superseded_by}.").format(
                configuration=configuration, configuration_superseded_by=configuration.superseded_by
            )
        )
    rules, edges = _checked_rules(rules, override_reason)
    successor = PaytableConfiguration(
        code=configuration.code,
        version=configuration.version + 1,
        name=name or configuration.name,
        preset=configuration.preset,
        rules=rules,
        house_edges=edges,
        override_reason=override_reason.strip(),
        supersedes=configuration,
        created_by=user,
    )
    successor.full_clean()
    successor.save()
    configuration.tables.update(paytable=successor)
    return successor
