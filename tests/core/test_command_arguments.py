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


# ---------------------------------------------------------------------------------------- every command


def _pit_commands() -> list[str]:
    from django.core.management import get_commands

    return sorted(name for name, app in get_commands().items() if app == "pit" or app.startswith("pit."))


def _bad_values(name: str) -> list[tuple[list[str], str]]:
    """For each argument `name` declares that takes a value: the argv of a value its reader refuses
    (a choice that is none of the choices), and the start of the one line it must give."""
    from django.core.management import load_command_class

    from pit.core.arguments import DJANGO_OPTIONS, PitCommand, refused_value

    command = load_command_class(get_commands_app(name), name)
    parser = command.create_parser("manage.py", name)
    cases = []
    if isinstance(command, PitCommand) and command.inherited_arguments:
        return cases
    for action in parser._actions:  # noqa: SLF001 - argparse lists the arguments there only
        if action.dest in DJANGO_OPTIONS or action.nargs == 0:
            continue
        value = refused_value(action.type)
        assert value is not None, f"{name} {action.option_strings or action.dest} has no reader"
        if action.choices is not None and value in action.choices:
            value = "none-of-the-choices"
        label = "/".join(action.option_strings) or action.metavar or action.dest
        argv = [action.option_strings[0], value] if action.option_strings else [value]
        cases.append((argv, f"manage.py {name}: error: argument {label}: "))
    return cases


def get_commands_app(name: str) -> str:
    from django.core.management import get_commands

    return get_commands()[name]


def test_every_pit_command_is_a_pit_command_with_every_argument_typed():
    from django.core.management import load_command_class

    from pit.core.arguments import PitCommand

    names = _pit_commands()
    assert {"verify_records", "investigate_holds", "create_table", "migrate", "runpit"} <= set(names)
    for name in names:
        command = load_command_class(get_commands_app(name), name)
        assert isinstance(command, PitCommand), name
        command.create_parser("manage.py", name)  # raises TypeError for an untyped argument


EVERY_BAD = [
    pytest.param(name, argv, start, id=f"{name} {' '.join(argv)!r}")
    for name in _pit_commands()
    for argv, start in [*_bad_values(name), (["--no-such-option"], f"manage.py {name}: error: ")]
]


@pytest.mark.parametrize(("name", "argv", "start"), EVERY_BAD)
def test_every_pit_command_refuses_each_bad_argument_in_one_line_with_exit_status_2(name, argv, start, capsys):
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", name, *argv]).execute()
    out, err = capsys.readouterr()
    assert (exited.value.code, out, err.count("\n"), err[: len(start)]) == (2, "", 1, start), err


def test_verify_records_with_a_date_that_does_not_exist_is_one_line_and_exit_status_2(capsys):
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", "verify_records", "--from", "2026-02-30"]).execute()
    assert (exited.value.code, capsys.readouterr().err) == (
        2,
        "manage.py verify_records: error: argument --from: '2026-02-30' is not a calendar date (YYYY-MM-DD)\n",
    )


def test_an_argument_declared_without_a_reader_stops_the_parser_being_built():
    from pit.core.arguments import PitCommand

    class Untyped(PitCommand):
        def add_arguments(self, parser):
            parser.add_argument("--name")

    with pytest.raises(TypeError, match="argument --name takes a value but has no type from pit.core.arguments"):
        Untyped().create_parser("manage.py", "untyped")


@pytest.mark.django_db
def test_demo_pit_under_the_production_settings_refuses_without_in_production(settings):
    from django.contrib.auth import get_user_model

    from pit.accounts.models import Device

    settings.PIT_PRODUCTION = True
    with pytest.raises(CommandError, match="refused under the production settings: .* pass --in-production"):
        call_command("demo_pit", "--days", "1", "--shoes", "1")
    assert get_user_model().objects.count() == 0 and Device.objects.count() == 0
