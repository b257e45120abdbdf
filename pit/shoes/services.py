"""Writes to shoes and coups: starting a shoe, recording coups (one or a batch), closing a shoe.

A coup is evaluated and its wagers settled by the game engine; commission owed in a `box` game
goes to the ledger in the same transaction; the rule checks run after commit, in Celery. What is
well-formed but breaks a rule is stored and flagged, never refused: the floor reports what
happened and the back-office judges it.
"""

import dataclasses
import datetime as dt
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import JSONField
from django.utils import timezone

from pit import game
from pit.core.actors import SYSTEM, Actor
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_for
from pit.core.money import MoneyError, from_minor, settlement_unit, to_minor
from pit.core.outbox import outbox_after_commit, outbox_enqueue, outbox_message
from pit.core.rows import model_columns, model_from_row
from pit.paytables.selectors import engine_paytable
from pit.records.chain import SPEC_BY_LABEL
from pit.records.services import chain_rows, records_chain
from pit.shoes.models import CorrectionKind, Coup, CoupCorrection, Shoe, ShoeStatus, Wager
from pit.tables.models import Table

# The tasks a write owes, by their registered names (pit.ledger.tasks, pit.compliance.tasks): the
# outbox sends them by name, so the services import no task module (which import the services).
SHOE_RECONCILE = "ledger.shoe_reconcile"
# The chained rows a coup writes, in the order a batch links them: its coups, their wagers, the accruals.
COUP_CHAIN_LABELS = ("shoes.Coup", "shoes.Wager", "ledger.CommissionEntry")
COUPS_VERIFY = "compliance.coups_verify"


@dataclass(frozen=True)
class WagerInput:
    seat: int
    bet: str
    amount: Decimal
    paid: Decimal | None = None


@dataclass(frozen=True)
class CoupInput:
    number: int
    player: list[str]
    banker: list[str]
    dealt_at: dt.datetime | None = None
    reported_winner: str = ""
    wagers: tuple[WagerInput, ...] = ()


class CoupOutcomeStatus:
    CREATED = "created"  # recorded now
    EXISTING = "existing"  # the same coup was recorded before (a replay): nothing written
    CONFLICT = "conflict"  # the number was recorded before with other values: flagged, nothing else written
    INVALID = "invalid"  # malformed: nothing written


@dataclass(slots=True)
class SettledWager:
    """A wager as the engine settled it, in minor units: the values of a `Wager` row, without the
    model (a day's batch settles some 11,000 of them; instantiating models was a quarter of its time)."""

    seat: int
    bet: str
    currency: str
    amount_minor: int
    result: str
    payout_minor: int
    commission_minor: int
    paid_minor: int | None

    def model(self, **links) -> Wager:
        return Wager(**{name: getattr(self, name) for name in self.__slots__}, **links)


@dataclass
class CoupOutcome:
    status: str
    coup: Coup | None = None
    errors: dict = field(default_factory=dict)
    violation: object = None
    wagers: list[SettledWager] = field(default_factory=list)  # a coup created now: its wagers as stored


# ---------------------------------------------------------------------------------------- shoes


def _cards(codes, field_name: str) -> tuple[game.Card, ...]:
    if not isinstance(codes, list | tuple):
        raise ValidationError({field_name: 'Give the cards as a list of card codes, e.g. ["5H", "KD"].'})
    try:
        return game.parse_cards(codes)
    except game.InvalidCard as exc:
        raise ValidationError({field_name: str(exc)}) from exc


@transaction.atomic
def shoe_start(
    *,
    table: Table,
    cut_card_position: int,
    decks: int = 8,
    burn: list[str] = (),
    shuffled_at=None,
    actor: Actor = SYSTEM,
) -> Shoe:
    """A new shoe at the table, after a shuffle. Refused (Conflict) while another shoe is dealing."""
    burn_cards = _cards(list(burn), "burn")
    table = Table.objects.select_for_update().get(pk=table.pk)
    dealing = Shoe.objects.filter(table=table, status=ShoeStatus.DEALING).first()
    if dealing is not None:
        raise Conflict(
            f"Shoe {dealing.sequence} (id {dealing.pk}) is still dealing at table {table.code}; close it first.",
            shoe_id=dealing.pk,
            sequence=dealing.sequence,
        )
    if not isinstance(decks, int) or not 1 <= decks <= 12:
        raise ValidationError({"decks": "A shoe holds 1 to 12 decks."})
    if not isinstance(cut_card_position, int) or not 1 <= cut_card_position <= decks * 52:
        raise ValidationError({"cut_card_position": f"The cut card goes between card 1 and card {decks * 52}."})
    last = Shoe.objects.filter(table=table).order_by("-sequence").values_list("sequence", flat=True).first()
    shoe = Shoe(
        table=table,
        sequence=(last or 0) + 1,
        decks=decks,
        cut_card_position=cut_card_position,
        shuffled_at=shuffled_at or timezone.now(),
        burn_cards=[card.code for card in burn_cards],
        cards_seen=dict(Counter(card.code for card in burn_cards)),
        **actor.recorded_fields(),
    )
    shoe.full_clean()
    shoe.save()
    return shoe


def shoe_lock(shoe_id: int) -> Shoe:
    """The shoe row, locked for this transaction: coups of a shoe are recorded one writer at a time.

    Its table's row is locked with it; the paytable in force only share-locked (PostgreSQL): a plain
    FOR UPDATE over the join locked the paytable row too, so every table playing that paytable
    recorded its coups one after the other. An edit of the paytable (select_for_update) still waits
    for the coups being settled under it.
    """
    shoe = Shoe.objects.select_for_update(of=("self", "table")).select_related("table").get(pk=shoe_id)
    if connection.vendor == "postgresql":
        from pit.paytables.models import PaytableConfiguration

        table_name = connection.ops.quote_name(PaytableConfiguration._meta.db_table)
        shoe.table.paytable = PaytableConfiguration.objects.raw(
            f"SELECT * FROM {table_name} WHERE id = %s FOR SHARE",  # noqa: S608 (a name from the model)
            [shoe.table.paytable_id],
        )[0]
    return shoe


_COUP_LOCK_SQL: tuple[str, str] | None = None


