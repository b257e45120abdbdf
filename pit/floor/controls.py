"""The pit's internal controls on a simulated floor, as a well-run pit keeps them around the play
the dealer recorded: each shoe's decks received into the card room (two signers) and issued to
its table for it before the shuffle, back in storage after the shoe, cancelled and destroyed
before a witness; the card storage key drawn to fetch them and each table's drop box release key
drawn for the drop, each back in time and drawn by a pit boss on its list; at every shift change
with tables open, the outgoing pit boss's handover and the incoming one's acceptance; surveillance
told of each shoe's decks leaving storage and acknowledging at once, as it does the live alarms,
large fills and off-schedule tables the minute's gather tells it of; each notice owed to the
regulator filed with a reference within half an hour of being found; the table-limit raises of
pit.floor.limits. The slip series and the drop notices are kept with the table accounting
(pit.floor.accounting, `controls=True`).

Lapses, at set rates, each found by a check: `short_issue` (a shoe's last deck never recorded as
issued: shoe_cards_not_issued), `unlisted_key` (the drop key drawn by the card-room clerk, who is
not on its list: key_issued_unlisted), `late_key` (the drop key back after its time:
key_out_overdue), `missed_handover` (a shift change nobody handed over: shift_not_handed_over),
`unwatched_decks` (decks leaving storage that surveillance never acknowledged:
surveillance_unacknowledged), `unfiled_notice` (a regulator notice never filed:
regulator_notice_overdue, once its deadline passes) and `kept_raise` (a limit raise never put
back: wager_under_minimum, pit.floor.limits); with the table accounting's `skipped_slip` and
`late_acknowledgement` (pit.floor.accounting.CONTROL_FAULT_CODES), the lapses the `simulate`
command's --control-fault-rate sets. Safe to run twice: what is recorded is not recorded again.
"""

from __future__ import annotations

import datetime as dt
import random

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Max
from django.utils import timezone

from pit.controls import services
from pit.controls.models import Deck, KeyIssue, KeyKind, SensitiveKey, ShiftHandover, StoragePlace
from pit.controls.selectors import key_max_out, key_out
from pit.controls.shifts import shift_changes
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.floor.accounting import CONTROL_FAULT_CODES as ACCOUNTING_CONTROL_LAPSES
from pit.floor.limits import LIMIT_FAULT_CODES, simulate_limit_changes
from pit.floor.simulator import InjectedFault
from pit.notices.models import NotificationKind, RegulatorNotice, SurveillanceNotification
from pit.notices.services import (
    decks_leaving_notify,
    notices_gather,
    regulator_notice_file,
    surveillance_acknowledge,
    surveillance_late_check,
)
from pit.shoes.models import Coup, Shoe
from pit.tables.models import TableEvent

CONTROL_FAULT_CODES = {
    "short_issue": "shoe_cards_not_issued",
    "unlisted_key": "key_issued_unlisted",
    "late_key": "key_out_overdue",
    "missed_handover": "shift_not_handed_over",
    "unwatched_decks": "surveillance_unacknowledged",
    "unfiled_notice": "regulator_notice_overdue",
    **LIMIT_FAULT_CODES,
    **ACCOUNTING_CONTROL_LAPSES,
}
MINUTE = dt.timedelta(minutes=1)


def parse_control_faults(text: str | None) -> dict[str, float]:
    """ "short_issue=0.01,late_key=0.02" (or one rate for every lapse) as {lapse: rate}."""
    rates = dict.fromkeys(CONTROL_FAULT_CODES, 0.0)
    if not text:
        return rates
    if "=" not in text:
        return dict.fromkeys(CONTROL_FAULT_CODES, float(text))
    for part in text.split(","):
        kind, _, rate = part.partition("=")
        if kind.strip() not in rates:
            raise ValueError(f"{kind.strip()!r} is not a control lapse ({', '.join(CONTROL_FAULT_CODES)})")
        rates[kind.strip()] = float(rate)
    return rates


def _staff():
    User = get_user_model()
    people = []
    for username in ("sim_pit_boss", "sim_pit_boss_2", "sim_card_clerk", "sim_surveillance"):
        user, created = User.objects.get_or_create(username=username, defaults={"is_active": True})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        people.append(user)
    return people


def _key(code: str, kind: str, name: str, holders, since: dt.datetime) -> SensitiveKey:
    key, _ = SensitiveKey.objects.get_or_create(code=code, defaults={"kind": kind, "name": name})
    if not key.access_lists.exists():
        services.key_access_set(key=key, holders=holders, effective_from=since)
    return key


