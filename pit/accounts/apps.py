from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Staff roles (pit boss, accountant, auditor, floor device) and the floor devices' API keys."""

    name = "pit.accounts"
    verbose_name = "People and devices"

    def ready(self):
        from pit.accounts import admin_audit  # noqa: F401  (registers the audit trail's admin)
        from pit.accounts.audit import receivers_connect

        receivers_connect()