def _coup_lock_sql() -> tuple[str, str]:
    """PostgreSQL: `_shoe_lock_for_coup`'s two statements, written once per process (only names from
    the models' metadata go into the text; the values are parameters)."""
    global _COUP_LOCK_SQL
    if _COUP_LOCK_SQL is None:
        from pit.paytables.models import PaytableConfiguration
        from pit.records.models import ChainHead

        quote = connection.ops.quote_name
        models = {"s": Shoe, "t": Table, "p": PaytableConfiguration}
        columns = ", ".join(column for alias, model in models.items() for column in model_columns(model, alias))
        name = {model: quote(model._meta.db_table) for model in (*models.values(), Coup, ChainHead)}
        _COUP_LOCK_SQL = (
            f"SELECT {columns} FROM {name[Shoe]} s JOIN {name[Table]} t ON t.id = s.table_id "  # noqa: S608
            f"JOIN {name[PaytableConfiguration]} p ON p.id = t.paytable_id "
            "WHERE s.id = %s FOR UPDATE OF s, t FOR SHARE OF p",
            f"SELECT h.length, h.head, EXISTS (SELECT 1 FROM {name[Coup]} WHERE shoe_id = %s AND number = %s), "  # noqa: S608
            "nextval(pg_get_serial_sequence(%s, %s)), "
            "ARRAY(SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)) "
            f"FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT length, head FROM {name[ChainHead]} "
            "WHERE shoe_id = %s FOR UPDATE) h ON true",
        )
    return _COUP_LOCK_SQL


@dataclass
class _ShoeLockedForCoup:
    shoe: Shoe  # locked, its table locked and its paytable share-locked, as shoe_lock leaves them
    chain_head: tuple[int, str] | None  # the shoe's chain head, locked (records_chain's read)
    recorded: bool  # a coup of this number is recorded in the shoe
    ids: tuple[int, list[int]] | None = None  # PostgreSQL: the ids taken for the coup and its wagers


def _shoe_lock_for_coup(shoe_id: int, number, wagers: int = 0) -> _ShoeLockedForCoup:
    """What one coup's recording reads before it writes: the shoe with shoe_lock's locks, the shoe's
    chain head (FOR UPDATE, as records_chain reads it) and whether `number` is recorded already; in
    two round trips on PostgreSQL. Shoe.DoesNotExist if there is no such shoe.

    On PostgreSQL the second read also takes the ids the coup and its `wagers` wagers will have from
    their sequences (`ids`): a wager's hash links its coup's id and an accrual's its wager's, so with
    the ids known first every row is hashed in memory and all of them written in one statement
    (`_store_one`). Ids taken and not used (a replay, a malformed coup) leave a gap, as a rollback does."""
    from pit.paytables.models import PaytableConfiguration
    from pit.records.models import ChainHead

    # A number that is no coup number (refused by _prepare) is looked for as none.
    number = number if isinstance(number, int) and not isinstance(number, bool) and 1 <= number < 2**31 else None
    if connection.vendor != "postgresql":
        shoe = shoe_lock(shoe_id)
        head = ChainHead.objects.select_for_update().filter(shoe_id=shoe_id).values_list("length", "head").first()
        recorded = number is not None and Coup.objects.filter(shoe_id=shoe_id, number=number).exists()
        return _ShoeLockedForCoup(shoe, head, recorded)
    lock_sql, head_sql = _coup_lock_sql()
    # Two statements: the shoe is locked before its chain head, in the order every writer of the
    # shoe takes them (one statement would lock the head first, in its join), and the second one's
    # snapshot sees what a writer the first waited for committed.
    with connection.cursor() as cursor:
        cursor.execute(lock_sql, [shoe_id])
        row = cursor.fetchone()
        if row is None:
            raise Shoe.DoesNotExist(f"There is no shoe {shoe_id}.")
        cursor.execute(
            head_sql,
            [
                shoe_id,
                number,
                Coup._meta.db_table,
                Coup._meta.pk.column,
                Wager._meta.db_table,
                Wager._meta.pk.column,
                wagers,
                shoe_id,
            ],
        )
        length, head, recorded, coup_id, wager_ids = cursor.fetchone()
    row = list(row)
    shoe, table, paytable = (model_from_row(model, row) for model in (Shoe, Table, PaytableConfiguration))
    table.paytable = paytable
    shoe.table = table
    return _ShoeLockedForCoup(shoe, None if length is None else (length, head), recorded, (coup_id, wager_ids))


@transaction.atomic
def shoe_close(*, shoe: Shoe, box_counts: list[tuple[int, Decimal]], closed_at=None, actor: Actor = SYSTEM) -> Shoe:
    """The shuffle: close the shoe with the commission box count per seat; reconcile after commit.

    Closing again with the same counts is a no-op; with other counts it is a Conflict.
    """
    from pit.ledger.models import BoxCount

    shoe = shoe_lock(shoe.pk)
    table = shoe.table
    counts: dict[int, int] = {}
    for index, (seat, counted) in enumerate(box_counts):
        if seat not in table.seats:
            raise ValidationError({f"commission_box[{index}].seat": f"{seat} is not a seat at table {table.code}."})
        if seat in counts:
            raise ValidationError({f"commission_box[{index}].seat": f"Seat {seat} is counted twice."})
        try:
            counted_minor = to_minor(Decimal(counted), table.currency)
        except MoneyError as exc:
            raise ValidationError({f"commission_box[{index}].counted": str(exc)}) from exc
        if counted_minor < 0:
            raise ValidationError({f"commission_box[{index}].counted": "A count cannot be negative."})
        counts[seat] = counted_minor
    if shoe.status == ShoeStatus.CLOSED:
        recorded = dict(shoe.box_counts.values_list("seat", "counted_minor"))
        if recorded != {seat: minor for seat, minor in counts.items() if minor or seat in recorded}:
            raise Conflict(f"{shoe} was closed already with other commission box counts.", shoe_id=shoe.pk)
        return shoe
    shoe.status = ShoeStatus.CLOSED
    shoe.close_recorded_at = timezone.now()
    shoe.closed_at = closed_at or shoe.close_recorded_at
    shoe.save(update_fields=["status", "closed_at", "close_recorded_at"])
    with records_chain(shoe_id=shoe.pk):
        BoxCount.objects.bulk_create(
            BoxCount(shoe=shoe, seat=seat, currency=table.currency, counted_minor=minor, **actor.recorded_fields())
            for seat, minor in sorted(counts.items())
        )
    outbox_enqueue(SHOE_RECONCILE, shoe.pk)
    return shoe


