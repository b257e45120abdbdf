"""Every date and number argument of the management commands: a bad value is one line on stderr
naming the argument and the problem, exit status 2, no traceback, nothing run."""

import pytest
from django.core.management import CommandError, ManagementUtility, call_command

BAD = [
    (
        ["reverify", "--from", "2026-02-30"],
        "manage.py reverify: error: argument --from: '2026-02-30' is not a calendar date (YYYY-MM-DD)",
    ),
    (
        ["reverify", "--from", "2026-03-01", "--to", "yesterday"],
        "manage.py reverify: error: argument --to: 'yesterday' is not a calendar date (YYYY-MM-DD)",
    ),
    (
        ["reverify", "--from", "20260301"],
        "manage.py reverify: error: argument --from: '20260301' is not a calendar date (YYYY-MM-DD)",
    ),
    (["odds", "--decks", "eight"], "manage.py odds: error: argument --decks: 'eight' is not a whole number"),
    (["odds", "--decks", "٨"], "manage.py odds: error: argument --decks: '٨' is not a whole number"),
    (["odds", "--places", "-1"], "manage.py odds: error: argument --places: '-1' is below the minimum of 0"),
    (["simulate", "--days", "0"], "manage.py simulate: error: argument --days: '0' is below the minimum of 1"),
    (["simulate", "--shoes", "1.5"], "manage.py simulate: error: argument --shoes: '1.5' is not a whole number"),
    (["simulate", "--seats", "-2"], "manage.py simulate: error: argument --seats: '-2' is below the minimum of 1"),
    (["simulate", "--decks", "0"], "manage.py simulate: error: argument --decks: '0' is below the minimum of 1"),
    (["simulate", "--batch", "0"], "manage.py simulate: error: argument --batch: '0' is below the minimum of 1"),
    (["simulate", "--coups", "x"], "manage.py simulate: error: argument --coups: 'x' is not a whole number"),
    (["simulate", "--seed", "1e3"], "manage.py simulate: error: argument --seed: '1e3' is not a whole number"),
    (
        ["simulate", "--interval", "nan"],
        "manage.py simulate: error: argument --interval: 'nan' is not a number of seconds above 0",
    ),
    (
        ["simulate", "--interval", "0"],
        "manage.py simulate: error: argument --interval: '0' is not a number of seconds above 0",
    ),
    (["demo_pit", "--days", "-1"], "manage.py demo_pit: error: argument --days: '-1' is below the minimum of 1"),
    (["demo_pit", "--port", "80000"], "manage.py demo_pit: error: argument --port: '80000' is not a port (1 to 65535)"),
    (["runpit", "--port", "http"], "manage.py runpit: error: argument --port: 'http' is not a whole number"),
    (
        ["create_device_key", "--name", "x"],
        "manage.py create_device_key: error: the following arguments are required: --table",
    ),
]


@pytest.mark.parametrize(("argv", "line"), BAD, ids=[" ".join(argv) for argv, _ in BAD])
def test_a_bad_argument_is_one_line_and_exit_status_2(argv, line, capsys):
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", *argv]).execute()
    out, err = capsys.readouterr()
    assert (exited.value.code, out, err) == (2, "", line + "\n")


def test_from_code_a_bad_argument_is_a_command_error():
    with pytest.raises(CommandError, match=r"^Error: argument --from: '2026-02-30' is not a calendar date"):
        call_command("reverify", "--from", "2026-02-30")


def test_help_still_shows_the_usage(capsys):
    with pytest.raises(SystemExit):
        ManagementUtility(["manage.py", "reverify", "--help"]).execute()
    assert "usage: manage.py reverify [-h]" in capsys.readouterr().out
