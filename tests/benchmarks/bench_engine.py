"""Benchmark of the game engine: exact odds (full and depleted 8-deck shoes), verify_coups throughput,
settlement throughput. Prints FIGURE<TAB>name<TAB>value<TAB>unit lines; asserts nothing about time.

    python tests/benchmarks/bench_engine.py
"""

from __future__ import annotations

import io
import json
import os
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pit.settings.test")

from pit.game import (  # noqa: E402 (the repository root must be on sys.path first)
    ALL_CARD_CODES,
    PRESETS,
    composition_after,
    evaluate,
    exact_odds,
    new_shoe,
    settle,
    verify_json_lines,
)
from pit.game.odds import _outcome_weights  # noqa: E402

ODDS_RUNS = 7
COUPS = 200_000


def figure(name: str, value: float, unit: str, digits: int = 1) -> None:
    print(f"FIGURE\t{name}\t{value:.{digits}f}\t{unit}", flush=True)


def median_ms(runs: list[float]) -> float:
    return statistics.median(runs) * 1000


def bench_exact_odds() -> None:
    paytable = PRESETS["commission_box"]
    runs = []
    for _ in range(ODDS_RUNS):
        _outcome_weights.cache_clear()  # a cold computation, as on a paytable save after restart
        started = time.perf_counter()
        exact_odds(paytable, 8)
        runs.append(time.perf_counter() - started)
    figure("exact_odds_8_decks_full_median", median_ms(runs), "ms")

    started = time.perf_counter()
    for _ in range(100):
        exact_odds(paytable, 8)
    figure("exact_odds_8_decks_cached", (time.perf_counter() - started) * 10, "ms", 2)

    rng = random.Random(8)
    runs = []
    for _ in range(ODDS_RUNS):
        deck = list(ALL_CARD_CODES) * 8
        seen = rng.sample(deck, 200)
        composition = composition_after(8, seen)
        started = time.perf_counter()
        exact_odds(paytable, composition)
        runs.append(time.perf_counter() - started)
    figure("exact_odds_8_decks_200_removed_median", median_ms(runs), "ms")


def coup_lines(count: int) -> list[str]:
    """Realistic input: coups dealt from seeded shoes, 2% with a wrong draw, 1% unreadable."""
    rng = random.Random(20240501)
    shoe = new_shoe(8, rng)
    lines = []
    for number in range(count):
        if len(shoe) < 20:
            shoe = new_shoe(8, rng)
        coup = shoe.deal_coup()
        player, banker = [c.code for c in coup.player], [c.code for c in coup.banker]
        roll = rng.random()
        if roll < 0.02:
            banker = banker[:2] if len(banker) == 3 else [*banker, "4C"]
        elif roll < 0.03:
            player = [*player[:1], "1X"]
        winner = evaluate(coup).winner.value
        lines.append(
            json.dumps({"player": player, "banker": banker, "reported_winner": winner, "ref": number})
        )
    return lines


def bench_verify_coups() -> None:
    lines = coup_lines(COUPS)
    started = time.perf_counter()
    produced = sum(1 for _ in verify_json_lines(lines))
    elapsed = time.perf_counter() - started
    assert produced == COUPS
    figure("verify_coups_function_throughput", COUPS / elapsed, "coups/s", 0)

    try:
        import django
        from django.core.management import call_command
    except ImportError:  # the engine alone can be benchmarked without Django installed
        return
    django.setup()
    stdin = io.StringIO("\n".join(lines) + "\n")
    started = time.perf_counter()
    call_command("verify_coups", "-", stdin=stdin, stdout=io.StringIO(), stderr=io.StringIO())
    elapsed = time.perf_counter() - started
    figure("verify_coups_command_throughput", COUPS / elapsed, "coups/s", 0)


def bench_settle() -> None:
    paytable = PRESETS["mini_commission_box"]
    rng = random.Random(5)
    shoe = new_shoe(8, rng)
    evaluations = []
    for _ in range(20_000):
        if len(shoe) < 20:
            shoe = new_shoe(8, rng)
        evaluations.append(evaluate(shoe.deal_coup()))
    bets = ["player", "banker", "tie", "player_pair", "banker_pair"]
    amount = Decimal("25")
    started = time.perf_counter()
    for index, evaluation in enumerate(evaluations):
        settle(paytable, bets[index % 5], amount, evaluation)
    elapsed = time.perf_counter() - started
    figure("settle_throughput", len(evaluations) / elapsed, "wagers/s", 0)


def main() -> None:
    print(f"engine benchmark: {ODDS_RUNS} runs per odds figure, {COUPS} coups for verify_coups", flush=True)
    bench_exact_odds()
    bench_verify_coups()
    bench_settle()


if __name__ == "__main__":
    main()
