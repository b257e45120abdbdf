from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FloorConfig(AppConfig):
    """The floor simulator and the demo pit: plays shoes through the same services as the API."""

    name = "pit.floor"
    verbose_name = _("Floor simulator")

    def ready(self) -> None:
        # AppConfig.ready: the seating's write services declare themselves (pit.core.daylock) at start-up
        from pit.floor import seating  # noqa: F401