# ---------------------------------------------------------------------------------------- coups


@dataclass
class _PreparedCoup:
    item: CoupInput
    player: tuple[game.Card, ...]
    banker: tuple[game.Card, ...]
    evaluation: game.Evaluation
    wagers: list[SettledWager]


def _prepare(item: CoupInput, table: Table, paytable: game.Paytable, settled: dict | None = None) -> _PreparedCoup:
    """Check a coup's input against the table and settle it with the engine; ValidationError if malformed.

    `settled` memoizes the engine's settlements over a batch (a settlement depends on nothing but the
    paytable, the bet, the stake and the evaluation, and a day repeats the same few thousand)."""
    errors: dict[str, str] = {}
    if not isinstance(item.number, int) or isinstance(item.number, bool) or item.number < 1:
        errors["number"] = "A coup number is a whole number from 1 up."
    hands = {}
    for name, codes in (("player", item.player), ("banker", item.banker)):
        try:
            hands[name] = _cards(codes, name)
        except ValidationError as exc:
            errors.update(exc.message_dict and {k: v[0] for k, v in exc.message_dict.items()})
            continue
        if not 2 <= len(hands[name]) <= 3:
            errors[name] = f"A hand holds two or three cards; {len(hands[name])} were given."
    if item.reported_winner not in ("", *game.Winner):
        errors["reported_winner"] = f"{item.reported_winner!r} is not a winner (player, banker or tie)."
    wager_keys = set()
    minors: list[tuple[int, int | None]] = []
    for index, wager in enumerate(item.wagers):
        where = f"wagers[{index}]"
        if wager.seat not in table.seats:
            seats = ", ".join(str(seat) for seat in table.seats)
            errors[f"{where}.seat"] = f"{wager.seat} is not a seat at table {table.code} (seats {seats})."
        if wager.bet not in paytable.bets:
            errors[f"{where}.bet"] = (
                f"{wager.bet!r} is not a bet at table {table.code} ({', '.join(sorted(paytable.bets))})."
            )
        if (wager.seat, wager.bet) in wager_keys:
            errors[f"{where}.bet"] = f"Seat {wager.seat} has two {wager.bet} wagers in this coup; send one."
        wager_keys.add((wager.seat, wager.bet))
        minor = {"amount": 0, "paid": None}
        for money_field in ("amount", "paid"):
            value = getattr(wager, money_field)
            if value is None:
                continue
            try:
                minor[money_field] = to_minor(value, table.currency)
            except MoneyError as exc:
                errors[f"{where}.{money_field}"] = str(exc)
                continue
            if money_field == "amount" and minor["amount"] <= 0:
                errors[f"{where}.amount"] = "A wager amount must be positive."
            if money_field == "paid" and minor["paid"] < 0:
                errors[f"{where}.paid"] = "A paid amount cannot be negative."
        minors.append((minor["amount"], minor["paid"]))
    if errors:
        raise ValidationError(errors)

    evaluation = game.evaluate(game.Coup(player=hands["player"], banker=hands["banker"]))
    settled_here = {} if settled is None else settled.setdefault(evaluation, {})
    wagers = []
    for wager, (amount_minor, paid_minor) in zip(item.wagers, minors, strict=True):
        key = (wager.bet, amount_minor)
        settlement = settled_here.get(key)
        if settlement is None:
            engine = game.settle(paytable, wager.bet, wager.amount, evaluation, unit=settlement_unit(table.currency))
            settlement = settled_here[key] = (
                str(engine.result),
                to_minor(engine.payout, table.currency),
                to_minor(engine.commission, table.currency),
            )
        wagers.append(SettledWager(wager.seat, wager.bet, table.currency, amount_minor, *settlement, paid_minor))
    return _PreparedCoup(item, hands["player"], hands["banker"], evaluation, wagers)


@dataclass(frozen=True)
class _CoupRecord:
    """What a coup says, in the form two postings of it are compared in. `dealt_at` None: not given."""

    player: tuple[str, ...]
    banker: tuple[str, ...]
    reported_winner: str
    dealt_at: dt.datetime | None
    wagers: dict[tuple[int, str], tuple[int, int | None]]  # (seat, bet) -> (amount, paid), minor units
    positions: dict[tuple[int, str], int]  # (seat, bet) -> index in the posted list

    @classmethod
    def posted(cls, prepared: _PreparedCoup) -> "_CoupRecord":
        return cls(
            player=tuple(card.code for card in prepared.player),
            banker=tuple(card.code for card in prepared.banker),
            reported_winner=prepared.item.reported_winner,
            dealt_at=prepared.item.dealt_at,
            wagers={(w.seat, w.bet): (w.amount_minor, w.paid_minor) for w in prepared.wagers},
            positions={(w.seat, w.bet): index for index, w in enumerate(prepared.wagers)},
        )

    @classmethod
    def recorded(cls, coup: Coup, wagers) -> "_CoupRecord":
        return cls(
            player=tuple(coup.player_cards),
            banker=tuple(coup.banker_cards),
            reported_winner=coup.reported_winner,
            dealt_at=coup.dealt_at,
            wagers={(w.seat, w.bet): (w.amount_minor, w.paid_minor) for w in wagers},
            positions={},
        )


