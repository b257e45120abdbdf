"""tests/benchmarks/run_all.py: figures collected from every script, a failing script reported and
counted, the others still run."""

import importlib.util
import io
import sys
import textwrap
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "benchmarks" / "run_all.py"


@pytest.fixture(scope="module")
def run_all():
    spec = importlib.util.spec_from_file_location("bench_run_all", RUNNER)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def _script(directory: Path, name: str, body: str) -> None:
    (directory / name).write_text(textwrap.dedent(body))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("FIGURE\tcoups per second\t12345.6\tcoups/s\n", ("coups per second", "12345.6", "coups/s")),
        ("FIGURE\tratio\t0.5\t\n", ("ratio", "0.5", "")),
        ("FIGURE coups 12 s\n", None),
        ("FIGURE\tcoups\t12\n", None),
        ("FIGURE\tcoups\t12\ts\textra\n", None),
        ("figure\tcoups\t12\ts\n", None),
        ("warming up\n", None),
    ],
)
def test_only_lines_of_the_exact_form_are_figures(run_all, line, expected):
    figure = run_all.parse_figure(line)

    assert (None if figure is None else (figure.name, figure.value, figure.unit)) == expected


def test_figures_from_every_script_and_a_failure_that_does_not_stop_the_others(run_all, tmp_path):
    _script(
        tmp_path,
        "bench_a_fails.py",
        """
        print("FIGURE\\tbefore the crash\\t1\\tms")
        raise SystemExit(3)
    """,
    )
    _script(
        tmp_path,
        "bench_b_works.py",
        """
        import os
        print("warming up")
        print("FIGURE\\tcoups per second\\t250000\\tcoups/s")
        print("FIGURE\\tcwd is the repository\\t" + str(os.path.isfile("pyproject.toml")) + "\\t")
    """,
    )
    _script(tmp_path, "not_a_bench.py", "raise SystemExit(1)\n")
    out = io.StringIO()

    status = run_all.main([], bench_dir=tmp_path, out=out)

    text = out.getvalue()
    assert status == 1
    assert "warming up\n" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("bench_")]
    assert ["bench_a_fails.py", "before", "the", "crash", "1", "ms"] in rows
    assert ["bench_a_fails.py", "FAILED", "(exit", "3)"] in rows
    assert ["bench_b_works.py", "coups", "per", "second", "250000", "coups/s"] in rows
    assert ["bench_b_works.py", "cwd", "is", "the", "repository", "True"] in rows
    assert "not_a_bench.py" not in text
    assert "FAILED: bench_a_fails.py" in text
    assert "cpu:" in text and "cores:" in text and "python:" in text and "date:" in text


def test_all_scripts_passing_is_exit_status_zero(run_all, tmp_path):
    _script(tmp_path, "bench_ok.py", 'print("FIGURE\\tx\\t1\\tunit")\n')
    out = io.StringIO()

    assert run_all.main([], bench_dir=tmp_path, out=out) == 0
    assert "FAILED" not in out.getvalue()


def test_names_on_the_command_line_select_scripts(run_all, tmp_path):
    _script(tmp_path, "bench_engine.py", 'print("FIGURE\\tengine\\t1\\tunit")\n')
    _script(tmp_path, "bench_ledger.py", "raise SystemExit(1)\n")
    out = io.StringIO()

    assert run_all.main(["engine"], bench_dir=tmp_path, out=out) == 0
    assert "bench_ledger.py" not in out.getvalue()


def test_issue_16_rows_are_summed_up_with_their_anchor_ratio_and_target(run_all, tmp_path):
    _script(
        tmp_path,
        "bench_speed.py",
        """
        for line in [
            "sweep.figure\\t12000\\tcoups/s", "sweep.anchor\\t24000\\tcoups/s", "sweep.ratio\\t0.50\\tx",
            "day_batch.figure\\t1.40\\ts", "day_batch.anchor\\t0.40\\ts", "day_batch.ratio\\t3.50\\tx",
            "year_report.figure\\t4.2\\ts", "year_report.anchor\\t1.1\\ts", "year_report.ratio\\t3.82\\tx",
            "year_report.request\\t1.3\\ts",
        ]:
            print("FIGURE\\t" + line)
    """,
    )
    out = io.StringIO()

    assert run_all.main([], bench_dir=tmp_path, out=out) == 0

    text = out.getvalue()
    summary = text.split("Speed and scale (issue 16)", 1)[1].splitlines()
    rows = {line.split(" (")[0]: line.split() for line in summary[3:] if "(" in line}
    sweep = rows["rule-check sweep vs server-side-cursor read"]
    assert sweep[-5:] == ["0.50", "ratio", ">=", "0.4", "yes"]
    assert "12000" in sweep and "24000" in sweep
    # the ratio holds but the absolute second does not: not met
    assert rows["a table's day as one batch vs COPY"][-1] == "NO"
    # a year's report in time, but the request that queues it too slow
    assert rows["a year's commission report vs one aggregate query"][-1] == "NO"
    assert "one coup POST" not in text  # a job that printed nothing is left out
