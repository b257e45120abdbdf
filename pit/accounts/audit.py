"""The audit trail: who changed what and when on tables, paytables, violations, reconciliations
and staff users, kept by django-pghistory in one event table per tracked model.

PostgreSQL: triggers write the events, so every change is captured, bulk `.update()` and raw SQL
included; the user (or the API's device) and the client's address come from `PitHistoryMiddleware`
(requests) or `audit_context(...)` (commands, services run by hand), stored with each event as JSON
(`pgh_context`). A Celery task's events carry {"actor": "system", "task": <its name>} and, when a
request enqueued it, {"on_behalf_of": {"user" or "device": ...}} (sent in the message's headers).

SQLite (the embedded default) has no pghistory triggers. There the same event rows are written
from Python by post_save/post_delete receivers, with the context of `audit_context(...)` or of
`AuditContextMiddleware`. The trade-off: on SQLite, bulk `.update()`, `bulk_create` and raw SQL
bypass the signals and are not in the trail. The receivers never run on PostgreSQL, so an event
is never recorded twice.
"""

import json
import threading
import uuid
from contextlib import contextmanager
from typing import Any

import pghistory
import pghistory.config
import pghistory.middleware
import pghistory.runtime
from django.core.handlers.wsgi import WSGIRequest
from django.db.models.signals import post_delete, post_save
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.db import is_postgresql

# model label -> its event model; filled by `audit_track` as the models are defined. An event model
# is made by pghistory at run time, its fields (pgh_obj, the tracked fields) unknown to a type checker.
EventModel = type[Any]
_EVENT_MODELS: dict[str, EventModel] = {}
_local = threading.local()


def audit_track(model_name: str, *, exclude: tuple[str, ...] = (), tracked_label: str | None = None):
    """The pghistory decorator every audited model uses: insert, update (when a tracked field
    changes) and delete events, context stored as JSON, reached from the row as `.audit_events`.

    `tracked_label` is the concrete model whose saves are recorded on SQLite, for a proxy that
    tracks a model of another app (auth.User).
    """
    tracker = pghistory.track(
        pghistory.InsertEvent(),
        pghistory.UpdateEvent(),
        pghistory.DeleteEvent(),
        exclude=list(exclude) or None,
        obj_field=pghistory.ObjForeignKey(related_name="audit_events"),
        context_field=pghistory.ContextJSONField(),
        context_id_field=pghistory.ContextUUIDField(),
        model_name=model_name,
    )

    def decorate(model):
        model = tracker(model)
        _event_labels(model.pgh_event_model, model)
        _EVENT_MODELS[tracked_label or model._meta.label] = model.pgh_event_model
        return model

    return decorate


# The labels of the fields pghistory adds to every event model (and of the tracked row's id it
# copies), in the reader's language. Set on the event model's fields at definition: they are labels
# only, never in its migrations (pghistory's own fields carry none).
_EVENT_FIELD_LABELS = {
    "id": _("row id"),
    "pgh_id": _("event id"),
    "pgh_created_at": _("recorded at"),
    "pgh_label": _("event"),
    "pgh_obj": _("row"),
    "pgh_context": _("context"),
    "pgh_context_id": _("context id"),
}


def _event_labels(event_model, tracked) -> None:
    meta = event_model._meta
    meta.verbose_name = format_lazy(_("{model} audit event"), model=tracked._meta.verbose_name)
    meta.verbose_name_plural = format_lazy(_("{model} audit events"), model=tracked._meta.verbose_name)
    for field in meta.local_fields:
        if field.name in _EVENT_FIELD_LABELS:
            field.verbose_name = _EVENT_FIELD_LABELS[field.name]


def event_model_for(model) -> EventModel | None:
    return _EVENT_MODELS.get(model._meta.concrete_model._meta.label)


def audit_event_tables() -> list[str]:
    """The database tables of every audit event model: insert-only, like the facts (for the
    insert-only triggers' list; every model tracked with `audit_track` is in it)."""
    return sorted(model._meta.db_table for model in _EVENT_MODELS.values())


# ---------------------------------------------------------------------------------------- context


def _metadata(*, user=None, actor=None, **extra) -> dict:
    metadata = dict(extra)
    if actor is not None:
        metadata["actor"] = str(actor)
        user = user if user is not None else getattr(actor, "user", None)
        if getattr(actor, "device", None) is not None:
            metadata["device"] = actor.device.pk
    if user is not None and getattr(user, "pk", None) is not None:
        metadata["user"] = user.pk
    return metadata


