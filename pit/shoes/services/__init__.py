"""Writes to shoes and coups, one module per flow; the services and values callers use, by name."""

from pit.shoes.services.corrections import coup_correct, coup_correction_preview, coup_void
from pit.shoes.services.coups import ShoeAtOtherTable, coup_record, coups_record
from pit.shoes.services.shoes import shoe_close, shoe_lock, shoe_start
from pit.shoes.services.values import (
    CorrectionOutcome,
    CoupInput,
    CoupOutcome,
    CoupOutcomeStatus,
    SettledWager,
    WagerInput,
)

__all__ = [
    "CorrectionOutcome",
    "CoupInput",
    "CoupOutcome",
    "CoupOutcomeStatus",
    "SettledWager",
    "ShoeAtOtherTable",
    "WagerInput",
    "coup_correct",
    "coup_correction_preview",
    "coup_record",
    "coup_void",
    "coups_record",
    "shoe_close",
    "shoe_lock",
    "shoe_start",
]
