"""Production refuses to start on an empty or weak DJANGO_SECRET_KEY, as gunicorn under systemd runs it."""

import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def _production_env(secret: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "PIT_", "DJANGO_", "DATABASE_"))}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "pit.settings.production",
        "DJANGO_SECRET_KEY": secret,
        "DJANGO_ALLOWED_HOSTS": "pit.example.com",
        # Never connected to: the settings are refused before any connection is made.
        "DATABASE_URL": "postgres://pit@127.0.0.1:9/pit",
        "CELERY_BROKER_URL": "redis://127.0.0.1:9/0",
    }


def _load_settings(secret: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('loaded')"],
        cwd=ROOT,
        env=_production_env(secret),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("secret", "why"),
    [
        ("", "DJANGO_SECRET_KEY is empty"),
        ("short-secret", "DJANGO_SECRET_KEY is too weak (12 characters)"),
        ("x" * 60, "DJANGO_SECRET_KEY is too weak (60 characters)"),
        # A fixed id: every xdist worker collects the same tests, by id, and this secret is new each time.
        pytest.param("django-insecure-" + secrets.token_urlsafe(50), "DJANGO_SECRET_KEY is too weak", id="insecure"),
    ],
)
def test_production_settings_refuse_an_empty_or_weak_secret(secret, why):
    result = _load_settings(secret)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert why in result.stderr
    assert "secrets.token_urlsafe(50)" in result.stderr


def test_production_settings_load_with_a_generated_secret():
    result = _load_settings(secrets.token_urlsafe(50))

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded"


def test_gunicorn_with_an_empty_secret_exits_instead_of_serving_500s():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**_production_env(""), "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1"}

    result = subprocess.run(
        [str(GUNICORN), "--config", "deploy/gunicorn.conf.py", "pit.wsgi:application"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    # gunicorn's "worker failed to boot" exit: systemd sees a failed start, nothing is served.
    assert result.returncode == 3
    assert "DJANGO_SECRET_KEY is empty" in result.stderr
