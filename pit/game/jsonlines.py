"""Verifying coups posted as JSON lines, one result line per coup, in constant memory; the
`verify_coups` command and the benchmark both stream through `verify_json_lines`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .cards import Card, InvalidCard, parse_cards
from .coup import Coup, Winner, evaluate
from .verification import verify_coup

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_decode = json.JSONDecoder().decode


class LineError(ValueError):
    """What is wrong with one input line, in words for whoever posted it."""


def _hand(data: dict[str, Any], side: str) -> tuple[Card, ...]:
    if side not in data:
        raise LineError(f"missing field {side!r} (a list of card codes)")
    codes = data[side]
    if not isinstance(codes, list):
        raise LineError(f"{side!r} must be a list of card codes, not {type(codes).__name__}")
    try:
        return parse_cards(codes)
    except InvalidCard as error:
        raise LineError(f"{side} {error}") from None


def verify_record(data: Any) -> dict[str, Any]:
    """Verify one decoded record: {"player": [...], "banker": [...], "reported_winner"?, "ref"?}."""
    if not isinstance(data, dict):
        raise LineError(f"a line must be a JSON object, not {type(data).__name__}")
    coup = Coup(_hand(data, "player"), _hand(data, "banker"))
    reported = data.get("reported_winner")
    if reported is not None:
        if not isinstance(reported, str):
            raise LineError(f"'reported_winner' must be player, banker or tie, not {reported!r}")
        try:
            reported = Winner.parse(reported)
        except ValueError as error:
            raise LineError(f"'reported_winner': {error}") from None
    outcome = evaluate(coup)
    result: dict[str, Any] = {
        "player_total": outcome.player_total,
        "banker_total": outcome.banker_total,
        "winner": outcome.winner.value,
        "natural": outcome.natural,
        "player_pair": outcome.player_pair,
        "banker_pair": outcome.banker_pair,
        "violations": [{"code": v.code, "message": v.message} for v in verify_coup(coup, reported)],
    }
    if "ref" in data:
        result["ref"] = data["ref"]
    return result


def verify_json_line(line: str, line_number: int) -> dict[str, Any]:
    """The result for one line, or {"line": n, "error": ...} (plus "ref" when readable) if it is bad."""
    data: Any = None
    try:
        data = _decode(line)
        return verify_record(data)
    except json.JSONDecodeError as error:
        failure = {"line": line_number, "error": f"not valid JSON: {error}"}
    except RecursionError:
        failure = {"line": line_number, "error": "not valid JSON: nested too deeply"}
    except LineError as error:
        failure = {"line": line_number, "error": str(error)}
    if isinstance(data, dict) and "ref" in data:
        failure["ref"] = data["ref"]
    return failure


@dataclass
class VerifySummary:
    """Running counts of a verification run (filled in by `verify_json_lines`)."""

    coups: int = 0
    with_violations: int = 0
    violations: int = 0
    errors: int = 0


def verify_json_lines(lines: Iterable[str], summary: VerifySummary | None = None) -> Iterator[str]:
    """One compact JSON result per non-blank input line (numbered from 1), without newlines."""
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        result = verify_json_line(line, line_number)
        if summary is not None:
            if "error" in result:
                summary.errors += 1
            else:
                summary.coups += 1
                if result["violations"]:
                    summary.with_violations += 1
                    summary.violations += len(result["violations"])
        yield _encode(result)
