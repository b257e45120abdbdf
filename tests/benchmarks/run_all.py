"""Run every tests/benchmarks/bench_*.py and print their figures in one table (`make bench`).

Each script runs in its own process (the venv's Python, the repository root as working directory,
this environment passed through) and reports what it measured on stdout, one line per figure:

    FIGURE<TAB>name<TAB>value<TAB>unit

Every other line is shown as it comes. A script that fails is shown as failed and makes the exit
status non-zero; the others still run. Benchmarks print figures, they assert nothing about time.

    python tests/benchmarks/run_all.py [NAME ...]    # only the scripts whose name contains NAME
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent.parent
FIGURE_PREFIX = "FIGURE\t"


@dataclass
class Figure:
    name: str
    value: str
    unit: str


@dataclass
class ScriptResult:
    script: str
    returncode: int
    seconds: float
    figures: list[Figure] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.returncode != 0


def venv_python() -> str:
    candidate = ROOT / ".venv" / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


def parse_figure(line: str) -> Figure | None:
    """A Figure for a line of the exact form FIGURE<TAB>name<TAB>value<TAB>unit, else None."""
    parts = line.rstrip("\r\n").split("\t")
    if len(parts) == 4 and parts[0] == "FIGURE" and parts[1] and parts[2]:
        return Figure(name=parts[1], value=parts[2], unit=parts[3])
    return None


def run_script(path: Path, python: str, out=sys.stdout) -> ScriptResult:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    result = ScriptResult(script=path.name, returncode=0, seconds=0.0)
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 (our own scripts, run with our own interpreter)
        [python, str(path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            figure = parse_figure(line)
            if figure:
                result.figures.append(figure)
            else:
                if line.startswith(FIGURE_PREFIX):
                    out.write(f"  (not a figure: expected FIGURE<TAB>name<TAB>value<TAB>unit) {line}")
                else:
                    out.write(line)
                out.flush()
        result.returncode = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        process.wait()
        raise
    result.seconds = time.perf_counter() - started
    return result


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    cores = f"{usable}" if usable == os.cpu_count() else f"{usable} usable of {os.cpu_count()}"
    return {
        "cpu": cpu,
        "cores": cores,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def table(results: list[ScriptResult]) -> list[str]:
    rows = [("script", "figure", "value", "unit")]
    for result in results:
        for figure in result.figures:
            rows.append((result.script, figure.name, figure.value, figure.unit))
        if result.failed:
            rows.append((result.script, f"FAILED (exit {result.returncode})", "", ""))
        elif not result.figures:
            rows.append((result.script, "(no figures)", "", ""))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for index, (script, name, value, unit) in enumerate(rows):
        lines.append(f"{script:<{widths[0]}}  {name:<{widths[1]}}  {value:>{widths[2]}}  {unit:<{widths[3]}}".rstrip())
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return lines


@dataclass(frozen=True)
class Target:
    """One row of issue 16's table: the job, its figure against its anchor, and what it must reach."""

    key: str
    job: str
    ratio_at_most: float | None = None
    ratio_at_least: float | None = None
    figure_at_most: float | None = None  # the absolute target (on a quiet machine)
    extra: tuple[tuple[str, float], ...] = ()  # other figures with an upper bound: (name, at most)

    def wanted(self) -> str:
        parts = []
        if self.ratio_at_least is not None:
            parts.append(f"ratio >= {self.ratio_at_least:g}")
        if self.ratio_at_most is not None:
            parts.append(f"ratio <= {self.ratio_at_most:g}")
        if self.figure_at_most is not None:
            parts.append(f"figure <= {self.figure_at_most:g}")
        parts.extend(f"{name} <= {bound:g}" for name, bound in self.extra)
        return ", ".join(parts)


