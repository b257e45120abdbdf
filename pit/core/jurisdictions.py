"""The jurisdictions whose table-games rules pit follows: each a preset of the values its internal
controls read (limit-change notice, grandfathering, surveillance acknowledgement, large fills, the
errors reported to the regulator and their deadlines), each value with the rule it comes from.

`PIT_JURISDICTION` chooses the preset; a setting of its own overrides any one value (`PIT_LIMIT_NOTICE_MINUTES`
...). `jurisdiction()` is the one read of them all. Design: docs/design/notices.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# The kinds of error a regulator wants reported (RegulatorRule.source): what pit measures.
INVENTORY_DISCREPANCY = "inventory_discrepancy"  # an opener against the table's previous closer
SLIP_DISCREPANCY = "slip_discrepancy"  # a fill or credit counted with other chips than its slip
SOURCES = (INVENTORY_DISCREPANCY, SLIP_DISCREPANCY)


@dataclass(frozen=True)
class RegulatorRule:
    """An error the regulator wants reported: more than `threshold` (in the table's currency units)
    of `source`, reported within `deadline_hours` of being found."""

    code: str  # a short machine name, unique within its jurisdiction
    source: str
    threshold: Decimal
    deadline_hours: int
    rule: str  # the rule, as cited

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ImproperlyConfigured(f"regulator rule {self.code}: {self.source!r} is not one of {SOURCES}")


@dataclass(frozen=True)
class Jurisdiction:
    code: str
    name: str
    # A limit change that raises a minimum or lowers a maximum while players are seated takes effect
    # this many minutes after it is announced (0: at once).
    limit_notice_minutes: int
    limit_notice_rule: str
    # Players seated when the minimum rises keep the minimum they sat down under until they leave.
    grandfathering: bool
    grandfathering_rule: str
    # A seat is still "seated" while its wagers follow each other with no gap longer than this.
    continuous_play_minutes: int
    # What the pit tells surveillance is acknowledged within this many minutes, or it is a finding.
    surveillance_ack_minutes: int
    surveillance_rule: str
    # A fill of this much or more (currency units) is notified to surveillance.
    large_fill: Decimal
    # The errors reported to the regulator, and how long before a deadline an unfiled notice alarms.
    regulator_rules: tuple[RegulatorRule, ...]
    regulator_warn_hours: int
    # Fill and credit slips come from one numbered series per casino; a gap is a finding.
    slip_series_rule: str


HOUSE = Jurisdiction(
    code="house",
    name="House rules (no jurisdiction chosen)",
    limit_notice_minutes=0,
    limit_notice_rule="none: a limit change takes effect when it is set",
    grandfathering=False,
    grandfathering_rule="none",
    continuous_play_minutes=15,
    surveillance_ack_minutes=15,
    surveillance_rule="house: surveillance acknowledges within 15 minutes",
    large_fill=Decimal("10000"),
    regulator_rules=(),
    regulator_warn_hours=4,
    slip_series_rule="Louisiana LAC 42:III.2717 practice: one numbered series, every number accounted for",
)

PRESETS: dict[str, Jurisdiction] = {
    preset.code: preset
    for preset in (
        HOUSE,
        dataclasses.replace(
            HOUSE,
            code="us-md",
            name="Maryland",
            limit_notice_minutes=30,
            limit_notice_rule="COMAR 36.05.03.21: at least 30 minutes' notice, a sign with the effective time, "
            "an announcement",
        ),
        dataclasses.replace(
            HOUSE,
            code="us-oh",
            name="Ohio",
            limit_notice_minutes=30,
            limit_notice_rule="OAC 3772-11-04: a posted change of limits with notice to the players",
            grandfathering=True,
            grandfathering_rule="OAC 3772-11-04: players seated when the minimum rises keep the old minimum "
            "until they leave",
        ),
        dataclasses.replace(
            HOUSE,
            code="us-nj",
            name="New Jersey",
            limit_notice_minutes=20,
            limit_notice_rule="N.J.A.C. 13:69F (limits posted at the table; house notice of 20 minutes, "
            "confirm locally)",
            grandfathering=True,
            grandfathering_rule="N.J.A.C. 13:69F (house practice: seated players keep the posted minimum; "
            "confirm locally)",
            regulator_rules=(
                RegulatorRule(
                    "nj_inventory",
                    INVENTORY_DISCREPANCY,
                    Decimal("100"),
                    24,
                    "N.J.A.C. 13:69D (table inventory discrepancies over $100 reported to the Division)",
                ),
            ),
        ),
        dataclasses.replace(
            HOUSE,
            code="us-wa",
            name="Washington",
            regulator_rules=(
                RegulatorRule(
                    "wa_opener_closer",
                    INVENTORY_DISCREPANCY,
                    Decimal("200"),
                    24,
                    "WAC 230-15-495: opener/closer discrepancies over $200 reported within 24 hours",
                ),
                RegulatorRule(
                    "wa_slip",
                    SLIP_DISCREPANCY,
                    Decimal("200"),
                    24,
                    "WAC 230-15-495: fill/credit discrepancies over $200 reported within 24 hours",
                ),
            ),
        ),
        dataclasses.replace(
            HOUSE,
            code="mo",
            name="Macau",
            limit_notice_minutes=30,
            limit_notice_rule="DICJ (house value of 30 minutes; confirm against the current instruction)",
            large_fill=Decimal("500000"),
        ),
        dataclasses.replace(
            HOUSE,
            code="sg",
            name="Singapore",
            limit_notice_minutes=30,
            limit_notice_rule="Casino Control (Internal Controls) Regulations (house value of 30 minutes; "
            "confirm against the approved ICS)",
            grandfathering=True,
            grandfathering_rule="GRA-approved internal controls (house practice; confirm against the approved ICS)",
            large_fill=Decimal("50000"),
            regulator_rules=(
                RegulatorRule(
                    "sg_inventory",
                    INVENTORY_DISCREPANCY,
                    Decimal("1000"),
                    24,
                    "GRA-approved internal controls (house threshold of $1,000 within 24 hours; confirm)",
                ),
            ),
        ),
    )
}

# Setting -> (Jurisdiction field, reader of the setting's value). A setting left None keeps the preset's.
OVERRIDES: dict[str, str] = {
    "PIT_LIMIT_NOTICE_MINUTES": "limit_notice_minutes",
    "PIT_LIMIT_GRANDFATHERING": "grandfathering",
    "PIT_SEAT_CONTINUOUS_PLAY_MINUTES": "continuous_play_minutes",
    "PIT_SURVEILLANCE_ACK_MINUTES": "surveillance_ack_minutes",
    "PIT_SURVEILLANCE_LARGE_FILL": "large_fill",
    "PIT_REGULATOR_WARN_HOURS": "regulator_warn_hours",
}


def jurisdiction() -> Jurisdiction:
    """The jurisdiction in force: the preset `PIT_JURISDICTION` names, with each override setting
    that is not None in place of the preset's value."""
    code = getattr(settings, "PIT_JURISDICTION", HOUSE.code) or HOUSE.code
    try:
        preset = PRESETS[code]
    except KeyError:
        raise ImproperlyConfigured(f"PIT_JURISDICTION={code!r} is not one of {', '.join(PRESETS)}") from None
    changes: dict[str, Any] = {}
    for setting, field in OVERRIDES.items():
        value = getattr(settings, setting, None)
        if value is None:
            continue
        if field == "large_fill":
            value = Decimal(str(value))
        elif field == "grandfathering":
            value = bool(value)
        else:
            value = int(value)
            if value < 0:
                raise ImproperlyConfigured(f"{setting} is a number of minutes or hours, at least 0")
        changes[field] = value
    return dataclasses.replace(preset, **changes) if changes else preset
