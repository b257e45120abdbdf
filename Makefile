# The two commands a newcomer needs: `make run` and `make test`. Everything else is for them.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
MANAGE := $(PY) manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install migrate bench lint fmt typecheck check check-deploy clean messages compilemessages

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "pit needs Python 3.11 or newer"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed compilemessages

# The translation catalogs (locale/*/LC_MESSAGES/*.po) compiled to the .mo files Django reads; the
# .mo files are built, never committed. `make messages` extracts new strings into the catalogs.
LOCALE_LANGUAGES := zh_Hant zh_Hans
MESSAGES_IGNORE := --ignore=.venv --ignore=tests --ignore=docs --ignore=deploy --ignore=var --ignore=staticfiles \
	--ignore=site --ignore='*/migrations/*' --ignore='pit/settings/*'
compilemessages: $(VENV)/.installed
	@if ! command -v msgfmt >/dev/null; then \
	  echo "warning: no msgfmt (apt-get install gettext): the pages stay in English until the catalogs are compiled" >&2; \
	else \
	  for po in locale/*/LC_MESSAGES/*.po; do msgfmt --check --output-file=/dev/null "$$po" || exit 1; done; \
	  $(MANAGE) compilemessages --ignore=.venv --verbosity 0; \
	fi

messages: $(VENV)/.installed
	$(MANAGE) makemessages $(addprefix -l ,$(LOCALE_LANGUAGES)) $(MESSAGES_IGNORE) --no-obsolete --no-location
	$(MANAGE) makemessages -d djangojs $(addprefix -l ,$(LOCALE_LANGUAGES)) $(MESSAGES_IGNORE) --no-obsolete --no-location

migrate: install
	$(MANAGE) migrate --noinput

# Runs the product on the embedded default: SQLite and a filesystem broker, a real worker, and
# (unless LIVE=0) a simulated floor dealing a coup every few seconds so the dashboard moves.
LIVE ?= 1
run: migrate
	$(MANAGE) demo_pit --host $(HOST) --port $(PORT) --no-logins
	@live=""; if [ "$(LIVE)" = "1" ]; then \
	  $(MANAGE) simulate --live --interval 10 --fault-rate 0.003,miscounted_box=0.2 --no-progress & live=$$!; \
	fi; \
	trap 'if [ -n "$$live" ]; then kill $$live 2>/dev/null; fi' EXIT INT TERM; \
	$(MANAGE) runpit --host $(HOST) --port $(PORT) --demo-logins

# On every core (pytest-xdist; PYTEST_XDIST_AUTO_NUM_WORKERS=N for N workers), without the long
# simulations and equivalence runs (marked slow), the slowest tests listed at the end.
test: install
	$(VENV)/bin/pytest -n auto -m "not slow" --durations=20

# Everything, the slow tests too: what CI runs.
.PHONY: test-all
test-all: install
	$(VENV)/bin/pytest -n auto --durations=30

bench: install
	$(PY) tests/benchmarks/run_all.py

lint: install
	$(VENV)/bin/ruff check .

# Formats the tree and applies ruff's safe fixes (imports, upgrades); review the diff before committing.
fmt: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: install
	$(VENV)/bin/mypy

# What CI checks before the tests: lint, formatting, types, and migrations matching the models.
check: lint typecheck
	$(VENV)/bin/ruff format --check .
	$(MANAGE) makemigrations --check --dry-run

check-deploy: install
	DJANGO_SECRET_KEY=check-deploy-$$(date +%s)-a-long-random-string-for-the-check-only-0123456789 \
	DJANGO_ALLOWED_HOSTS=pit.example.com \
	DATABASE_URL=$${DATABASE_URL:-postgres://pit@127.0.0.1:5432/pit} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/0} \
	$(MANAGE) check --deploy --fail-level WARNING --settings=pit.settings.production

# The embedded default's var/ (database, broker, report files), collected static files and caches.
clean:
	rm -rf var staticfiles .pytest_cache .ruff_cache .mypy_cache
