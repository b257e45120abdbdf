"""deploy/env.example names every environment variable the settings and gunicorn read, and nothing else.

The settings are parsed, not imported: a variable read only under one branch (production, or
PostgreSQL) still counts. Colleagues adding `env.int("PIT_SOMETHING", ...)` to pit/settings/ get a
failing test here until they document it.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
SETTINGS_FILES = sorted((ROOT / "pit" / "settings").rglob("*.py"))
VARIABLE_LINE = re.compile(r"^#?(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
# Set for the process by a tool, never by whoever configures pit: pytest-xdist names its worker
# (pit/settings/test.py gives each worker a var folder of its own).
SET_BY_TOOLS = {"PYTEST_XDIST_WORKER"}


def _string_arg(call: ast.Call) -> str | None:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_os_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and _is_name(node.value, "os")


def variables_read(source: str) -> set[str]:
    """Names read with env("X"), env.<reader>("X"), os.environ.get("X"), os.environ["X"], os.getenv("X")."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            reads = (
                _is_name(func, "env")
                or (isinstance(func, ast.Attribute) and _is_name(func.value, "env"))
                or (isinstance(func, ast.Attribute) and func.attr == "get" and _is_os_environ(func.value))
                or (isinstance(func, ast.Attribute) and func.attr == "getenv" and _is_name(func.value, "os"))
            )
            name = _string_arg(node) if reads else None
        elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
            key = node.slice
            name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        else:
            name = None
        if name:
            names.add(name)
    # env.read_env(path) and the like take a path, not a variable name.
    return {name for name in names if re.fullmatch(r"[A-Z][A-Z0-9_]*", name)}


def settings_variables() -> dict[str, list[str]]:
    """Each variable the settings read, with the settings files that read it."""
    found: dict[str, list[str]] = {}
    for path in SETTINGS_FILES:
        for name in variables_read(path.read_text()) - SET_BY_TOOLS:
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def documented_variables() -> dict[str, int]:
    """Each variable in env.example (set or commented out), with its line number."""
    documented = {}
    for number, line in enumerate(ENV_EXAMPLE.read_text().splitlines(), start=1):
        match = VARIABLE_LINE.match(line)
        if match:
            documented[match["name"]] = number
    return documented


def test_the_parser_finds_every_shape_of_read_and_nothing_else():
    source = """
import os
SECRET = env("A_PLAIN")
DEBUG = env.bool("B_BOOL", default=False)
LIMIT = env.int(
    "C_ON_THE_NEXT_LINE",
    default=3,
)
BIND = os.environ.get("D_ENVIRON_GET", "x")
HOME = os.getenv("E_GETENV")
PATH = os.environ["F_SUBSCRIPT"]
env.read_env(BASE_DIR / ".env")
NAME = env.str(some_variable)
OTHER = other_env.str("G_NOT_OUR_ENV")
TEXT = "H_JUST_A_STRING"
"""
    assert variables_read(source) == {
        "A_PLAIN",
        "B_BOOL",
        "C_ON_THE_NEXT_LINE",
        "D_ENVIRON_GET",
        "E_GETENV",
        "F_SUBSCRIPT",
    }


def test_the_parser_finds_the_variables_the_foundation_reads():
    found = settings_variables()

    assert {
        "DJANGO_SECRET_KEY",
        "DJANGO_ALLOWED_HOSTS",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "PIT_VAR_DIR",
        "DJANGO_SECURE_HSTS_SECONDS",
    } <= set(found)
    assert "pit/settings/production.py" in found["DJANGO_SECURE_HSTS_SECONDS"]


def test_every_variable_the_settings_read_is_in_env_example():
    documented = documented_variables()
    missing = {name: files for name, files in settings_variables().items() if name not in documented}

    assert missing == {}, (
        "deploy/env.example does not document these variables (add a comment line and "
        f"`#NAME=default` for each): {missing}"
    )


def test_every_variable_gunicorn_reads_is_in_env_example():
    read = variables_read(GUNICORN_CONF.read_text())

    assert "GUNICORN_BIND" in read
    assert read - set(documented_variables()) == set()


def test_env_example_documents_nothing_that_nobody_reads():
    sources = [*ROOT.joinpath("pit").rglob("*.py"), ROOT / "manage.py", GUNICORN_CONF]
    text = "\n".join(path.read_text() for path in sources)
    unread = [name for name in documented_variables() if not re.search(rf"\b{name}\b", text)]

    assert unread == [], f"deploy/env.example documents variables no code reads: {unread}"


def test_each_variable_in_env_example_has_a_comment_line_above_it():
    lines = ENV_EXAMPLE.read_text().splitlines()
    undocumented = []
    for number in documented_variables().values():
        above = lines[number - 2] if number >= 2 else ""
        if not above.startswith("# ") or VARIABLE_LINE.match(above):
            undocumented.append(lines[number - 1])

    assert undocumented == []


@pytest.mark.parametrize("line", [line for line in ENV_EXAMPLE.read_text().splitlines() if line.strip()])
def test_env_example_lines_are_readable_by_systemd_and_compose_alike(line):
    if line.startswith("#") and not VARIABLE_LINE.match(line):
        return  # a comment
    match = VARIABLE_LINE.match(line)

    assert match, f"not NAME=value: {line!r}"
    assert not match["value"].startswith(("'", '"')), "quotes mean different things to systemd and compose"
    assert " #" not in match["value"], "an inline comment would become part of the value"


def test_env_example_names_each_variable_once():
    names = [m["name"] for m in map(VARIABLE_LINE.match, ENV_EXAMPLE.read_text().splitlines()) if m]

    assert len(names) == len(set(names))
