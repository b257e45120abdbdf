"""The files in deploy/ agree with each other and with the production settings."""

import ast
import os
import runpy
import tempfile
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


def test_gunicorn_defaults_to_loopback_and_one_worker_per_core_plus_one(monkeypatch):
    conf = _gunicorn_conf(monkeypatch)

    assert conf["bind"] == ["127.0.0.1:8000"]
    assert conf["workers"] == len(os.sched_getaffinity(0)) + 1
    assert conf["accesslog"] == "-"
    assert conf["wsgi_app"] == "pit.wsgi:application"


def test_gunicorn_takes_bind_and_workers_from_the_environment(monkeypatch):
    conf = _gunicorn_conf(monkeypatch, GUNICORN_BIND="0.0.0.0:9000,unix:/run/pit/web.sock", GUNICORN_WORKERS="3")

    assert conf["bind"] == ["0.0.0.0:9000", "unix:/run/pit/web.sock"]
    assert conf["workers"] == 3


def test_gunicorn_trusts_only_the_scheme_header_django_trusts(monkeypatch):
    conf = _gunicorn_conf(monkeypatch)
    header, value = _production_constant("SECURE_PROXY_SSL_HEADER")

    assert header == "HTTP_X_FORWARDED_PROTO"
    assert conf["secure_scheme_headers"] == {"X-FORWARDED-PROTO": value}


def test_nginx_sets_the_scheme_header_on_every_proxied_location():
    site = (DEPLOY / "nginx-pit.conf").read_text()

    assert site.count("proxy_pass http://pit_gunicorn;") == 3
    assert site.count("proxy_set_header X-Forwarded-Proto $scheme;") == 3
    assert "listen 443 ssl" in site
    assert "alias /srv/pit/staticfiles/;" in site


def test_nginx_passes_the_port_on_to_django_and_fences_the_health_check():
    """$host drops a port other than 443, and the admin's CSRF check then refuses every login
    (.ci/nginx logs in through nginx on another port). /healthz names the backends: loopback and
    the load balancer only."""
    site = (DEPLOY / "nginx-pit.conf").read_text()

    assert "proxy_set_header Host $host;" not in site
    assert site.count("proxy_set_header Host $http_host;") == 3
    health_blocks = site.split("location = /healthz {")[1:]
    assert len(health_blocks) == 2
    for block in health_blocks:
        rules = block.split("}")[0]
        assert rules.index("allow 127.0.0.1;") < rules.index("deny all;") < rules.index("proxy_pass")


def test_nginx_serves_the_acme_challenge_over_plain_http():
    site = (DEPLOY / "nginx-pit.conf").read_text()
    plain_http = site.split("listen 443")[0]

    assert "location ^~ /.well-known/acme-challenge/ {\n        root /var/www/html;" in plain_http


def test_beat_keeps_its_schedule_under_the_var_dir_wherever_it_is(settings):
    schedule = settings.CELERY_BEAT_SCHEDULE_FILENAME
    assert schedule == str(settings.VAR_DIR / "celerybeat-schedule")
    beat = (DEPLOY / "pit-beat.service").read_text()
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert "--schedule" not in beat and "-s " not in beat
    assert "--schedule" not in compose["services"]["beat"]["command"]


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


def test_gunicorn_spreads_worker_restarts_over_half_of_max_requests(monkeypatch):
    conf = _gunicorn_conf(monkeypatch)
    assert (conf["max_requests"], conf["max_requests_jitter"]) == (2000, 1000)

    conf = _gunicorn_conf(monkeypatch, GUNICORN_MAX_REQUESTS="600")
    assert (conf["max_requests"], conf["max_requests_jitter"]) == (600, 300)


def test_a_gunicorn_worker_loads_every_view_before_its_first_request():
    """post_worker_init imports what the first request would (no ~1 s stall after each restart)."""
    import subprocess
    import sys

    code = (
        "import runpy, sys, django; django.setup(); "
        "before = {m for m in ('pit.api.resources.coups', 'pit.reports.views', 'openpyxl') if m in sys.modules}; "
        "runpy.run_path('deploy/gunicorn.conf.py')['post_worker_init'](None); "
        "after = {m for m in ('pit.api.resources.coups', 'pit.reports.views', 'openpyxl') if m in sys.modules}; "
        "print(sorted(before), sorted(after))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**env, "DJANGO_SETTINGS_MODULE": "pit.settings.test"},
    )

    assert result.stdout.strip() == "[] ['openpyxl', 'pit.api.resources.coups', 'pit.reports.views']"


def test_after_the_warm_up_a_coup_post_imports_nothing():
    """A worker's first coup imports no module and registers no task lazily: post_worker_init did
    (a restarted worker's first requests took ~1 s: the URLconf, openpyxl, the Celery tasks)."""
    import subprocess
    import sys

    code = """
import json, runpy, sys, tempfile, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test import Client
from pit.accounts.services import device_create
from tests import factories
table = factories.table("BB1")
shoe = factories.shoe(table)
_, key = device_create(table=table, name="reader")
runpy.run_path("deploy/gunicorn.conf.py")["post_worker_init"](None)
client = Client()
before = set(sys.modules)
response = client.post(f"/api/v1/shoes/{shoe.pk}/coups/", json.dumps({
    "number": 1, "player": ["5H", "KD", "2C"], "banker": ["6S", "TD"], "reported_winner": "player",
    "wagers": [{"seat": 1, "bet": "player", "amount": "100.00"}, {"seat": 2, "bet": "banker", "amount": "50.00"}]}),
    content_type="application/json", HTTP_AUTHORIZATION=f"Api-Key {key}", HTTP_IDEMPOTENCY_KEY="first")
print(response.status_code, sorted(set(sys.modules) - before))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "CELERY_"))}
    with tempfile.TemporaryDirectory() as scratch:
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={
                **env,
                "DJANGO_SETTINGS_MODULE": "pit.settings.test",
                "PIT_VAR_DIR": scratch,
                "CELERY_TASK_ALWAYS_EAGER": "False",
            },
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "201 []"


def test_web_workers_boot_one_at_a_time_keeping_their_heartbeat_while_they_wait(monkeypatch, tmp_path):
    """After every worker was killed they all booted at once and none answered for 84 s: one boots
    at a time (the first answers after one boot), and one waiting keeps gunicorn's timeout away."""
    import fcntl
    import threading
    import time
    from types import SimpleNamespace

    conf = _gunicorn_conf(monkeypatch)
    conf["post_fork"].__globals__["worker_tmp_dir"] = str(tmp_path)
    master = SimpleNamespace(pid=4242)
    beats = []
    worker = SimpleNamespace(notify=lambda: beats.append(time.monotonic()))
    with open(conf["_boot_lock_path"](master.pid), "a") as booting:  # another worker is booting
        fcntl.flock(booting, fcntl.LOCK_EX)
        waiting = threading.Thread(target=conf["post_fork"], args=(master, worker))
        waiting.start()
        time.sleep(0.5)
        assert waiting.is_alive() and len(beats) >= 3
    waiting.join(timeout=5)
    assert not waiting.is_alive()
    assert os.getpid() in conf["_boot_locks"]
    conf["_boot_locks"].pop(os.getpid()).close()
