"""Settings for a developer's machine and `make run`: the embedded default with DEBUG on."""

from pit.settings.base import *  # noqa: F403
from pit.settings.components.environment import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
