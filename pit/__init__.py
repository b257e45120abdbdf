"""The pit back-office: the Django project package and its apps.

Nothing is imported here so that the pure game engine (`pit.game`) can be imported without
Django or Celery; the Celery app is loaded by `pit.core.apps.CoreConfig.ready`.
"""
