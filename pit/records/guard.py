"""No role may switch the audit trail off (PostgreSQL).

django-pgtrigger's trigger functions (the audit trail's: django-pghistory writes its events through
them) first call `public._pgtrigger_should_ignore(TG_NAME)`, which returns true for a trigger named
in the session's `pgtrigger.ignore` setting: any role that may connect could `SET pgtrigger.ignore`
and change a row with no event written. pit replaces that function, as the schema's owner, with one
that ignores nothing, whoever asks: the runtime role cannot replace a function it does not own, and
the owner could drop the triggers anyway. pgtrigger writes its own version again whenever it installs
a trigger (a migration that adds one, `manage.py pgtrigger install`), so pit's is installed again
after every migrate (pit.records.apps), and `verify_records` names the function when its body is not
this one (pit.records.selectors.triggers_guard_verify).
"""

import re

from django.db.backends.base.base import BaseDatabaseWrapper

IGNORE_FUNCTION = "public._pgtrigger_should_ignore"
IGNORE_NOTHING_BODY = """
BEGIN
    -- pit: no trigger that keeps a fact or an audit event is ever skipped, whoever asks
    -- (pit.records.guard). pgtrigger.ignore is not read.
    RETURN FALSE;
END;
"""
IGNORE_NOTHING_SQL = f"""
CREATE OR REPLACE FUNCTION {IGNORE_FUNCTION}(trigger_name NAME) RETURNS BOOLEAN
LANGUAGE plpgsql AS $pit${IGNORE_NOTHING_BODY}$pit$
"""


def normalized(body: str) -> str:
    return re.sub(r"\s+", " ", body).strip()


def ignore_function_body(connection: BaseDatabaseWrapper) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' AND p.proname = '_pgtrigger_should_ignore'"
        )
        row = cursor.fetchone()
    return row[0] if row else None


def ignore_nothing_install(connection: BaseDatabaseWrapper) -> None:
    """Replace pgtrigger's function with pit's (as the owner: run after every migrate)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(IGNORE_NOTHING_SQL)
