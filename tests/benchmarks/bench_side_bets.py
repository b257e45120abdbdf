"""Benchmark of the exact odds over the 52 kinds of card: every bet of the richest side-bet preset
(`live_side_bets`: Perfect Pair, Dragon Bonus, Big/Small, the Tiger family, Lucky 7, Super Tie on a
commission game) priced on depleted 8-deck shoes, against the rank-only path on the same shoes
(the same paytable less its suit and colour bets, and the plain commission game). Prints
FIGURE<TAB>name<TAB>value<TAB>unit lines; asserts nothing about time. The target: a depleted shoe
with every bet of the richest preset in 5 ms or less.

    python tests/benchmarks/bench_side_bets.py      # PIT_BENCH_SIDE_BET_SHOES (default 60) shoes
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pit.settings.test")

from pit.game import (  # noqa: E402 (the repository root must be on sys.path first)
    ALL_CARD_CODES,
    CARD_FACTS,
    PRESETS,
    Paytable,
    card_composition_after,
    exact_odds,
)

SHOES = int(os.environ.get("PIT_BENCH_SIDE_BET_SHOES", "60"))


def figure(name: str, value: float, unit: str, digits: int = 2) -> None:
    print(f"FIGURE\t{name}\t{value:.{digits}f}\t{unit}", flush=True)


def timed(call, compositions) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of `call` on each composition (the machine is shared: CPU time
    is what the process itself spent)."""
    wall, cpu = [], []
    for composition in compositions:
        started, started_cpu = time.perf_counter(), time.process_time()
        call(composition)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return wall, cpu


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    figure("load_average_1min_at_start", os.getloadavg()[0], "")
    richest = PRESETS["live_side_bets"]
    rank_bets = {
        bet: definition
        for bet, definition in richest.bets.items()
        if not any(rule.when & CARD_FACTS.keys() for rule in definition.rules)
    }
    ranks_only = Paytable(
        name="live_side_bets_ranks",
        bets=rank_bets,
        commission_mode=richest.commission_mode,
        commission_rate=richest.commission_rate,
        commission_rounding=richest.commission_rounding,
    )
    rng = random.Random(32)
    shoes = [
        card_composition_after(8, rng.sample(list(ALL_CARD_CODES) * 8, rng.randrange(60, 330))) for _ in range(SHOES)
    ]
    # Once per process: the composition-free plans and each paytable's verdicts.
    started = time.perf_counter()
    exact_odds(richest, shoes[0])
    figure("card_odds_first_call_in_process", (time.perf_counter() - started) * 1000, "ms", 1)
    for paytable in (ranks_only, PRESETS["commission_box"], PRESETS["perfect_pair"]):
        exact_odds(paytable, shoes[0])

    cases = {
        # Every bet of the richest preset, over 52 kinds with colours (three runs, in one pass).
        "richest_preset_all_bets": (lambda shoe: exact_odds(richest, shoe), shoes),
        # Perfect Pair alone: suits without colours (one run).
        "perfect_pair_preset": (lambda shoe: exact_odds(PRESETS["perfect_pair"], shoe), shoes),
        # The anchor: the same shoes by ranks, the richest preset less its suit and colour bets ...
        "rank_path_richest_rank_bets": (lambda shoe: exact_odds(ranks_only, shoe), [s.ranks() for s in shoes]),
        # ... and the plain commission game, as the rank path priced before side bets.
        "rank_path_commission_box": (
            lambda shoe: exact_odds(PRESETS["commission_box"], shoe),
            [s.ranks() for s in shoes],
        ),
    }
    medians = {}
    for name, (call, compositions) in cases.items():
        wall, cpu = timed(call, compositions)
        medians[name] = statistics.median(wall)
        figure(f"{name}_median", statistics.median(wall) * 1000, "ms")
        figure(f"{name}_p95", p95(wall) * 1000, "ms")
        figure(f"{name}_cpu_median", statistics.median(cpu) * 1000, "ms")
    figure(
        "richest_preset_against_rank_path",
        medians["richest_preset_all_bets"] / medians["rank_path_richest_rank_bets"],
        "x",
    )
    figure("bets_in_richest_preset", len(richest.bets), "bets", 0)
    figure("load_average_1min_at_end", os.getloadavg()[0], "")


if __name__ == "__main__":
    main()
