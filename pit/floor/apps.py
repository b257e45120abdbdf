from django.apps import AppConfig


class FloorConfig(AppConfig):
    """The floor simulator and the demo pit: plays shoes through the same services as the API."""

    name = "pit.floor"
    verbose_name = "Floor simulator"

    def ready(self) -> None:
        from pit.floor import seating  # noqa: F401  AppConfig.ready: its write services declare themselves