def _draw(key, *, table, to, by, purpose, at, back):
    """A key drawn at `at` and returned at `back`, once (a run again finds it drawn); while another
    pit boss has it out, the decks come with theirs."""
    if KeyIssue.objects.filter(key=key, issued_at=at).exists() or key_out(key, at) is not None:
        return
    issue = services.key_issue(key=key, table=table, issued_to=to, issued_by=by, purpose=purpose, issued_at=at)
    services.key_return(issue=issue, returned_by=to, received_by=by, returned_at=back)


def simulate_controls(
    *, seed: int = 0, faults: dict[str, float] | None = None, now: dt.datetime | None = None
) -> list[InjectedFault]:
    """The controls around every shoe, drop and shift change recorded so far (up to `now`)."""
    rates = {**dict.fromkeys(CONTROL_FAULT_CODES, 0.0), **(faults or {})}
    rng = random.Random(f"pit-floor-controls:{seed}")
    now = now or timezone.now()
    boss, relief, clerk, watcher = _staff()
    shoes = list(Shoe.objects.select_related("table").order_by("shuffled_at", "pk"))
    first_open = TableEvent.objects.order_by("at").values_list("at", flat=True).first()
    if not shoes or first_open is None:
        return []
    since = min(first_open, shoes[0].shuffled_at) - dt.timedelta(days=1)
    room, _ = StoragePlace.objects.get_or_create(code="CR1", defaults={"name": "Card room"})
    storage_key = _key("CS-1", KeyKind.CARD_STORAGE, "Card room", [boss, relief], since)
    injected: list[InjectedFault] = []
    last_coup = dict(
        Coup.objects.values("shoe_id").order_by().annotate(last=Max("dealt_at")).values_list("shoe_id", "last")
    )
    drops: set[tuple[int, dt.date]] = set()
    unwatched: list[SurveillanceNotification] = []
    for shoe in shoes:
        at = shoe.shuffled_at
        drops.add((shoe.table_id, gaming_day_for(at)))
        if Deck.objects.filter(serial=f"S{shoe.pk}-1").exists():
            continue
        decks = services.decks_receive(
            serials=[f"S{shoe.pk}-{n}" for n in range(1, shoe.decks + 1)],
            storage=room,
            received_by=clerk,
            second_signer=boss,
            received_at=at - 40 * MINUTE,
            lot=f"delivery {gaming_day_for(at)}",
        )
        _draw(
            storage_key,
            table=shoe.table,
            to=boss,
            by=clerk,
            purpose="decks for a shoe",
            at=at - 30 * MINUTE,
            back=at - 20 * MINUTE,
        )
        issued = decks
        if rng.random() < rates["short_issue"]:
            issued = decks[:-1]
            injected.append(
                InjectedFault(
                    "short_issue",
                    CONTROL_FAULT_CODES["short_issue"],
                    shoe.table.code,
                    shoe.sequence,
                    shoe_id=shoe.pk,
                    gaming_day=gaming_day_for(at),
                    detail=f"{len(issued)} of {shoe.decks} decks recorded as issued",
                )
            )
        services.decks_issue(decks=issued, shoe=shoe, issued_by=clerk, taken_by=boss, issued_at=at - 15 * MINUTE)
        told = decks_leaving_notify(
            table=shoe.table, decks=len(issued), reference=f"shoe {shoe.pk}", at=at - 15 * MINUTE
        )
        if rng.random() < rates["unwatched_decks"]:
            unwatched.append(told)
            injected.append(
                InjectedFault(
                    "unwatched_decks",
                    CONTROL_FAULT_CODES["unwatched_decks"],
                    shoe.table.code,
                    shoe.sequence,
                    shoe_id=shoe.pk,
                    gaming_day=gaming_day_for(told.notified_at),
                    detail=f"{told} not acknowledged",
                )
            )
        else:
            surveillance_acknowledge(notification=told, user=watcher, at=told.notified_at + MINUTE)
        if shoe.closed_at is None:
            continue  # still dealing: its decks are at the table
        # The shoe ends at its last coup (a backlog's close may be posted later than it happened).
        ended = min(shoe.closed_at, last_coup.get(shoe.pk) or shoe.closed_at)
        for deck in issued:
            services.deck_return(deck=deck, storage=room, by=boss, at=ended + 5 * MINUTE)
        for deck in decks:
            services.deck_cancel(deck=deck, by=clerk, witness=boss, at=ended + 10 * MINUTE)
            services.deck_destroy(deck=deck, by=clerk, witness=boss, at=ended + 20 * MINUTE)
    # The drop: each table-day's box released with its table's key, at the day's end.
    for table_id, day in sorted(drops):
        table = next(shoe.table for shoe in shoes if shoe.table_id == table_id)
        key = _key(
            f"DBR-{table.code}", KeyKind.DROP_BOX_RELEASE, f"Drop box release {table.code}", [boss, relief], since
        )
        at = gaming_day_bounds(day)[1] - 45 * MINUTE
        if at > now or KeyIssue.objects.filter(key=key, issued_at=at).exists():
            continue
        to, back = boss, at + 15 * MINUTE
        if rng.random() < rates["unlisted_key"]:
            to = clerk
            injected.append(
                InjectedFault(
                    "unlisted_key",
                    CONTROL_FAULT_CODES["unlisted_key"],
                    table.code,
                    0,
                    gaming_day=day,
                    detail=f"{key.code} drawn by {clerk.username}",
                )
            )
        if rng.random() < rates["late_key"]:
            back = at + dt.timedelta(minutes=key_max_out(key) + 30)
            injected.append(
                InjectedFault(
                    "late_key",
                    CONTROL_FAULT_CODES["late_key"],
                    table.code,
                    0,
                    gaming_day=day,
                    detail=f"{key.code} back after {key_max_out(key) + 30} minutes",
                )
            )
        issuer = relief if to == boss else boss
        issue = services.key_issue(key=key, table=table, issued_to=to, issued_by=issuer, purpose="drop", issued_at=at)
        services.key_return(issue=issue, returned_by=to, received_by=issuer, returned_at=min(back, now))
    # The shift changes with tables open: handed over and accepted.
    window = dt.timedelta(minutes=settings.PIT_CONTROLS_HANDOVER_MINUTES)
    outgoing, incoming = boss, relief
    for change in shift_changes(first_open, now - window):
        if ShiftHandover.objects.filter(shift_change_at=change).exists():
            continue
        if rng.random() < rates["missed_handover"]:
            injected.append(
                InjectedFault(
                    "missed_handover",
                    CONTROL_FAULT_CODES["missed_handover"],
                    "",
                    0,
                    gaming_day=gaming_day_for(change),
                    detail=f"nobody handed over at {change:%Y-%m-%d %H:%M}",
                )
            )
        else:
            handover = services.shift_handover_record(handed_by=outgoing, at=change - 5 * MINUTE)
            services.shift_handover_accept(handover=handover, accepted_by=incoming, at=change + 5 * MINUTE)
        outgoing, incoming = incoming, outgoing
    injected += simulate_limit_changes(seed=seed, faults=rates, user=boss)
    injected += _notices(seed=seed, rates=rates, boss=boss, watcher=watcher, unwatched=unwatched)
    return injected


