"""`manage.py migrate`, as the schema's owner when DATABASE_MIGRATE_URL is set (least privilege).

The app and its workers connect with DATABASE_URL, as a runtime role that owns nothing. This
command connects with DATABASE_MIGRATE_URL instead (the same database, as its owner), applies the
migrations, then grants the runtime role exactly what the services need, table by table
(pit.core.immutable.runtime_privileges_sql), so tables a migration adds are covered at once.
Without DATABASE_MIGRATE_URL it is Django's migrate, as DATABASE_URL.
"""

from typing import Any

import environ
from django.conf import settings
from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrateCommand
from django.db import connections, transaction
from django.utils.translation import gettext

from pit.core.arguments import PitCommand
from pit.core.db import is_postgresql
from pit.core.immutable import runtime_privileges_sql

OWNER_KEYS = ("NAME", "USER", "PASSWORD", "HOST", "PORT")


class Command(PitCommand, DjangoMigrateCommand):
    help = (
        DjangoMigrateCommand.help + " With DATABASE_MIGRATE_URL set, it connects as that URL's role (the owner) "
        "and then grants DATABASE_URL's role (the runtime role) what the services need."
    )
    inherited_arguments = True  # Django's migrate's own, typed by Django

    def handle(self, *args: Any, **options: Any) -> str | None:
        if not settings.DATABASE_MIGRATE_URL:
            return super().handle(*args, **options)
        connection = connections[options["database"]]
        runtime = dict(connection.settings_dict)
        owner = environ.Env.db_url_config(settings.DATABASE_MIGRATE_URL)
        if owner["ENGINE"] != runtime["ENGINE"] or owner["NAME"] != runtime["NAME"]:
            raise CommandError(
                gettext(
                    "DATABASE_MIGRATE_URL must name the same database as DATABASE_URL, as "
                    "its owner (it names {name!r}, DATABASE_URL {name_2!r})."
                ).format(name=owner["NAME"], name_2=runtime["NAME"])
            )
        connection.close()
        connection.settings_dict.update({key: owner.get(key, "") for key in OWNER_KEYS})
        connection.settings_dict["OPTIONS"] = {**runtime.get("OPTIONS", {}), **owner.get("OPTIONS", {})}
        try:
            super().handle(*args, **options)
            if is_postgresql(options["database"]) and runtime["USER"] and runtime["USER"] != owner["USER"]:
                with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
                    for statement in runtime_privileges_sql(connection, runtime["USER"]):
                        cursor.execute(statement)
                if options["verbosity"]:
                    self.stdout.write(
                        gettext("Privileges of the runtime role {user} granted table by table.").format(
                            user=runtime["USER"]
                        )
                    )
        finally:
            connection.close()
            connection.settings_dict.clear()
            connection.settings_dict.update(runtime)
        return None