def _repost_differences(recorded: _CoupRecord, posted: _CoupRecord, currency: str) -> dict[str, list[str]]:
    """Each field path of the repost (as posted: `wagers[2].amount`) whose value differs from the coup
    recorded, with both values. Empty for a true replay. A repost without `dealt_at` leaves it as it was."""

    def amount(minor):
        return "none" if minor is None else str(from_minor(minor, currency))

    differences: dict[str, list[str]] = {}
    for name in ("player", "banker"):
        was, now = getattr(recorded, name), getattr(posted, name)
        if was != now:
            differences[name] = [f"recorded {' '.join(was)}, posted {' '.join(now)}"]
    if recorded.reported_winner != posted.reported_winner:
        differences["reported_winner"] = [
            f"recorded {recorded.reported_winner or 'none'}, posted {posted.reported_winner or 'none'}"
        ]
    if posted.dealt_at is not None and posted.dealt_at != recorded.dealt_at:
        differences["dealt_at"] = [f"recorded {recorded.dealt_at.isoformat()}, posted {posted.dealt_at.isoformat()}"]
    for key, index in sorted(posted.positions.items(), key=lambda pair: pair[1]):
        seat, bet = key
        if key not in recorded.wagers:
            differences[f"wagers[{index}]"] = [f"seat {seat} {bet} was not recorded in this coup"]
            continue
        for part, was, now in zip(("amount", "paid"), recorded.wagers[key], posted.wagers[key], strict=True):
            if was != now:
                differences[f"wagers[{index}].{part}"] = [f"recorded {amount(was)}, posted {amount(now)}"]
    missing = [
        f"seat {seat} {bet} {amount(recorded.wagers[(seat, bet)][0])} was recorded and is not in the repost"
        for seat, bet in sorted(set(recorded.wagers) - set(posted.wagers))
    ]
    if missing:
        differences["wagers"] = missing
    return differences


def _repost_violation(shoe: Shoe, existing: Coup, prepared: _PreparedCoup, differences: dict[str, list[str]]):
    """The violation a differing repost records, once per distinct repost: `coup_conflict` when the cards
    differ, `coup_repost_differs` when only the wagers, the reported winner or the dealt time do."""
    from pit.compliance.services import violation_record

    posted = game.Coup(player=prepared.player, banker=prepared.banker)
    if "player" in differences or "banker" in differences:
        recorded = game.Coup.from_codes(player=existing.player_cards, banker=existing.banker_cards)
        finding = game.check_repost(existing.number, recorded, posted)
        posted_codes = (
            " ".join(card.code for card in prepared.player) + "|" + " ".join(card.code for card in prepared.banker)
        )
        fingerprint = f"coup_conflict:coup{existing.pk}:{hashlib.sha256(posted_codes.encode()).hexdigest()[:16]}"
    else:
        finding = game.repost_differs(existing.number, differences)
        canonical = repr(sorted(differences.items()))
        fingerprint = f"coup_repost_differs:coup{existing.pk}:{hashlib.sha256(canonical.encode()).hexdigest()[:16]}"
    return violation_record(
        finding=finding,
        table=shoe.table,
        shoe=shoe,
        coup=existing,
        gaming_day=existing.gaming_day,
        found_by="coup_recording",
        fingerprint=fingerprint,
    )


def _insert_rows(model, spec, shoe_id: int, rows: list[tuple], extra: dict[str, list] | None = None) -> list[int]:
    """Insert a shoe's fact rows, given as tuples of values in the order of their chain spec's
    fields (pit.records.chain.SPECS), linked to the shoe's hash chain; their ids, in order.

    PostgreSQL: one statement, INSERT ... SELECT FROM unnest(one array per column) RETURNING id, the
    arrays built from the values as they are, each row's chain position and hash computed from the
    same tuple (Django's bulk_create compiles a placeholder per value, and going through each field's
    `get_db_prep_save` on model instances was most of a day's batch). Elsewhere (SQLite) bulk_create,
    which links each row as it compiles it (`ChainSeqField.pre_save`).

    `extra`: columns outside the chain, one list of values per column name (a wager's and an entry's
    gaming day, their month partition on PostgreSQL: pit.core.partitions)."""
    if not rows:
        return []
    extra = extra or {}
    if connection.vendor == "postgresql":
        sql, params = _insert_sql(model, spec, shoe_id, rows, extra)
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} RETURNING {connection.ops.quote_name(model._meta.pk.column)}", params)
            return [row[0] for row in cursor.fetchall()]
    else:
        created = model.objects.bulk_create(
            model(**dict(zip(spec.fields, row, strict=True)), **{name: values[index] for name, values in extra.items()})
            for index, row in enumerate(rows)
        )
        # bulk_create gives `recorded_at` (auto_now_add) a moment of its own: the rows say what was stored.
        rows[:] = [tuple(getattr(instance, name) for name in spec.fields) for instance in created]
        return [instance.pk for instance in created]


def _insert_sql(
    model,
    spec,
    shoe_id: int,
    rows: list[tuple],
    extra: dict[str, list],
    ids: list[int] | None = None,
    links: list[tuple[int, str]] | None = None,
) -> tuple[str, list[str]]:
    """PostgreSQL: `_insert_rows`'s statement (without RETURNING) and its parameters. `ids`: the
    rows' ids, taken from their sequence beforehand (else the column's default gives them); `links`:
    their chain positions and hashes, computed by the caller (else linked here, in records_chain)."""
    if links is None:
        links = chain_rows(shoe_id=shoe_id, spec=spec, rows=rows)
    columns = [[row[position] for row in rows] for position in range(len(spec.fields))]
    columns += [[seq for seq, _ in links], [link for _, link in links]]
    columns += list(extra.values())
    if ids is not None:
        columns.append(ids)
    sql, json_columns = _insert_text(model, spec, tuple(extra), ids is not None)
    arrays = [
        _array_literal([json.dumps(value) for value in column] if is_json else column)
        for is_json, column in zip(json_columns, columns, strict=True)
    ]
    return sql, arrays


_INSERT_TEXTS: dict[tuple, tuple[str, list[bool]]] = {}


def _insert_text(model, spec, extra: tuple[str, ...], with_ids: bool) -> tuple[str, list[bool]]:
    """`_insert_sql`'s text and which of its columns are JSON, written once per process and form."""
    form = (model, spec.fields, extra, with_ids)
    if form not in _INSERT_TEXTS:
        fields = [model._meta.get_field(attname.removesuffix("_id")) for attname in spec.fields]
        fields += [model._meta.get_field("chain_seq"), model._meta.get_field("chain_hash")]
        fields += [model._meta.get_field(name) for name in extra]
        if with_ids:
            fields.append(model._meta.pk)
        quote = connection.ops.quote_name
        names = ", ".join(quote(model_field.column) for model_field in fields)
        casts = ", ".join(f"%s::{model_field.db_type(connection)}[]" for model_field in fields)
        # Only names from the model's own metadata go into the text; every value is a parameter.
        sql = f"INSERT INTO {quote(model._meta.db_table)} ({names}) SELECT * FROM unnest({casts})"  # noqa: S608
        _INSERT_TEXTS[form] = sql, [isinstance(model_field, JSONField) for model_field in fields]
    return _INSERT_TEXTS[form]


