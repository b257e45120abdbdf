"""What the API accepts and answers. Inputs are strict (unknown fields are refused); outputs are
built by plain functions (`*_data`) that the response serializers call, so the schema documents
exactly what is sent and a day's batch is not slowed by per-field serializer machinery."""

import re
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pit import game
from pit.api.parsers import MAX_BATCH_COUPS
from pit.core.money import from_minor

# What the server takes for money: ASCII digits, at most 15 before the point and 3 after it (the most
# any currency has; the table's currency may allow fewer), never a sign. Answers may be negative.
MONEY_PATTERN = r"^[0-9]{1,15}(\.[0-9]{1,3})?$"
SIGNED_MONEY_PATTERN = r"^-?[0-9]{1,15}(\.[0-9]{1,3})?$"
# Read a little wider than the pattern, so that a sign or a fourth decimal gets its own message.
_MONEY = re.compile(r"^-?[0-9]{1,15}(\.[0-9]{1,6})?$")
_ASCII_DIGITS = re.compile(r"[0-9]+")
WINNERS = ("player", "banker", "tie")
NOT_ASCII_NUMBER = "Numbers are ASCII digits (0-9) only; {value!r} holds other characters."


# ------------------------------------------------------------------------------------------- inputs
class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so that a typo ("amout") is a 400, not a silent default."""

    def to_internal_value(self, data):
        unknown = {}
        if isinstance(data, dict):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            unknown = {name: ["Unknown field."] for name in data if name not in writable}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                exc.detail.update(unknown)
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


@extend_schema_field(
    {
        "type": "string",
        "pattern": MONEY_PATTERN,
        "example": "125.50",
        "description": "A decimal string in the table's currency; JSON numbers are refused.",
    }
)
class MoneyField(serializers.Field):
    """Money as a decimal string ("125.50"). JSON numbers are refused, floats and integers alike:
    a float cannot hold money exactly, and one rule for every amount is easier to get right."""

    default_error_messages = {
        "type": 'Send the amount as a decimal string, e.g. "125.50"; JSON numbers are not accepted for money.',
        "format": "{value!r} is not a decimal amount (ASCII digits with an optional decimal point and at most "
        '3 decimals, e.g. "125.50").',
        "positive": "The amount must be more than zero.",
        "negative": "The amount cannot be negative.",
    }

    def __init__(self, *, positive: bool = False, **kwargs):
        self.positive = positive
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> Decimal:
        if not isinstance(data, str):
            self.fail("type")
        if not _MONEY.match(data):
            self.fail("format", value=data[:40])
        amount = Decimal(data)
        if self.positive and amount <= 0:
            self.fail("positive")
        if amount < 0:
            self.fail("negative")
        return amount

    def to_representation(self, value) -> str:
        return str(value)


@extend_schema_field(
    {"type": "string", "pattern": SIGNED_MONEY_PATTERN, "example": "-2.50", "description": "A decimal string."}
)
class SignedMoneyField(MoneyField):
    """Money in an answer that may be below zero (a variance, a balance)."""


class AsciiIntegerField(serializers.IntegerField):
    """An integer whose text, if sent as a string, is ASCII digits: int() reads "٣" as 3 and fails on
    "²", so anything else is refused before it gets there."""

    default_error_messages = {"ascii": NOT_ASCII_NUMBER}

    def to_internal_value(self, data):
        if isinstance(data, str) and not _ASCII_DIGITS.fullmatch(data.strip()):
            if not data.isascii():
                self.fail("ascii", value=data[:40])
            self.fail("invalid")
        return super().to_internal_value(data)


class AsciiDateTimeField(serializers.DateTimeField):
    """An ISO 8601 moment in ASCII: Django's parser would read other digits ("２０２６") too."""

    default_error_messages = {"ascii": "Dates and times are ASCII ISO 8601 only; {value!r} holds other characters."}

    def to_internal_value(self, value):
        if isinstance(value, str) and not value.isascii():
            self.fail("ascii", value=value[:40])
        return super().to_internal_value(value)