def _notices(*, seed, rates, boss, watcher, unwatched) -> list[InjectedFault]:
    """What the minute's gather makes (live alarms, large fills, off-schedule tables, the notices
    owed to the regulator: stamped when their records were, so gathered now), acknowledged by
    surveillance at once; every notice filed with a reference within half an hour of being found
    (an unfiled one is found when its deadline passes). The drops' notifications are the table
    accounting's. The decks surveillance left unseen are found as the minute's check would have."""
    notices_gather(now=timezone.now())
    pending = SurveillanceNotification.objects.filter(acknowledgement__isnull=True).exclude(
        kind__in=(NotificationKind.DROP, NotificationKind.DECKS)
    )
    for notification in pending.order_by("pk"):
        surveillance_acknowledge(notification=notification, user=watcher, at=notification.notified_at)
    last_due: dict[dt.date, dt.datetime] = {}
    for notification in unwatched:
        day = gaming_day_for(notification.notified_at)
        last_due[day] = max(last_due.get(day, notification.due_by), notification.due_by)
    for due in sorted(last_due.values()):
        surveillance_late_check(now=due + MINUTE)
    injected = []
    for notice in RegulatorNotice.objects.filter(filing__isnull=True).select_related("table").order_by("pk"):
        # Drawn per notice, so that a run again leaves the same notices unfiled.
        if random.Random(f"pit-floor-notices:{seed}:{notice.pk}").random() < rates["unfiled_notice"]:
            injected.append(
                InjectedFault(
                    "unfiled_notice",
                    CONTROL_FAULT_CODES["unfiled_notice"],
                    notice.table.code,
                    0,
                    gaming_day=notice.gaming_day,
                    detail=f"notice {notice} never filed (due {timezone.localtime(notice.due_at):%Y-%m-%d %H:%M})",
                )
            )
            continue
        filed_at = min(notice.found_at + 30 * MINUTE, max(notice.found_at, timezone.now()))
        regulator_notice_file(
            notice=notice, reference=f"SIM-{notice.rule_code}-{notice.pk}", user=boss, filed_at=filed_at
        )
    return injected
