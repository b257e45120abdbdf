from django.apps import AppConfig


class ShoesConfig(AppConfig):
    """Shoes, the coups dealt from them, and the wagers settled on each coup."""

    name = "pit.shoes"
    verbose_name = "Shoes and coups"