class AsciiDateField(serializers.DateField):
    """A gaming day as ASCII YYYY-MM-DD: Django's parser would read other digits ("２０２６") too."""

    default_error_messages = {"ascii": "Dates are ASCII YYYY-MM-DD only; {value!r} holds other characters."}

    def to_internal_value(self, value):
        if isinstance(value, str) and not value.isascii():
            self.fail("ascii", value=value[:40])
        return super().to_internal_value(value)


class CardsField(serializers.ListField):
    """Card codes in dealt order: rank A,2-9,T (or 10),J,Q,K then suit S,H,D,C, e.g. ["5H", "KD"]."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=3, min_length=2))
        kwargs.setdefault("min_length", 2)
        kwargs.setdefault("max_length", 3)
        super().__init__(**kwargs)


class WagerInputSerializer(StrictSerializer):
    seat = AsciiIntegerField(min_value=1, max_value=99, help_text="A seat of the table.")
    bet = serializers.CharField(max_length=20, help_text="A bet of the table's paytable: player, banker, tie ...")
    amount = MoneyField(positive=True, help_text="The stake, a positive decimal string.")
    paid = MoneyField(
        required=False,
        allow_null=True,
        help_text="What the table paid beyond the returned stake, if the floor reports it (checked).",
    )


class CoupInputSerializer(StrictSerializer):
    number = AsciiIntegerField(min_value=1, max_value=100000, help_text="1, 2, 3 ... within the shoe.")
    player = CardsField(help_text='Player\'s cards in dealt order (2 or 3), e.g. ["5H", "KD", "2C"].')
    banker = CardsField(help_text="Banker's cards in dealt order (2 or 3).")
    dealt_at = AsciiDateTimeField(required=False, help_text="When it was dealt; default: now.")
    reported_winner = serializers.ChoiceField(
        choices=WINNERS,
        required=False,
        allow_null=True,
        help_text="The winner the table announced (checked against the cards); null or left out when the "
        "table reports none.",
    )
    wagers = WagerInputSerializer(many=True, required=False, max_length=200)

    def to_internal_value(self, data) -> dict:
        # The fields above document the input; `coup_values` checks it, fast enough for a day's batch.
        return coup_values(data)

    def run_validators(self, value) -> None:
        # DRF's would first build `fields` (a deep copy of every field declared above, some 40 field
        # objects, on each coup posted) only to look for read-only fields with a default to add to
        # `value`: there is none, and the serializer has no validators of its own.
        serializers.Field.run_validators(self, value)


# A coup is checked by hand rather than field by field through DRF: the same rules and messages,
# about twenty times faster, which is what lets a batch of a day's coups validate in milliseconds.
_COUP_FIELDS = frozenset({"number", "player", "banker", "dealt_at", "reported_winner", "wagers"})
_WAGER_FIELDS = frozenset({"seat", "bet", "amount", "paid"})
_REQUIRED = "This field is required."
_NULL = "This field may not be null."
_DATETIME = AsciiDateTimeField()
_POSITIVE_MONEY = MoneyField(positive=True)
_MONEY_FIELD = MoneyField()


def _integer(value, low: int, high: int) -> tuple[int | None, str | None]:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and _ASCII_DIGITS.fullmatch(value.strip()):
            value = int(value)
        elif isinstance(value, str) and not value.isascii():
            return None, NOT_ASCII_NUMBER.format(value=value[:40])
        else:
            return None, "A valid integer is required."
    if value < low:
        return None, f"Ensure this value is greater than or equal to {low}."
    if value > high:
        return None, f"Ensure this value is less than or equal to {high}."
    return value, None


def _money(field: MoneyField, value) -> tuple[Decimal | None, list | None]:
    try:
        return field.to_internal_value(value), None
    except serializers.ValidationError as exc:
        return None, [str(message) for message in exc.detail]


def coup_values(data) -> dict:
    """A posted coup, checked for shape and types (the rules of the table are the service's):
    its values, or ValidationError keyed by field path (`wagers[2].amount`)."""
    if not isinstance(data, dict):
        raise serializers.ValidationError(
            {"non_field_errors": [f"Invalid data. Expected a dictionary, but got {type(data).__name__}."]}
        )
    errors: dict[str, list[str]] = {name: ["Unknown field."] for name in data if name not in _COUP_FIELDS}
    values: dict = {}
    if "number" not in data:
        errors["number"] = [_REQUIRED]
    else:
        values["number"], problem = _integer(data["number"], 1, 100000)
        if problem:
            errors["number"] = [problem]
    for hand in ("player", "banker"):
        cards = data.get(hand)
        if hand not in data:
            errors[hand] = [_REQUIRED]
        elif not isinstance(cards, list):
            errors[hand] = [f'Expected a list of items but got type "{type(cards).__name__}".']
        elif len(cards) < 2:
            errors[hand] = ["Ensure this field has at least 2 elements."]
        elif len(cards) > 3:
            errors[hand] = ["Ensure this field has no more than 3 elements."]
        else:
            for index, code in enumerate(cards):
                if not isinstance(code, str):
                    errors[f"{hand}[{index}]"] = ["Not a valid string."]
            values[hand] = cards
    if data.get("dealt_at") is not None:
        try:
            values["dealt_at"] = _DATETIME.to_internal_value(data["dealt_at"])
        except serializers.ValidationError as exc:
            errors["dealt_at"] = [str(message) for message in exc.detail]
    elif "dealt_at" in data:
        errors["dealt_at"] = [_NULL]
    if data.get("reported_winner") is not None:
        winner = data["reported_winner"]
        if not isinstance(winner, str) or winner not in WINNERS:
            errors["reported_winner"] = [
                f'"{winner}" is not a valid choice: player, banker or tie (null or left out when none is reported).'
            ]
        else:
            values["reported_winner"] = winner
    wagers = data.get("wagers", [])
    if not isinstance(wagers, list):
        errors["wagers"] = [f'Expected a list of items but got type "{type(wagers).__name__}".']
        wagers = []
    elif len(wagers) > 200:
        errors["wagers"] = ["Ensure this field has no more than 200 elements."]
        wagers = []
    values["wagers"] = []
    for index, wager in enumerate(wagers):
        where = f"wagers[{index}]"
        if not isinstance(wager, dict):
            errors[where] = [f"Invalid data. Expected a dictionary, but got {type(wager).__name__}."]
            continue
        for name in wager:
            if name not in _WAGER_FIELDS:
                errors[f"{where}.{name}"] = ["Unknown field."]
        item = {}
        for name, low, high in (("seat", 1, 99),):
            if name not in wager:
                errors[f"{where}.{name}"] = [_REQUIRED]
            else:
                item[name], problem = _integer(wager[name], low, high)
                if problem:
                    errors[f"{where}.{name}"] = [problem]
        bet = wager.get("bet")
        if "bet" not in wager:
            errors[f"{where}.bet"] = [_REQUIRED]
        elif not isinstance(bet, str) or not bet:
            errors[f"{where}.bet"] = [
                "Not a valid string." if not isinstance(bet, str) else "This field may not be blank."
            ]
        elif len(bet) > 20:
            errors[f"{where}.bet"] = ["Ensure this field has no more than 20 characters."]
        else:
            item["bet"] = bet
        if "amount" not in wager:
            errors[f"{where}.amount"] = [_REQUIRED]
        else:
            item["amount"], problem = _money(_POSITIVE_MONEY, wager["amount"])
            if problem:
                errors[f"{where}.amount"] = problem
        if wager.get("paid") is not None:
            item["paid"], problem = _money(_MONEY_FIELD, wager["paid"])
            if problem:
                errors[f"{where}.paid"] = problem
        values["wagers"].append(item)
    if errors:
        raise serializers.ValidationError(errors)
    return values


class CoupBatchInputSerializer(StrictSerializer):
    coups = CoupInputSerializer(many=True, min_length=1, max_length=MAX_BATCH_COUPS)


class ShoeStartSerializer(StrictSerializer):
    decks = AsciiIntegerField(min_value=1, max_value=12, default=8)
    cut_card_position = AsciiIntegerField(
        min_value=1, max_value=12 * 52, help_text="Cards from the top (after the burn) to the cut card."
    )
    burn = serializers.ListField(
        child=serializers.CharField(max_length=3, min_length=2),
        required=False,
        default=list,
        max_length=20,
        help_text="The burned cards' codes.",
    )
    shuffled_at = AsciiDateTimeField(required=False, help_text="Default: now.")


class TableEventInputSerializer(StrictSerializer):
    at = AsciiDateTimeField(required=False, help_text="When it happened; default: now.")


class BoxCountInputSerializer(StrictSerializer):
    seat = AsciiIntegerField(min_value=1, max_value=99)
    counted = MoneyField(help_text="What was counted in the seat's commission box.")


class ShoeCloseSerializer(StrictSerializer):
    commission_box = BoxCountInputSerializer(many=True, max_length=99)
    closed_at = AsciiDateTimeField(required=False, help_text="Default: now.")


class CollectInputSerializer(StrictSerializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class ReviewInputSerializer(StrictSerializer):
    note = serializers.CharField(allow_blank=True, max_length=2000, help_text="Required: what was done or why.")


# ------------------------------------------------------------------------------------------ outputs
def money(minor, currency) -> str | None:
    value = from_minor(minor, currency)
    return None if value is None else str(value)


def _iso(moment) -> str | None:
    if moment is None:
        return None
    value = moment.isoformat()
    return value[:-6] + "Z" if value.endswith("+00:00") else value


def recorded_by(row) -> str:
    return row.recorded_by


class _Output(serializers.Serializer):
    """A response serializer whose fields document the answer; `data_function` builds it."""

    data_function = None

    def to_representation(self, instance):
        return type(self).data_function(instance)


def table_data(table) -> dict:
    return {
        "code": table.code,
        "name": table.name,
        "game": table.game,
        "seats": table.seats,
        "squeeze": table.squeeze,
        "status": table.status,
        "currency": table.currency,
        "paytable": table.paytable_id,
        "limits": [
            {
                "bet": limit.bet,
                "minimum": money(limit.minimum_minor, table.currency),
                "maximum": money(limit.maximum_minor, table.currency),
            }
            for limit in table.limits.all()
        ],
        "dealing_shoe": getattr(table, "dealing_shoe_id", None),
    }


class TableLimitSerializer(serializers.Serializer):
    bet = serializers.CharField()
    minimum = SignedMoneyField()
    maximum = SignedMoneyField()


class TableSerializer(_Output):
    code = serializers.CharField()
    name = serializers.CharField()
    game = serializers.ChoiceField(choices=("big", "midi", "mini"))
    seats = serializers.ListField(child=serializers.IntegerField())
    squeeze = serializers.BooleanField()
    status = serializers.ChoiceField(choices=("open", "closed"))
    currency = serializers.CharField()
    paytable = serializers.IntegerField(help_text="Id of the paytable configuration in force.")
    limits = TableLimitSerializer(many=True)
    dealing_shoe = serializers.IntegerField(allow_null=True, help_text="Id of the shoe now dealing, if any.")
    data_function = staticmethod(table_data)


def shoe_data(shoe) -> dict:
    return {
        "id": shoe.pk,
        "table": shoe.table.code,
        "sequence": shoe.sequence,
        "decks": shoe.decks,
        "shuffled_at": _iso(shoe.shuffled_at),
        "cut_card_position": shoe.cut_card_position,
        "burn": list(shoe.burn_cards),
        "status": shoe.status,
        "closed_at": _iso(shoe.closed_at),
        "cards_dealt": shoe.cards_dealt,
        "coups_recorded": shoe.coups_recorded,
        "cards_left_before_cut": shoe.cards_left_before_cut,
        "recorded_by": shoe.recorded_by,
    }


class ShoeSerializer(_Output):
    id = serializers.IntegerField()
    table = serializers.CharField()
    sequence = serializers.IntegerField()
    decks = serializers.IntegerField()
    shuffled_at = serializers.DateTimeField()
    cut_card_position = serializers.IntegerField()
    burn = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=("dealing", "closed"))
    closed_at = serializers.DateTimeField(allow_null=True)
    cards_dealt = serializers.IntegerField()
    coups_recorded = serializers.IntegerField()
    cards_left_before_cut = serializers.IntegerField()
    recorded_by = serializers.CharField(help_text="'device <name> @ <table>', 'user <name>' or 'system'.")
    data_function = staticmethod(shoe_data)


class ViolationBriefSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class WagerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bet = serializers.CharField()
    amount = SignedMoneyField()
    paid = SignedMoneyField(allow_null=True)
    result = serializers.ChoiceField(choices=("win", "lose", "push"))
    payout = SignedMoneyField(help_text="Paid beyond the returned stake, by the paytable.")
    commission = SignedMoneyField(help_text="Owed into the seat's commission box.")


def coup_data(coup, wagers: list[dict], violations: list[dict]) -> dict:
    """`wagers` as WagerSerializer dicts, `violations` as {code, message}."""
    return {
        "id": coup.pk,
        "shoe": coup.shoe_id,
        "number": coup.number,
        "dealt_at": _iso(coup.dealt_at),
        "gaming_day": coup.gaming_day.isoformat(),
        "player": list(coup.player_cards),
        "banker": list(coup.banker_cards),
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "winner": coup.winner,
        "natural": coup.natural,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
        "reported_winner": coup.reported_winner or None,
        "paytable": coup.paytable_id,
        "recorded_by": coup.recorded_by,
        "wagers": wagers,
        "violations": violations,
    }


class CoupSerializer(serializers.Serializer):
    """A recorded coup: the cards, the engine's evaluation, the wagers' settlement, the violations."""

    id = serializers.IntegerField()
    shoe = serializers.IntegerField()
    number = serializers.IntegerField()
    dealt_at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    player = serializers.ListField(child=serializers.CharField())
    banker = serializers.ListField(child=serializers.CharField())
    player_total = serializers.IntegerField(min_value=0, max_value=9)
    banker_total = serializers.IntegerField(min_value=0, max_value=9)
    winner = serializers.ChoiceField(choices=WINNERS)
    natural = serializers.BooleanField()
    player_pair = serializers.BooleanField()
    banker_pair = serializers.BooleanField()
    reported_winner = serializers.ChoiceField(
        choices=WINNERS, allow_null=True, help_text="Null when none was reported."
    )
    paytable = serializers.IntegerField()
    recorded_by = serializers.CharField()
    wagers = WagerSerializer(many=True)
    violations = ViolationBriefSerializer(
        many=True,
        help_text="Rule violations known when answering: the engine's draw checks and recorded findings.",
    )

    def to_representation(self, instance):
        return instance  # views pass coup_data() dicts


class CoupBatchItemSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="Position in the posted list.")
    number = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=("created", "existing", "conflict", "invalid"))
    id = serializers.IntegerField(
        allow_null=True, help_text="The coup that holds the number (created now or before); null when invalid."
    )
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    coup = CoupSerializer(
        allow_null=True, required=False, help_text="Only with `?answer=full`: the coup as `GET /coups/{id}/` shows it."
    )


class CoupBatchSummarySerializer(serializers.Serializer):
    created = serializers.IntegerField()
    existing = serializers.IntegerField()
    conflict = serializers.IntegerField()
    invalid = serializers.IntegerField()


class CoupBatchResultSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    summary = CoupBatchSummarySerializer()
    results = CoupBatchItemSerializer(many=True)

    def to_representation(self, instance):
        return instance


class CollectionSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    seat = serializers.IntegerField()
    currency = serializers.CharField()
    collected = SignedMoneyField(help_text='Collected from the seat now; "0.00" when it owed nothing.')
    entry = serializers.IntegerField(allow_null=True, help_text="Id of the ledger entry, if one was written.")

    def to_representation(self, instance):
        return instance


class ReconciliationSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    accrued = SignedMoneyField()
    collected_earlier = SignedMoneyField()
    expected = SignedMoneyField()
    counted = SignedMoneyField()
    variance = SignedMoneyField()


def reconciliation_data(reconciliation) -> dict:
    currency = reconciliation.currency
    return {
        "shoe": reconciliation.shoe_id,
        "currency": currency,
        "status": reconciliation.status,
        "accrued": money(reconciliation.accrued_minor, currency),
        "collected_earlier": money(reconciliation.collected_earlier_minor, currency),
        "expected": money(reconciliation.expected_minor, currency),
        "counted": money(reconciliation.counted_minor, currency),
        "variance": money(reconciliation.variance_minor, currency),
        "reconciled_at": _iso(reconciliation.reconciled_at),
        "explanation": reconciliation.explanation,
        "seats": [
            {
                "seat": line.seat,
                "accrued": money(line.accrued_minor, currency),
                "collected_earlier": money(line.collected_earlier_minor, currency),
                "expected": money(line.expected_minor, currency),
                "counted": money(line.counted_minor, currency),
                "variance": money(line.variance_minor, currency),
            }
            for line in reconciliation.seats.all()
        ],
    }


class ReconciliationSerializer(_Output):
    shoe = serializers.IntegerField()
    currency = serializers.CharField()
    status = serializers.ChoiceField(choices=("balanced", "variance", "explained"))
    accrued = SignedMoneyField()
    collected_earlier = SignedMoneyField()
    expected = SignedMoneyField()
    counted = SignedMoneyField()
    variance = SignedMoneyField(help_text="Counted minus expected.")
    reconciled_at = serializers.DateTimeField()
    explanation = serializers.CharField()
    seats = ReconciliationSeatSerializer(many=True)
    data_function = staticmethod(reconciliation_data)


class ReconciliationPendingSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=("dealing", "pending"),
        help_text="`dealing`: the shoe is not closed yet; `pending`: closed, its reconciliation is queued.",
    )
    message = serializers.CharField()
    retry_after_seconds = serializers.IntegerField(help_text="The same as the Retry-After header.")


def violation_data(violation) -> dict:
    return {
        "id": violation.pk,
        "code": violation.code,
        "message": violation.message,
        "severity": violation.severity,
        "status": violation.status,
        "table": violation.table.code,
        "shoe": violation.shoe_id,
        "coup": violation.coup_id,
        "wager": violation.wager_id,
        "seat": violation.seat,
        "gaming_day": violation.gaming_day.isoformat(),
        "found_at": _iso(violation.found_at),
        "found_by": violation.found_by,
        "cleared_at": _iso(violation.cleared_at),
        "status_note": violation.status_note,
        "status_changed_by": violation.status_changed_by.get_username() if violation.status_changed_by_id else None,
        "status_changed_at": _iso(violation.status_changed_at),
    }


class ViolationSerializer(_Output):
    id = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    severity = serializers.ChoiceField(choices=("low", "medium", "high"))
    status = serializers.ChoiceField(choices=("open", "acknowledged", "resolved", "dismissed"))
    table = serializers.CharField()
    shoe = serializers.IntegerField(allow_null=True)
    coup = serializers.IntegerField(allow_null=True)
    wager = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    gaming_day = serializers.DateField()
    found_at = serializers.DateTimeField()
    found_by = serializers.CharField()
    cleared_at = serializers.DateTimeField(allow_null=True)
    status_note = serializers.CharField()
    status_changed_by = serializers.CharField(allow_null=True)
    status_changed_at = serializers.DateTimeField(allow_null=True)
    data_function = staticmethod(violation_data)


def paytable_data(configuration) -> dict:
    return {
        "id": configuration.pk,
        "code": configuration.code,
        "version": configuration.version,
        "name": configuration.name,
        "preset": configuration.preset,
        "rules": configuration.rules,
        "house_edges": configuration.house_edges,
        "override_reason": configuration.override_reason,
        "supersedes": configuration.supersedes_id,
        "superseded_by": getattr(getattr(configuration, "superseded_by", None), "pk", None),
    }


FACT_CHOICES = sorted(game.FACTS)
ROUNDING_MODES = [mode.value for mode in game.RoundingMode]


class PaytableRuleSerializer(serializers.Serializer):
    when = serializers.ListField(
        child=serializers.ChoiceField(choices=FACT_CHOICES),
        help_text="Facts of the outcome that must all hold for this rule to decide the bet.",
    )
    result = serializers.ChoiceField(choices=[result.value for result in game.BetResult])
    odds = serializers.RegexField(
        r"^[0-9]+:[0-9]+$", allow_null=True, help_text='What a win pays, e.g. "8:1"; null unless a win.'
    )
    commission = serializers.BooleanField(help_text="A win owes commission.")


class PaytableBetSerializer(serializers.Serializer):
    rules = PaytableRuleSerializer(many=True, help_text="Tried in order; the first that matches decides.")


class PaytableRoundingSerializer(serializers.Serializer):
    increment = serializers.CharField(help_text='A decimal string, e.g. "0.01".')
    mode = serializers.ChoiceField(choices=ROUNDING_MODES)


class PaytableRulesSerializer(serializers.Serializer):
    name = serializers.CharField()
    commission_mode = serializers.ChoiceField(choices=[mode.value for mode in game.CommissionMode])
    commission_rate = serializers.CharField(help_text='A decimal string, e.g. "0.05".')
    commission_rounding = PaytableRoundingSerializer()
    bet_increments = serializers.DictField(child=serializers.CharField(), help_text="Bet -> increment.")
    ties_push = serializers.BooleanField(help_text="A tie pushes Player and Banker bets.")
    bets = serializers.DictField(child=PaytableBetSerializer(), help_text="Bet name -> its rules.")


class HouseEdgeSerializer(serializers.Serializer):
    house_edge = serializers.CharField()
    variance = serializers.CharField()


class PaytableSerializer(_Output):
    id = serializers.IntegerField()
    code = serializers.CharField()
    version = serializers.IntegerField()
    name = serializers.CharField()
    preset = serializers.CharField()
    rules = PaytableRulesSerializer(help_text="The engine's paytable: bets, payouts, commission mode and rounding.")
    house_edges = serializers.DictField(child=HouseEdgeSerializer(), help_text="Per bet, 8 decks, as computed on save.")
    override_reason = serializers.CharField()
    supersedes = serializers.IntegerField(allow_null=True)
    superseded_by = serializers.IntegerField(allow_null=True)
    data_function = staticmethod(paytable_data)


class OutcomeOddsSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=("win", "lose", "push"))
    net = serializers.CharField(help_text="Net return per unit staked, a decimal string.")
    probability = serializers.CharField()


class BetOddsSerializer(serializers.Serializer):
    bet = serializers.CharField()
    house_edge = serializers.CharField(help_text="Exact, as a decimal string (12 places); negative favours the player.")
    variance = serializers.CharField()
    outcomes = OutcomeOddsSerializer(many=True)


class OddsSerializer(serializers.Serializer):
    paytable = serializers.IntegerField()
    decks = serializers.IntegerField()
    cards = serializers.IntegerField()
    bets = BetOddsSerializer(many=True)

    def to_representation(self, instance):
        return instance