@contextmanager
def audit_context(*, user=None, actor=None, **extra):
    """Attach who is acting (a user, or an `Actor`) to every audit event written inside.

    For services run outside a request (management commands, scripts). Nested contexts merge.
    On PostgreSQL the values are SQL settings local to the transaction: a statement later in the
    same transaction, after the block, still carries them.
    """
    metadata = _metadata(user=user, actor=actor, **extra)
    if is_postgresql():
        with pghistory.context(**metadata):
            yield
        return
    stack = _context_stack()
    if stack:
        merged = {**stack[-1][1], **metadata}
        stack.append((stack[-1][0], merged))
    else:
        stack.append((uuid.uuid4(), metadata))
    try:
        yield
    finally:
        stack.pop()


def _context_stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


class AuditContextMiddleware:
    """SQLite's stand-in for pghistory's HistoryMiddleware: the request's user and URL go with
    every audit event the request writes. The user is read when an event is written, so a user
    authenticated later in the view (the API's key or session) is seen too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        stack = _context_stack()
        from pit.accounts.access import client_address  # access needs django-axes, loaded after the models

        stack.append((uuid.uuid4(), {"url": request.path, "address": client_address(request)}, request))
        try:
            return self.get_response(request)
        finally:
            stack.pop()


class _DeviceAwareRequest:
    """pghistory's request class notes the user when DRF authenticates one; a floor device (no
    Django user) is noted as the device, so raw statements of its requests carry it too."""

    def __setattr__(self, attr, value):
        if attr == "user" and getattr(value, "device", None) is not None:
            pghistory.context(device=value.device.pk)
        super().__setattr__(attr, value)


class _PitWSGIRequest(_DeviceAwareRequest, pghistory.middleware.WSGIRequest):
    pass


class PitHistoryMiddleware(pghistory.middleware.HistoryMiddleware):
    """pghistory's middleware (PostgreSQL), with the client's address and the API's device."""

    def get_context(self, request) -> dict:
        from pit.accounts.access import client_address  # access needs django-axes, loaded after the models

        return {**super().get_context(request), "address": client_address(request)}

    def __call__(self, request):
        if request.method not in pghistory.config.middleware_methods():
            return self.get_response(request)
        with pghistory.context(**self.get_context(request)):
            if type(request) is WSGIRequest:
                request.__class__ = _PitWSGIRequest
            return self.get_response(request)


# Who enqueued a task travels with it (a message header), so its events say on whose behalf it ran.
TASK_HEADER = "pit_audit"


def _who_now() -> dict:
    if is_postgresql():
        tracked = getattr(pghistory.runtime._tracker, "value", None)
        metadata = tracked.metadata if tracked is not None else {}
    else:
        metadata = _current_context()[1] or {}
    return {key: metadata[key] for key in ("user", "device", "url", "task") if metadata.get(key) is not None}


def _task_published(sender=None, headers=None, **kwargs):
    if headers is not None:
        who = _who_now()
        if who:
            headers[TASK_HEADER] = who


def _task_started(sender=None, task_id=None, task=None, **kwargs):
    """A Celery task's audit events say which task wrote them (actor "system", task name) and on
    whose behalf (the user or device whose request enqueued it, when one did).

    Not for an eager task: it runs inside its caller, whose context already says who acts.
    """
    task = task or sender
    if task is None or getattr(task.request, "is_eager", False):
        return
    on_behalf_of = getattr(task.request, TASK_HEADER, None) or (task.request.headers or {}).get(TASK_HEADER)
    extra = {"on_behalf_of": on_behalf_of} if on_behalf_of else {}
    context = audit_context(actor="system", task=task.name, **extra)
    context.__enter__()
    _task_contexts()[task_id] = context


def _task_finished(sender=None, task_id=None, **kwargs):
    context = _task_contexts().pop(task_id, None)
    if context is not None:
        context.__exit__(None, None, None)


def _task_contexts() -> dict:
    if not hasattr(_local, "tasks"):
        _local.tasks = {}
    return _local.tasks


def _current_context() -> tuple[uuid.UUID | None, dict | None]:
    stack = _context_stack()
    if not stack:
        return None, None
    context_id, metadata, *request = stack[-1]
    metadata = dict(metadata)
    if request and "user" not in metadata:
        user = getattr(request[0], "user", None)
        if user is None:
            metadata["user"] = None
        else:
            metadata["user"] = user.pk if getattr(user, "is_authenticated", False) else None
            if getattr(user, "device", None) is not None:
                metadata["device"] = user.device.pk
    return context_id, metadata


