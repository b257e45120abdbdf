from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Staff roles (pit boss, accountant, auditor, floor device) and the floor devices' API keys."""

    name = "pit.accounts"
    verbose_name = "People and devices"
