"""Benchmark of the game engine: exact odds (full and depleted 8-deck shoes, the fast implementation
against the pure-Python reference it replaced), verify_coups throughput,
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
    needs_cards,
    new_shoe,
    settle,
    verify_json_lines,
)
from pit.game.odds import _outcome_weights_reference, exact_odds_reference  # noqa: E402

ODDS_RUNS = 7
# Depleted shoes on which both exact-odds implementations are timed, every preset on each.
COMPARED_SHOES = 15
COUPS = 200_000


def figure(name: str, value: float, unit: str, digits: int = 1) -> None:
    print(f"FIGURE\t{name}\t{value:.{digits}f}\t{unit}", flush=True)


def median_ms(runs: list[float]) -> float:
    return statistics.median(runs) * 1000


def bench_exact_odds() -> None:
    paytable = PRESETS["commission_box"]
    # Once per process and paytable: the composition-free tables of the fast enumeration.
    started = time.perf_counter()
    exact_odds(paytable, 8)
    figure("exact_odds_first_call_in_process", (time.perf_counter() - started) * 1000, "ms")
    runs = []
    for _ in range(ODDS_RUNS):
        started = time.perf_counter()
        exact_odds(paytable, 8)
        runs.append(time.perf_counter() - started)
    figure("exact_odds_8_decks_full_median", median_ms(runs), "ms")

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


def percentile_ms(runs: list[float], share: float) -> float:
    ordered = sorted(runs)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


def bench_exact_odds_against_reference() -> None:
    """Both implementations on the same random depleted 8-deck shoes, every bet of every preset: the
    reference (pure Python, the raw anchor) and the fast one (NumPy), timed call by call."""
    rng = random.Random(14)
    deck = list(ALL_CARD_CODES) * 8
    shoes = [composition_after(8, rng.sample(deck, rng.randint(0, 400))) for _ in range(COMPARED_SHOES)]
    timings: dict[str, list[float]] = {"reference": [], "fast": []}
    # The rank path's presets (suit and colour bets: bench_side_bets).
    presets = [paytable for paytable in PRESETS.values() if not needs_cards(paytable)]
    for paytable in presets:
        exact_odds(paytable, 8)  # the one-time tables per paytable stay out of the timings
    for shoe in shoes:
        for paytable in presets:
            for name, function in (("reference", exact_odds_reference), ("fast", exact_odds)):
                _outcome_weights_reference.cache_clear()  # each call computes its composition anew
                started = time.perf_counter()
                function(paytable, shoe)
                timings[name].append(time.perf_counter() - started)
    for name, runs in timings.items():
        figure(f"exact_odds_{name}_median", median_ms(runs), "ms", 2)
        figure(f"exact_odds_{name}_p99", percentile_ms(runs, 0.99), "ms", 2)
    figure(
        "exact_odds_fast_speedup_median",
        statistics.median(timings["reference"]) / statistics.median(timings["fast"]),
        "x",
    )


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
        lines.append(json.dumps({"player": player, "banker": banker, "reported_winner": winner, "ref": number}))
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
    bench_exact_odds_against_reference()
    bench_verify_coups()
    bench_settle()


if __name__ == "__main__":
    main()
