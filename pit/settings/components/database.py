"""The database: PostgreSQL from DATABASE_URL in production, a SQLite file by default, a replica if named."""

from pit.settings.components.environment import VAR_DIR, env

# DATABASE_URL=postgres://user@host:5432/name in production; SQLite file by default.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'pit.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=60))
# A kept connection is checked before a request reuses it: after PostgreSQL restarts or drops
# connections, the next request reconnects instead of failing with a 500.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while one writer writes; IMMEDIATE takes the write lock at BEGIN so
    # that two writers queue on the busy timeout instead of failing half-way with "locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        # recursive_triggers: an INSERT OR REPLACE over a fact's unique key fires the DELETE
        # trigger that refuses it, instead of deleting the old row silently (pit.core.immutable).
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
        "PRAGMA recursive_triggers=ON;",
    }
DATABASE_IS_POSTGRES = DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql")
# A streaming replica of that database, for reports and exports (pit.core.replica). Default: none.
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = env.db("DATABASE_REPLICA_URL")
    DATABASES["replica"].setdefault("CONN_MAX_AGE", DATABASES["default"]["CONN_MAX_AGE"])
    # Tests read the replica as the test database itself (a real one is tested by tests/core/test_replica.py).
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["pit.core.replica.ReplicaRouter"]
# django-pgtrigger's trigger functions (the audit trail's) first read the setting `pgtrigger.ignore`;
# on a connection that never set it the read raises, and the function catches the error. Catching it
# aborts a subtransaction, which costs PostgreSQL a scan of every deferred check the transaction has
# queued: an audited row written after a large import or batch cost 6-19 ms instead of 0.05 ms
# (generating bench_year's year took 748 s, the reconciliations' audit alone ~700 s). Every
# connection therefore starts with it set to "nothing ignored" (a startup option: no round trip).
for _database in DATABASES.values():
    if _database["ENGINE"].startswith("django.db.backends.postgresql"):
        _options = _database.setdefault("OPTIONS", {})
        _options["options"] = f"{_options.get('options', '')} -c pgtrigger.ignore={{}}".strip()
# Least privilege (PostgreSQL): the app connects with DATABASE_URL as a runtime role that owns
# nothing; `manage.py migrate` connects with this URL instead, as the schema's owner, and then
# grants the runtime role what the services need (pit.core.immutable.runtime_privileges_sql).
# Empty: migrate as DATABASE_URL (one role, the embedded default and development).
DATABASE_MIGRATE_URL = env.str("DATABASE_MIGRATE_URL", default="")