def _array_literal(values: list) -> str:
    """A column's values as one PostgreSQL array literal (every element quoted, None as NULL), cast by
    the statement to the column's type: one string parameter instead of an adapter call per value
    (a day's batch holds some 150,000 values)."""
    if values and None not in values:
        texts = list(map(str, values))
        plain = "".join(texts)
        if "\\" not in plain and '"' not in plain:  # nothing to escape (most columns): joined in C
            return '{"' + '","'.join(texts) + '"}'
    return (
        "{"
        + ",".join(
            "NULL" if value is None else '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
            for value in values
        )
        + "}"
    )


def _store(shoe: Shoe, prepared: list[_PreparedCoup], actor: Actor, paytable_id: int) -> list[Coup]:
    """Insert the prepared coups, their wagers and commission accruals in bulk (each linked to the
    shoe's hash chain), and count the cards. Rows are plain values in the chain's field order
    (pit.records.chain.SPECS), so hashing and inserting take the same tuples."""
    from pit.ledger.models import CommissionEntry, EntryKind

    now = timezone.now()
    user_id, device_id = getattr(actor.user, "pk", None), getattr(actor.device, "pk", None)
    coup_rows = _coup_rows(shoe, prepared, paytable_id, now, user_id, device_id)
    coup_spec, wager_spec, entry_spec = (SPEC_BY_LABEL[label] for label in COUP_CHAIN_LABELS)
    coup_ids = _insert_rows(Coup, coup_spec, shoe.pk, coup_rows)
    wager_rows = [
        (coup_id, w.seat, w.bet, w.currency, w.amount_minor, w.result, w.payout_minor, w.commission_minor, w.paid_minor)
        for coup_id, item in zip(coup_ids, prepared, strict=True)
        for w in item.wagers
    ]
    coup_days = dict(zip(coup_ids, (row[3] for row in coup_rows), strict=True))
    wager_days = [coup_days[row[0]] for row in wager_rows]  # a wager's month partition is its coup's
    wager_ids = _insert_rows(Wager, wager_spec, shoe.pk, wager_rows, extra={"gaming_day": wager_days})
    accrued = [
        (wager_id, row, day) for wager_id, row, day in zip(wager_ids, wager_rows, wager_days, strict=True) if row[7] > 0
    ]
    _insert_rows(
        CommissionEntry,
        entry_spec,
        shoe.pk,
        [
            (shoe.pk, row[1], EntryKind.ACCRUED.value, row[3], row[7], wager_id, "", None, "", now, user_id, device_id)
            for wager_id, row, _ in accrued
        ],
        extra={"gaming_day": [day for _, _, day in accrued]},
    )
    _count_cards(shoe, prepared)
    shoe.save(update_fields=["cards_seen", "cards_dealt", "coups_recorded"])
    return _coups_built(shoe, actor, coup_ids, coup_rows)


def _coup_rows(shoe: Shoe, prepared: list[_PreparedCoup], paytable_id: int, now, user_id, device_id) -> list[tuple]:
    """The coups' rows, in their chain spec's field order."""
    coup_rows = []
    for item in prepared:
        dealt_at = item.item.dealt_at or now
        if timezone.is_naive(dealt_at):  # as Django stores a naive time: in the default time zone
            dealt_at = timezone.make_aware(dealt_at)
        evaluation = item.evaluation
        coup_rows.append(
            (
                shoe.pk,
                item.item.number,
                dealt_at,
                gaming_day_for(dealt_at),
                [card.code for card in item.player],
                [card.code for card in item.banker],
                evaluation.player_total,
                evaluation.banker_total,
                str(evaluation.winner),
                evaluation.natural,
                evaluation.player_pair,
                evaluation.banker_pair,
                item.item.reported_winner,
                paytable_id,
                now,
                user_id,
                device_id,
            )
        )
    return coup_rows


def _count_cards(shoe: Shoe, prepared: list[_PreparedCoup]) -> None:
    """The shoe's counters (cards seen, cards dealt, coups recorded) with these coups, in memory."""
    seen = Counter(shoe.cards_seen)
    for item in prepared:
        seen.update(card.code for card in (*item.player, *item.banker))
    shoe.cards_seen = dict(sorted(seen.items()))
    shoe.cards_dealt += sum(len(item.player) + len(item.banker) for item in prepared)
    shoe.coups_recorded += len(prepared)


def _coups_built(shoe: Shoe, actor: Actor, coup_ids: list[int], coup_rows: list[tuple]) -> list[Coup]:
    """The stored coups as model instances, from the values written (nothing read back)."""
    coup_spec = SPEC_BY_LABEL[COUP_CHAIN_LABELS[0]]
    coups = []
    for coup_id, row in zip(coup_ids, coup_rows, strict=True):
        coup = Coup(id=coup_id, **dict(zip(coup_spec.fields, row, strict=True)))
        coup.shoe, coup.recorded_by_user, coup.recorded_by_device = shoe, actor.user, actor.device
        coup._state.adding, coup._state.db = False, connection.alias
        coups.append(coup)
    return coups


