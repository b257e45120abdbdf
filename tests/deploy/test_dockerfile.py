"""deploy/Dockerfile's build steps, run for real: each RUN line under `env -i` with exactly the
environment the Dockerfile gives it, in a folder laid out as the image is (COPY by COPY).

No Docker engine runs on the CI machine, so the image itself is not built; what broke the build
before (collectstatic refused by the production settings) is what this runs. The one RUN line that
creates the system user is not run here (it would add a user to the CI machine): it is checked
for what it creates instead.
"""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
# Absolute paths of the image, mapped into the test's folder.
IMAGE_PATHS = ("/srv/pit", "/var/lib/pit", "/tmp")


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    steps, current = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        instruction, _, arguments = current.strip().partition(" ")
        steps.append((instruction.upper(), arguments.strip()))
        current = ""
    return steps


def _in_image(text: str, image_root: Path) -> str:
    """The image's absolute paths moved under `image_root`, in one pass (the root may be under /tmp)."""
    pattern = r"(?<![\w/.])(" + "|".join(re.escape(path) for path in IMAGE_PATHS) + r")(?=/|\b|$)"
    return re.sub(pattern, lambda match: f"{image_root}{match.group(1)}", text)


def test_every_build_step_runs_with_the_environment_the_dockerfile_gives_it(tmp_path):
    image = tmp_path / "image"
    (image / "tmp").mkdir(parents=True)
    venv_bin = Path(sys.executable).parent
    # What the base image (python:3.11-slim) provides: a Python with pip on PATH. Nothing else.
    environment = {"PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path / "home")}
    workdir, ran, user_lines = image, [], []
    for instruction, arguments in instructions():
        if instruction == "ENV":
            for pair in shlex.split(arguments):
                name, _, value = pair.partition("=")
                environment[name] = _in_image(value, image)
        elif instruction == "WORKDIR":
            workdir = Path(_in_image(arguments, image))
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction == "COPY":
            source, target = arguments.split()
            destination = workdir / target
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, destination, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / source, destination if not target.endswith("/") else destination / source)
        elif instruction == "RUN":
            if "useradd" in arguments:
                user_lines.append(arguments)
                continue
            result = subprocess.run(
                ["env", "-i", *(f"{k}={v}" for k, v in environment.items()), "sh", "-c", _in_image(arguments, image)],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert result.returncode == 0, f"RUN {arguments}\n{result.stdout}\n{result.stderr}"
            ran.append(arguments)

    assert len(ran) == 2  # the runtime requirements, then collectstatic
    assert "collectstatic --noinput" in ran[-1]
    static = image / "srv" / "pit" / "staticfiles"
    assert (static / "staticfiles.json").is_file()  # the hashed-name manifest production serves from
    assert any(static.glob("admin/css/base.*.css"))
    assert not (image / "tmp" / "pit-build").exists()
    # The user line creates the user the image runs as and the state folder it owns.
    assert len(user_lines) == 1
    assert "useradd --system --gid pit" in user_lines[0] and "install -d -o pit -g pit" in user_lines[0]
    assert ("USER", "pit") in instructions()


def test_the_build_secret_would_never_do_at_run_time():
    """The image carries no usable secret: the build-time one is public, so compose must set its own."""
    text = DOCKERFILE.read_text()
    assert "ENV DJANGO_SECRET_KEY" not in text
    assert "DJANGO_SECRET_KEY" in (ROOT / "deploy" / "env.example").read_text()


def test_both_ignore_files_say_the_same():
    """Debian 12's docker.io (the classic builder) reads only the root .dockerignore; BuildKit reads
    deploy/Dockerfile.dockerignore first. Either way the same files stay out of the image."""

    def patterns(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]

    assert patterns(ROOT / ".dockerignore") == patterns(ROOT / "deploy" / "Dockerfile.dockerignore")
    assert {".git", ".venv", ".env", "var", "deploy/pit.env"} <= set(patterns(ROOT / ".dockerignore"))