SPEED_TARGETS = (
    Target("sweep", "rule-check sweep vs server-side-cursor read", ratio_at_least=0.40),
    Target("day_batch", "a table's day as one batch vs COPY", ratio_at_most=4, figure_at_most=1.0),
    Target("single_post", "one coup POST p99 vs /healthz p99", ratio_at_most=3, figure_at_most=50),
    Target("commission_csv", "commission-detail CSV vs COPY of its SELECT", ratio_at_least=0.60),
    Target("restart", "first answer after every web worker is killed vs a cold start", figure_at_most=10),
    Target(
        "year_report",
        "a year's commission report vs one aggregate query",
        figure_at_most=5.0,
        extra=(("request", 1.0),),
    ),
    Target("admin_list", "the slowest admin list vs its table's COUNT + page SELECT", figure_at_most=1.0),
)


def _number(figures: dict[str, Figure], name: str) -> float | None:
    figure = figures.get(name)
    try:
        return float(figure.value) if figure else None
    except ValueError:
        return None


def speed_table(results: list[ScriptResult]) -> list[str]:
    """Issue 16's table: for each job its figure, its anchor, the ratio, the target and whether it is met.

    "met" is read off this run; the absolute targets are for a quiet machine, so on a loaded one the
    ratio is the figure to read.
    """
    figures = {figure.name: figure for result in results for figure in result.figures}
    rows = [("job", "figure", "anchor", "ratio", "target", "met")]
    for target in SPEED_TARGETS:
        figure, anchor = figures.get(f"{target.key}.figure"), figures.get(f"{target.key}.anchor")
        if figure is None:
            continue
        ratio = _number(figures, f"{target.key}.ratio")
        value = _number(figures, f"{target.key}.figure")
        checks = []
        if ratio is not None and target.ratio_at_least is not None:
            checks.append(ratio >= target.ratio_at_least)
        if ratio is not None and target.ratio_at_most is not None:
            checks.append(ratio <= target.ratio_at_most)
        if value is not None and target.figure_at_most is not None:
            checks.append(value <= target.figure_at_most)
        for name, bound in target.extra:
            extra = _number(figures, f"{target.key}.{name}")
            if extra is not None:
                checks.append(extra <= bound)
        rows.append(
            (
                f"{target.job} ({target.key})",
                f"{figure.value} {figure.unit}".strip(),
                f"{anchor.value} {anchor.unit}".strip() if anchor else "-",
                f"{ratio:.2f}" if ratio is not None else "-",
                target.wanted(),
                ("yes" if all(checks) else "NO") if checks else "-",
            )
        )
    if len(rows) == 1:
        return []
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return lines


def main(argv: list[str] | None = None, bench_dir: Path = BENCH_DIR, out=sys.stdout) -> int:
    wanted = sys.argv[1:] if argv is None else argv
    scripts = sorted(bench_dir.glob("bench_*.py"))
    if wanted:
        scripts = [path for path in scripts if any(name in path.name for name in wanted)]
    if not scripts:
        out.write(f"no bench_*.py scripts to run in {bench_dir}\n")
        return 0 if not wanted else 1
    python = venv_python()
    results = []
    for path in scripts:
        out.write(f"\n=== {path.name}\n")
        out.flush()
        result = run_script(path, python, out=out)
        state = f"failed (exit {result.returncode})" if result.failed else "ok"
        out.write(f"=== {path.name}: {state}, {len(result.figures)} figures, {result.seconds:.1f}s\n")
        results.append(result)

    out.write("\n")
    for line in table(results):
        out.write(line + "\n")
    speed = speed_table(results)
    if speed:
        out.write("\nSpeed and scale (issue 16): each figure against its anchor, measured in the same run\n")
        for line in speed:
            out.write(line + "\n")
    out.write("\n")
    for key, value in machine().items():
        out.write(f"{key + ':':<8} {value}\n")
    failed = [result.script for result in results if result.failed]
    if failed:
        out.write(f"\nFAILED: {', '.join(failed)}\n")
    out.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
