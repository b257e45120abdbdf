from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """Staff roles (pit boss, accountant, auditor, floor device) and the floor devices' API keys."""

    name = "pit.accounts"
    verbose_name = _("People and devices")

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        # Admin registrations and signal receivers, once the apps are ready.
        from pit.accounts import admin_audit  # noqa: F401  (registers the audit trail's admin)
        from pit.accounts.access import session_activity_start
        from pit.accounts.audit import receivers_connect
        from pit.accounts.language import session_language_start

        receivers_connect()
        user_logged_in.connect(session_activity_start, dispatch_uid="pit_session_activity_start")
        user_logged_in.connect(session_language_start, dispatch_uid="pit_session_language_start")