# ---------------------------------------------------------------------------------------- SQLite


def _snapshot(event_model, obj) -> dict:
    tracked = {field.attname for field in obj._meta.concrete_model._meta.concrete_fields}
    return {
        field.attname: getattr(obj, field.attname)
        for field in event_model._meta.concrete_fields
        if not field.name.startswith("pgh_") and field.attname in tracked
    }


def event_record(obj, *, label: str, using: str = "default"):
    """Write one audit event for `obj` from Python, as the trigger would (SQLite only).

    An update that changed no tracked field writes nothing, like the trigger's condition.
    """
    event_model = event_model_for(obj)
    if event_model is None:
        raise LookupError(f"{obj._meta.label} is not tracked (audit_track)")
    snapshot = _snapshot(event_model, obj)
    if label == "update":
        last = event_model.objects.using(using).filter(pgh_obj_id=obj.pk).order_by("-pgh_id").values(*snapshot).first()
        if last is not None and {key: _comparable(value) for key, value in last.items()} == {
            key: _comparable(value) for key, value in snapshot.items()
        }:
            return None
    context_id, metadata = _current_context()
    return event_model.objects.using(using).create(
        pgh_label=label, pgh_obj_id=obj.pk, pgh_context=metadata, pgh_context_id=context_id, **snapshot
    )


def _comparable(value):
    # A fresh instance holds what was assigned (e.g. a Decimal or a date string), the database what it stored.
    return str(value) if value is not None else None


def _on_save(sender, instance, created, raw=False, using="default", **kwargs):
    if raw or is_postgresql(using):
        return
    event_record(instance, label=gettext("insert") if created else gettext("update"), using=using)


def _on_delete(sender, instance, using="default", **kwargs):
    if is_postgresql(using):
        return
    event_record(instance, label=gettext("delete"), using=using)


def receivers_connect() -> None:
    """Connect the SQLite receivers for every audited model and the Celery task context
    (called from AccountsConfig.ready)."""
    from celery.signals import before_task_publish, task_postrun, task_prerun
    from django.apps import apps

    for label in _EVENT_MODELS:
        model = apps.get_model(label)
        post_save.connect(_on_save, sender=model, dispatch_uid=f"audit_save_{label}")
        post_delete.connect(_on_delete, sender=model, dispatch_uid=f"audit_delete_{label}")
    before_task_publish.connect(_task_published, dispatch_uid="audit_task_published", weak=False)
    task_prerun.connect(_task_started, dispatch_uid="audit_task_started", weak=False)
    task_postrun.connect(_task_finished, dispatch_uid="audit_task_finished", weak=False)


# ---------------------------------------------------------------------------------------- reading the trail


def _shown(field, value) -> str:
    """A stored value as a person reads it: a choice by its label, empty as "—"."""
    if value is None or value == "":
        return "—"
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True, default=str)
    choices = dict(field.flatchoices) if getattr(field, "choices", None) else {}
    return str(choices.get(value, value))


def event_changes(event, previous) -> list[tuple[str, str, str]]:
    """What an event changed, as (field's verbose name, before, after) for each tracked field whose
    value differs from the previous event of the same record (an insert: every field, from "—";
    a delete: nothing, the record is gone as it last stood)."""
    if event.pgh_label == "delete":
        return []
    changes = []
    for field in event._meta.concrete_fields:
        if field.name.startswith("pgh_"):
            continue
        after = getattr(event, field.attname)
        before = getattr(previous, field.attname) if previous is not None else None
        if previous is not None and _comparable(before) == _comparable(after):
            continue
        if previous is None and (after is None or after == ""):
            continue
        changes.append((str(field.verbose_name), _shown(field, before), _shown(field, after)))
    return changes


def who_text(context: dict | None, names: dict[int, str]) -> str:
    """Who acted, in words: the user by name, a floor device, or the system task (and on whose behalf)."""
    context = context or {}
    if context.get("user") is not None:
        return names.get(context["user"], f"user #{context['user']} (no longer on file)")
    if context.get("device") is not None:
        return f"floor device #{context['device']}"
    if context.get("task"):
        behalf = context.get("on_behalf_of") or {}
        by = f" for {names.get(behalf['user'], behalf['user'])}" if behalf.get("user") is not None else ""
        return f"the system (task {context['task']}){by}"
    return str(context.get("actor") or "the system")