def _store_one(locked: _ShoeLockedForCoup, prepared: _PreparedCoup, actor: Actor) -> Coup:
    """PostgreSQL, one coup: what `_store` and `_coups_owe` write (the coup, its wagers, the
    commission accrued, the chain head, the shoe's counters, the outbox rows), in one statement of
    data-modifying CTEs. The coup's and its wagers' ids were taken by `_shoe_lock_for_coup`, so
    every row is linked to the chain in memory from the head read (and locked) there; the foreign
    keys between them are deferred to the commit."""
    from pit.ledger.models import CommissionEntry, EntryKind
    from pit.records.chain import genesis, row_hasher
    from pit.records.models import ChainHead

    shoe, table = locked.shoe, locked.shoe.table
    coup_id, wager_ids = locked.ids
    now = timezone.now()
    user_id, device_id = getattr(actor.user, "pk", None), getattr(actor.device, "pk", None)
    coup_rows = _coup_rows(shoe, [prepared], table.paytable_id, now, user_id, device_id)
    day = coup_rows[0][3]
    wager_rows = [
        (coup_id, w.seat, w.bet, w.currency, w.amount_minor, w.result, w.payout_minor, w.commission_minor, w.paid_minor)
        for w in prepared.wagers
    ]
    entry_rows = [
        (shoe.pk, row[1], EntryKind.ACCRUED.value, row[3], row[7], wager_id, "", None, "", now, user_id, device_id)
        for wager_id, row in zip(wager_ids, wager_rows, strict=True)
        if row[7] > 0
    ]
    length, head = locked.chain_head or (0, genesis(shoe.pk))
    statements, params = [], []
    for model, label, rows, ids in (
        (Coup, COUP_CHAIN_LABELS[0], coup_rows, [coup_id]),
        (Wager, COUP_CHAIN_LABELS[1], wager_rows, wager_ids),
        (CommissionEntry, COUP_CHAIN_LABELS[2], entry_rows, None),
    ):
        if not rows:
            continue
        spec, links = SPEC_BY_LABEL[label], []
        hasher = row_hasher(spec)
        for values in rows:
            length += 1
            head = hasher(head, length, values)
            links.append((length, head))
        extra = {} if model is Coup else {"gaming_day": [day] * len(rows)}
        sql, values = _insert_sql(model, spec, shoe.pk, rows, extra, ids=ids, links=links)
        statements.append(sql)
        params += values
    quote = connection.ops.quote_name
    if locked.chain_head is None:
        statements.append(
            f"INSERT INTO {quote(ChainHead._meta.db_table)} (shoe_id, length, head, updated_at) "  # noqa: S608
            "VALUES (%s, %s, %s, %s)"
        )
        params += [shoe.pk, length, head, now]
    else:
        statements.append(f"UPDATE {quote(ChainHead._meta.db_table)} SET length = %s, head = %s WHERE shoe_id = %s")  # noqa: S608
        params += [length, head, shoe.pk]
    _count_cards(shoe, [prepared])
    counters = ("cards_seen", "cards_dealt", "coups_recorded")
    assignments = ", ".join(f"{quote(Shoe._meta.get_field(name).column)} = %s" for name in counters)
    statements.append(f"UPDATE {quote(Shoe._meta.db_table)} SET {assignments} WHERE id = %s")  # noqa: S608
    params += [Shoe._meta.get_field(name).get_db_prep_save(getattr(shoe, name), connection) for name in counters]
    params.append(shoe.pk)
    messages = [outbox_message(task, *args) for task, args in _coups_owed(shoe, [coup_id], day)]
    outbox, outbox_values = _values_sql(messages)
    # Only names from the models' metadata go into the text; every value is a parameter.
    sql = "WITH " + ", ".join(f"w{index} AS ({statement})" for index, statement in enumerate(statements))
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} {outbox} RETURNING task_id, id", params + outbox_values)
        ids = dict(cursor.fetchall())
    for message in messages:
        message.pk, message._state.adding, message._state.db = ids[message.task_id], False, connection.alias
        outbox_after_commit(message)
    (coup,) = _coups_built(shoe, actor, [coup_id], coup_rows)
    return coup


_VALUES_TEXTS: dict[tuple, tuple[str, list]] = {}


def _values_sql(instances: list) -> tuple[str, list]:
    """INSERT ... VALUES of new model instances of one model (their ids from the column's default),
    as `save()` would insert each (auto_now_add set), and its parameters."""
    model = type(instances[0])
    form = (model, len(instances))
    if form not in _VALUES_TEXTS:  # written once per process and form
        fields = [field for field in model._meta.concrete_fields if not field.primary_key]
        quote = connection.ops.quote_name
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        _VALUES_TEXTS[form] = (
            f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "  # noqa: S608
            f"VALUES {', '.join([row] * len(instances))}",
            fields,
        )
    sql, fields = _VALUES_TEXTS[form]
    params = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for instance in instances for field in fields
    ]
    return sql, params


def _coups_recorded(shoe: Shoe, numbers: set[int]) -> dict[int, Coup]:
    """The shoe's coups recorded under these numbers, by number. One range over the shoe's
    (shoe, number) index rather than a placeholder per number (a day's batch sends 1,600)."""
    if not numbers:
        return {}
    in_range = Coup.objects.filter(shoe=shoe, number__range=(min(numbers), max(numbers)))
    return {coup.number: coup for coup in in_range if coup.number in numbers}


