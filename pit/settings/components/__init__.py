"""The settings by concern, one module each, composed in order by `pit.settings.base`.

`environment` (paths and the environment reader), `pit` (pit's own knobs), `database`, `django`
(apps, middleware, templates, static files, logging), `security` (authentication, lockouts, the
cache), `celery` (broker, queues, the beat schedule) and `api` (DRF, drf-spectacular).
"""
