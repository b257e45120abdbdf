"""README.md opens with the two commands and says why each dependency in pyproject.toml is there."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _dependency_names() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return [re.match(r"[A-Za-z0-9_.-]+", spec)[0].lower() for spec in specs]


def test_the_readme_opens_with_make_run_and_make_test():
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.split("#")[0].strip()]

    assert commands == ["make run", "make test"]


def test_every_dependency_has_its_line_under_dependencies_and_why():
    section = README.split("## Dependencies and why", 1)[1].split("\n## ", 1)[0].lower()
    names = _dependency_names()

    assert "django" in names and "pytest" in names
    missing = [name for name in names if not re.search(rf"^- \*\*{re.escape(name)}[*\[ ]", section, re.M)]
    assert missing == [], f"README.md's 'Dependencies and why' has no line for: {missing}"