def coups_record(*, shoe: Shoe, coups: list[CoupInput], actor: Actor = SYSTEM) -> list[CoupOutcome]:
    """Record coups in one transaction, each judged on its own: created, existing (a replay: the same
    cards, wagers, reported winner and dealt time), conflict (same number, anything else differs: its
    differences in `errors`, a violation is recorded, nothing else written) or invalid (nothing written)."""
    outcomes: list[CoupOutcome | None] = [None] * len(coups)
    with transaction.atomic():
        shoe = shoe_lock(shoe.pk)
        table = shoe.table
        paytable = engine_paytable(table.paytable)
        prepared: dict[int, _PreparedCoup] = {}
        settled: dict = {}
        for index, item in enumerate(coups):
            try:
                prepared[index] = _prepare(item, table, paytable, settled)
            except ValidationError as exc:
                outcomes[index] = CoupOutcome(CoupOutcomeStatus.INVALID, errors=exc.message_dict)
        existing = _coups_recorded(shoe, {item.item.number for item in prepared.values()})
        recorded_wagers: dict[int, list[Wager]] = {coup.pk: [] for coup in existing.values()}
        if existing:
            for wager in Wager.objects.filter(coup__shoe=shoe, coup__number__range=(min(existing), max(existing))).only(
                "coup_id", "seat", "bet", "amount_minor", "paid_minor"
            ):
                if wager.coup_id in recorded_wagers:
                    recorded_wagers[wager.coup_id].append(wager)
        to_store: list[tuple[int, _PreparedCoup]] = []
        in_batch: dict[int, int] = {}
        batch_conflicts: list[tuple[int, _PreparedCoup]] = []
        for index, item in prepared.items():
            number = item.item.number
            if number in in_batch and number not in existing:
                # The same number twice in one batch: judged against the first, which is stored now.
                first, posted = prepared[in_batch[number]], _CoupRecord.posted(item)
                differences = _repost_differences(
                    dataclasses.replace(_CoupRecord.posted(first), dealt_at=first.item.dealt_at or posted.dealt_at),
                    posted,
                    table.currency,
                )
                outcomes[index] = CoupOutcome(
                    CoupOutcomeStatus.CONFLICT if differences else CoupOutcomeStatus.EXISTING, errors=differences
                )
                if differences:
                    batch_conflicts.append((index, item))
                continue
            in_batch.setdefault(number, index)
            if number in existing:
                coup = existing[number]
                differences = _repost_differences(
                    _CoupRecord.recorded(coup, recorded_wagers[coup.pk]), _CoupRecord.posted(item), table.currency
                )
                if not differences:
                    outcomes[index] = CoupOutcome(CoupOutcomeStatus.EXISTING, coup=coup)
                else:
                    violation = _repost_violation(shoe, coup, item, differences)
                    outcomes[index] = CoupOutcome(
                        CoupOutcomeStatus.CONFLICT, coup=coup, errors=differences, violation=violation
                    )
            else:
                to_store.append((index, item))
        if to_store:
            with records_chain(shoe_id=shoe.pk):  # every row hashed in memory as it is inserted; the head once
                stored = _store(shoe, [item for _, item in to_store], actor, table.paytable_id)
            for (index, item), coup in zip(to_store, stored, strict=True):
                outcomes[index] = CoupOutcome(CoupOutcomeStatus.CREATED, coup=coup, wagers=item.wagers)
            _coups_owe(shoe, stored)
        # A batch's own duplicate refers to the coup stored for the first of them; if it differs it
        # is flagged as it would be had it been posted after the first (one violation per posting).
        for index, outcome in enumerate(outcomes):
            duplicate = outcome.status in (CoupOutcomeStatus.EXISTING, CoupOutcomeStatus.CONFLICT)
            if duplicate and outcome.coup is None:
                outcome.coup = outcomes[in_batch[coups[index].number]].coup
        for index, item in batch_conflicts:
            outcomes[index].violation = _repost_violation(shoe, outcomes[index].coup, item, outcomes[index].errors)
    return outcomes


def coup_record(
    *, shoe: Shoe | int, coup: CoupInput, actor: Actor = SYSTEM, authorize=None, savepoint: bool = True
) -> CoupOutcome:
    """Record one coup. ValidationError if malformed (nothing written); Conflict naming the differences
    if its number was recorded with anything else (the violation is committed first); a replay returns
    the existing coup. `authorize(shoe)`, if given, is called with the locked shoe (its table loaded)
    before anything is written, and may raise (the API's table access check): nothing is written then.

    The floor posts coups one by one as they are dealt, so this is the path to keep short: one read
    with every lock (`_shoe_lock_for_coup`), the inserts, the chain head and the shoe's counters, the
    outbox row; a coup's number seen before goes the batch's way (`coups_record`) to be compared.

    `savepoint=False`: called inside a transaction that no error raised here leaves alive (it is
    rolled back whole), so the coup's block needs no savepoint of its own (two round trips)."""
    shoe_id = shoe if isinstance(shoe, int) else shoe.pk
    if not savepoint and connection.in_atomic_block:
        # Part of the caller's transaction, which ends with any error raised here (the API's
        # request with its Idempotency-Key): no savepoint pair to roll back to.
        with transaction.atomic(savepoint=False):
            outcome = _coup_record_once(shoe_id, coup, actor, authorize)
    else:
        try:
            with transaction.atomic():
                outcome = _coup_record_once(shoe_id, coup, actor, authorize)
        except IntegrityError:
            # Two writers raced past the shoe lock only if the database has none (it always has on
            # PostgreSQL and SQLite); the unique constraint still holds: read what won.
            with transaction.atomic():
                outcome = _coup_record_once(shoe_id, coup, actor, authorize)
    if outcome.status == CoupOutcomeStatus.INVALID:
        raise ValidationError(outcome.errors)
    if outcome.status == CoupOutcomeStatus.CONFLICT:
        cards = "other cards" if {"player", "banker"} & set(outcome.errors) else "other values"
        raise Conflict(
            f"Coup {coup.number} of {outcome.coup.shoe} was recorded with {cards} "
            f"(player {' '.join(outcome.coup.player_cards)}, banker {' '.join(outcome.coup.banker_cards)}); "
            f"the repost differs in {', '.join(outcome.errors)}. Nothing of it was written; a violation is "
            "recorded for the pit boss.",
            errors=outcome.errors,
            coup_id=outcome.coup.pk,
            violation_id=getattr(outcome.violation, "pk", None),
        )
    return outcome


def _coup_record_once(shoe_id: int, coup: CoupInput, actor: Actor, authorize) -> CoupOutcome:
    wagers = len(coup.wagers) if isinstance(coup.wagers, list | tuple) else 0
    locked = _shoe_lock_for_coup(shoe_id, coup.number, wagers)
    if authorize is not None:
        authorize(locked.shoe)
    if locked.recorded:
        (outcome,) = coups_record(shoe=locked.shoe, coups=[coup], actor=actor)
        return outcome
    shoe, table = locked.shoe, locked.shoe.table
    prepared = _prepare(coup, table, engine_paytable(table.paytable))
    if locked.ids is not None:
        stored = _store_one(locked, prepared, actor)
    else:
        with records_chain(shoe_id=shoe.pk, head=locked.chain_head):
            (stored,) = _store(shoe, [prepared], actor, table.paytable_id)
        _coups_owe(shoe, [stored])
    return CoupOutcome(CoupOutcomeStatus.CREATED, coup=stored, wagers=prepared.wagers)


