from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NoticesConfig(AppConfig):
    """What the pit must tell surveillance (with surveillance's acknowledgement) and the regulator
    (with its deadline and the filing's reference), each an insert-only fact."""

    name = "pit.notices"
    verbose_name = _("Notices to surveillance and the regulator")
