"""The one Celery app of the project, configured from Django settings (the CELERY_ namespace)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pit.settings.local")

app = Celery("pit")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
