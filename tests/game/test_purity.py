"""The engine stays pure: importing every module of pit.game loads no Django, DRF or Celery."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pit.game

REPO = Path(__file__).resolve().parents[2]


def engine_modules():
    return sorted(f"pit.game.{info.name}" for info in pkgutil.iter_modules(pit.game.__path__))


def test_the_engine_has_the_expected_modules():
    assert {
        "pit.game.cards",
        "pit.game.coup",
        "pit.game.verification",
        "pit.game.paytables",
        "pit.game.settlement",
        "pit.game.odds",
        "pit.game.shoe",
        "pit.game.wagers",
    } <= set(engine_modules())


def test_importing_every_engine_module_loads_no_framework():
    imports = "; ".join(f"import {name}" for name in ["pit.game", *engine_modules()])
    check = (
        f"{imports}; import sys; "
        "frameworks = {'django', 'rest_framework', 'celery'}; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in frameworks); "
        "assert not loaded, loaded"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=REPO, capture_output=True, text=True, env={"PYTHONPATH": str(REPO)}
    )
    assert result.returncode == 0, result.stderr
