from django.apps import AppConfig


class DealersConfig(AppConfig):
    name = "pit.dealers"
    verbose_name = "Dealers"
