"""The files in deploy/ agree with each other and with the production settings."""
import ast
import os
import runpy
from pathlib import Path

import pytest
import yaml
from django.test import override_settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = ("pit-web.service", "pit-worker.service", "pit-worker-urgent.service", "pit-beat.service")


def _production_constant(name: str):
    """A literal assigned in pit/settings/production.py, read without importing it (it needs a secret)."""
    tree = ast.parse((ROOT / "pit" / "settings" / "production.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)


def _gunicorn_conf(monkeypatch, **environ) -> dict:
    for name in [n for n in os.environ if n.startswith("GUNICORN_")]:
        monkeypatch.delenv(name)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))


def test_gunicorn_defaults_to_loopback_and_two_workers_per_core_plus_one(monkeypatch):
    conf = _gunicorn_conf(monkeypatch)

    assert conf["bind"] == ["127.0.0.1:8000"]
    assert conf["workers"] == 2 * len(os.sched_getaffinity(0)) + 1
    assert conf["accesslog"] == "-"
    assert conf["wsgi_app"] == "pit.wsgi:application"


def test_gunicorn_takes_bind_and_workers_from_the_environment(monkeypatch):
    conf = _gunicorn_conf(
        monkeypatch, GUNICORN_BIND="0.0.0.0:9000,unix:/run/pit/web.sock", GUNICORN_WORKERS="3"
    )

    assert conf["bind"] == ["0.0.0.0:9000", "unix:/run/pit/web.sock"]
    assert conf["workers"] == 3


def test_gunicorn_trusts_only_the_scheme_header_django_trusts(monkeypatch):
    conf = _gunicorn_conf(monkeypatch)
    header, value = _production_constant("SECURE_PROXY_SSL_HEADER")

    assert header == "HTTP_X_FORWARDED_PROTO"
    assert conf["secure_scheme_headers"] == {"X-FORWARDED-PROTO": value}


def test_nginx_sets_the_scheme_header_on_every_proxied_location():
    site = (DEPLOY / "nginx-pit.conf").read_text()

    assert site.count("proxy_pass http://pit_gunicorn;") == 2
    assert site.count("proxy_set_header X-Forwarded-Proto $scheme;") == 2
    assert "listen 443 ssl" in site
    assert "alias /srv/pit/staticfiles/;" in site


@pytest.mark.django_db
def test_production_redirects_to_https_except_the_health_check(client):
    exempt = _production_constant("SECURE_REDIRECT_EXEMPT")
    with override_settings(SECURE_SSL_REDIRECT=True, SECURE_REDIRECT_EXEMPT=exempt):
        health = client.get("/healthz")
        login = client.get("/admin/login/")

    assert health.status_code == 200
    assert login.status_code == 301
    assert login["Location"] == "https://testserver/admin/login/"


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_runs_production_settings_from_the_shared_env_file(unit):
    lines = (DEPLOY / unit).read_text().splitlines()

    assert "Environment=DJANGO_SETTINGS_MODULE=pit.settings.production" in lines
    assert "EnvironmentFile=/etc/pit/pit.env" in lines
    assert "User=pit" in lines


def test_the_units_run_gunicorn_with_our_config_a_worker_and_a_beat():
    execs = {
        unit: next(line for line in (DEPLOY / unit).read_text().splitlines() if line.startswith("ExecStart="))
        for unit in UNITS
    }

    assert "gunicorn --config deploy/gunicorn.conf.py pit.wsgi:application" in execs["pit-web.service"]
    assert "celery -A pit worker -Q bulk " in execs["pit-worker.service"]
    assert "celery -A pit worker -Q urgent " in execs["pit-worker-urgent.service"]
    assert "celery -A pit beat" in execs["pit-beat.service"]


def _routed_queues(settings) -> set[str]:
    """Every queue CELERY_TASK_ROUTES can send a task to, the default queue included."""
    queues = {settings.CELERY_TASK_DEFAULT_QUEUE, "urgent", "bulk"}
    for router in settings.CELERY_TASK_ROUTES:
        if isinstance(router, dict):
            queues |= {route["queue"] for route in router.values()}
    return queues


def test_every_queue_has_a_worker_in_the_units_and_in_compose(settings):
    def queues_of(command: list[str]) -> set[str]:
        return set(command[command.index("-Q") + 1].split(",")) if "-Q" in command else set()

    units = set()
    for unit in ("pit-worker.service", "pit-worker-urgent.service"):
        line = next(line for line in (DEPLOY / unit).read_text().splitlines() if line.startswith("ExecStart="))
        units |= queues_of(line.split())
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    in_compose = queues_of(compose["worker"]["command"]) | queues_of(compose["worker-urgent"]["command"])

    assert units == in_compose == _routed_queues(settings) == {"urgent", "bulk"}


def test_compose_runs_postgres_redis_web_worker_and_beat_from_the_dockerfile():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]

    assert {"postgres", "redis", "web", "worker", "worker-urgent", "beat"} <= set(services)
    for name in ("web", "worker", "worker-urgent", "beat", "migrate"):
        service = services[name]
        assert (ROOT / "deploy" / service["build"]["context"] / service["build"]["dockerfile"]).resolve() == (
            DEPLOY / "Dockerfile"
        )
        assert service["environment"]["DJANGO_SETTINGS_MODULE"] == "pit.settings.production"
        assert service["environment"]["DATABASE_URL"].startswith("postgres://")
        assert service["environment"]["CELERY_BROKER_URL"].startswith("redis://redis:")
    assert services["worker"]["command"][:4] == ["celery", "-A", "pit", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "pit", "beat"]
    assert "deploy/gunicorn.conf.py" in services["web"]["command"]


def test_the_dockerfile_copies_what_the_app_needs_at_run_time():
    dockerfile = (DEPLOY / "Dockerfile").read_text()

    for path in ("manage.py", "pit", "static", "templates", "deploy/gunicorn.conf.py"):
        assert f"COPY {path} " in dockerfile
        assert (ROOT / path).exists()
