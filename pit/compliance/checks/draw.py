"""The draw rules and the reported winner of a coup (`verify_coup`), with its evaluation for the
wagers' settlement."""

from __future__ import annotations

import logging

from pit import game
from pit.compliance.checks.context import RunContext
from pit.compliance.checks.findings import Finding

logger = logging.getLogger(__name__)


def draw_findings(
    pk: int, player_codes: list[str], banker_codes: list[str], reported: str | None, context: RunContext
) -> tuple[list[Finding], game.Evaluation | None] | None:
    """The coup's draw and winner findings and its evaluation (None when its hands cannot be
    evaluated); None for cards that name no card (nothing of the coup is judged then)."""
    try:
        verdict, evaluation = context.coup_verdict(player_codes, banker_codes, reported or None)
    except (ValueError, game.InvalidCard):
        logger.warning("coup %s: cards that name no card: %s / %s", pk, player_codes, banker_codes)
        return None
    findings = []
    for finding in verdict:
        key = finding.code
        if finding.code == "hand_size":  # one per hand: the message names it first
            key = f"hand_size:{finding.message.split(' ', 1)[0].lower()}"
        findings.append(Finding(f"{key}:coup{pk}", finding, pk))
    return findings, evaluation