def _coups_owe(shoe: Shoe, stored: list[Coup]) -> None:
    """Enqueue what coups just stored owe, in their transaction (`_coups_owed`)."""
    for task, args in _coups_owed(shoe, [coup.pk for coup in stored], min(coup.gaming_day for coup in stored)):
        outbox_enqueue(task, *args)


def _coups_owed(shoe: Shoe, coup_ids: list[int], first_day: dt.date) -> list[tuple[str, tuple]]:
    """What coups just stored owe (task, args): their rule checks; the daily rollups of a complete
    day if one of them is late (pit.rollups refreshes that day); a closed shoe's reconciliation."""
    owed = [(COUPS_VERIFY, (coup_ids,))]
    if first_day < gaming_day_for(timezone.now()):
        owed.append(("rollups.shoe_refresh", (shoe.pk,)))
    if shoe.status == ShoeStatus.CLOSED:  # as _reconcile_late_after_commit
        owed.append((SHOE_RECONCILE, (shoe.pk,)))
    return owed


# ---------------------------------------------------------------------------------------- corrections


def _reconcile_late_after_commit(shoe: Shoe) -> None:
    """Commission that changed after the shuffle (a coup recorded after the close, a correction or
    a void of a closed shoe's coup) is reconciled again after commit: the reconciliation job makes
    the reconciliation if there is none yet, else a supplement that brings the seats back to zero."""
    if shoe.status == ShoeStatus.CLOSED:
        outbox_enqueue(SHOE_RECONCILE, shoe.pk)


@dataclass
class CorrectionOutcome:
    correction: CoupCorrection
    created: bool  # False: the same correction (or void) stands already; nothing written


MAX_REASON = 2000


def _wager_key(wager: Wager) -> tuple:
    return (wager.seat, wager.bet, wager.amount_minor, wager.paid_minor)


def _coup_correction_write(
    *, coup: Coup, kind: str, reason: str, wagers: tuple[WagerInput, ...], actor: Actor
) -> CorrectionOutcome:
    """A new version of a coup's wagers (none for a void), in one transaction: the correction, its
    wagers settled by the engine under the coup's paytable version, reversals of the commission
    accrued on the wagers it replaces and accruals on its own. Nothing recorded before is changed."""
    from pit.ledger.models import CommissionEntry, EntryKind
    from pit.shoes.selectors import wagers_standing

    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Say why: a correction or a void is recorded with its reason."})
    if len(reason) > MAX_REASON:
        raise ValidationError({"reason": f"Keep the reason to {MAX_REASON} characters."})
    with transaction.atomic():
        shoe = shoe_lock(coup.shoe_id)  # one writer per shoe: its coups, their corrections, its reconciliation
        coup = Coup.objects.select_related("paytable").get(pk=coup.pk)
        latest = coup.corrections.order_by("-sequence").first()
        standing = list(wagers_standing(coup.wagers.all()))
        settled: list[SettledWager] = []
        if kind == CorrectionKind.VOID:
            if latest is not None and latest.kind == CorrectionKind.VOID:
                return CorrectionOutcome(latest, created=False)
        else:
            item = CoupInput(
                number=coup.number, player=coup.player_cards, banker=coup.banker_cards, wagers=tuple(wagers)
            )
            settled = _prepare(item, shoe.table, engine_paytable(coup.paytable)).wagers
            if sorted(map(_wager_key, settled)) == sorted(map(_wager_key, standing)):
                if latest is not None and latest.kind == CorrectionKind.CORRECT:
                    return CorrectionOutcome(latest, created=False)
                raise ValidationError({"wagers": "These are the wagers that stand already: nothing to correct."})
        correction = CoupCorrection.objects.create(
            coup=coup,
            sequence=(latest.sequence if latest else 0) + 1,
            kind=kind,
            reason=reason,
            **actor.recorded_fields(),
        )
        settled = Wager.objects.bulk_create(wager.model(coup=coup, correction=correction) for wager in settled)
        note = f"{correction}: {reason}"
        replaced = CommissionEntry.objects.filter(
            wager__in=[wager.pk for wager in standing], kind=EntryKind.ACCRUED, reversed_by__isnull=True
        ).order_by("pk")
        CommissionEntry.objects.bulk_create(
            [
                *(
                    CommissionEntry(
                        shoe=shoe,
                        seat=entry.seat,
                        kind=EntryKind.REVERSAL,
                        currency=entry.currency,
                        amount_minor=-entry.amount_minor,
                        reverses=entry,
                        note=note,
                        **actor.recorded_fields(),
                    )
                    for entry in replaced
                ),
                *(
                    CommissionEntry(
                        shoe=shoe,
                        seat=wager.seat,
                        kind=EntryKind.ACCRUED,
                        currency=wager.currency,
                        amount_minor=wager.commission_minor,
                        wager=wager,
                        note=note,
                        **actor.recorded_fields(),
                    )
                    for wager in settled
                    if wager.commission_minor > 0
                ),
            ]
        )
        outbox_enqueue(COUPS_VERIFY, [coup.pk])
        outbox_enqueue("rollups.shoe_refresh", shoe.pk)  # pit.rollups: refresh its complete days
        _reconcile_late_after_commit(shoe)
    return CorrectionOutcome(correction, created=True)


def coup_correct(
    *, coup: Coup, wagers: tuple[WagerInput, ...], reason: str, actor: Actor = SYSTEM
) -> CorrectionOutcome:
    """Correct a coup's wagers (a misread stake): `wagers` is the whole set that stands from now on.
    The same correction again returns the one recorded (created=False). ValidationError names the
    field (`reason`, `wagers[2].amount`); nothing is written then."""
    return _coup_correction_write(coup=coup, kind=CorrectionKind.CORRECT, reason=reason, wagers=wagers, actor=actor)


def coup_void(*, coup: Coup, reason: str, actor: Actor = SYSTEM) -> CorrectionOutcome:
    """Void a coup (a misdeal): no wager stands, every stake is returned, no win, no commission.
    Voiding it again returns the void recorded (created=False)."""
    return _coup_correction_write(coup=coup, kind=CorrectionKind.VOID, reason=reason, wagers=(), actor=actor)
