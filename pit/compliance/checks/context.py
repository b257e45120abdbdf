"""The caches of one run of the rule checks: tables' limits, opens and closes, and paytables, read
once per run; and the engine's answers for inputs seen before."""

from __future__ import annotations

import bisect
import datetime as dt
import logging
from decimal import Decimal
from typing import Any, cast

from pit import game
from pit.core.jurisdictions import jurisdiction
from pit.core.money import from_minor, settlement_unit
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.players.selectors import seat_session_at
from pit.shoes.models import Wager
from pit.tables.models import Table, TableEvent, TableEventKind, TableLimit, TableLimitVersion, TableStatus
from pit.tables.selectors import seat_sat_down_at

logger = logging.getLogger(__name__)

CACHE_LIMIT = 200_000


class RunContext:
    """What does not change between chunks: tables' limits and paytables, read once per run; and the
    engine's answers for inputs seen before. The engine's functions are pure and a pit repeats the
    same few stakes, outcomes and seats endlessly, so a settlement or a limit check is computed once
    per distinct input, not once per wager."""

    def __init__(self) -> None:
        # Per table, its limit sets in force from a moment on, oldest first (see limits_at).
        self.limits: dict[int, list[tuple[dt.datetime | None, game.TableLimits]]] = {}
        self.dealt_at: dict[int, dt.datetime] = {}  # coup id -> when it was dealt
        self.paytables: dict[int, game.Paytable] = {}
        self.table_codes: dict[int, str] = {}
        self.table_status: dict[int, str] = {}
        self.table_events: dict[int, tuple[list, list]] = {}
        # The engine's answers, keyed by what was asked first ("seen", "facts", "money", "coup", "limits",
        # "settle"): each key's answer has that question's type.
        self._memo: dict[tuple, Any] = {}
        self.clean_wagers: set[tuple] = set()
        rules = jurisdiction()
        # Ohio 3772-11-04 and the like: a seat playing since before a minimum rose keeps the old one.
        self.grandfathering = rules.grandfathering
        self.continuous_play = dt.timedelta(minutes=rules.continuous_play_minutes)

    def card_seen(self, decks: int, code: str, count: int, coup_id: int) -> list[game.Violation]:
        """The engine's capacity findings for one card seen `count` times in a shoe of `decks` decks,
        remembered by those (a shoe over capacity asks for every card of every coup)."""
        key = ("seen", decks, code, count)
        found: list[game.Violation] | None = self._memo.get(key)
        if found is None:
            found = self._memo[key] = cards_seen(decks, {code: count}, coup_id)
        return found

    def relevant_facts(self, paytable_id: int, facts: frozenset[str]) -> frozenset[str]:
        key = ("facts", paytable_id, facts)
        relevant: frozenset[str] | None = self._memo.get(key)
        if relevant is None:
            relevant = self._memo[key] = facts & self.paytables[paytable_id].facts_used()
        return relevant

    def money(self, minor: int, currency: str) -> Decimal:
        key = ("money", minor, currency)
        amount: Decimal | None = self._memo.get(key)
        if amount is None:
            amount = self._memo[key] = from_minor(minor, currency)
        return amount

    def limits_at(self, table_id: int, moment: dt.datetime | None) -> tuple[int, game.TableLimits]:
        """The table's limits in force at `moment` (a coup's dealt time): the set with the latest
        start not after it; a coup dealt before the first set is judged by the first. Returns the
        set's index (part of the memo key) and the limits."""
        sets = self.limits[table_id]
        index = 0
        if moment is not None:
            # More than one set: all versioned, every start a moment (None only for the lone current set).
            starts = cast("list[dt.datetime]", [start for start, _ in sets])
            index = max(bisect.bisect_right(starts, moment, lo=1) - 1, 0) if len(sets) > 1 else 0
        return index, sets[index][1]

    def grandfathered(
        self, *, table_id: int, seat: int, bet: str, amount_minor: int, currency: str, moment: dt.datetime | None
    ) -> bool:
        """Whether a wager under the minimum in force is within the minimum its seat sat down under:
        the set in force when the seat's player sat down, that is when the seat session holding the
        wager began (a break keeps the seat), or where no session is recorded, when the seat's
        continuous play that reaches the wager began (its wagers with no gap longer than the
        jurisdiction's continuous-play gap). Only where the jurisdiction grandfathers seated
        players; asked only of wagers found under the minimum (rare)."""
        if not self.grandfathering or moment is None or len(self.limits[table_id]) < 2:
            return False
        key = ("sat_down", table_id, seat, moment)
        sat_down: dt.datetime | None = self._memo.get(key)
        session = None if sat_down is not None else seat_session_at(table_id=table_id, seat=seat, moment=moment)
        if session is not None:
            sat_down = self._memo[key] = session.started_at
        elif sat_down is None:
            plays = list(
                Wager.objects.filter(
                    coup__shoe__table_id=table_id,
                    seat=seat,
                    coup__dealt_at__lte=moment,
                    coup__dealt_at__gte=moment - dt.timedelta(days=1),
                )
                .order_by("-coup__dealt_at")
                .values_list("coup__dealt_at", flat=True)
                .distinct()[:5000]
            )
            sat_down = self._memo[key] = seat_sat_down_at(plays, moment, self.continuous_play)
        _, sat_under = self.limits_at(table_id, sat_down)
        if bet not in sat_under.bets:
            return False
        # The engine judges the wager against the limits the seat sat down under (the minimum only).
        line = game.WagerLine(seat=seat, bet=bet, amount=self.money(amount_minor, currency))
        found = game.check_wager_limits(game.TableLimits({bet: sat_under.bets[bet]}), [line])
        return not any(finding.code == "wager_under_minimum" for finding in found)

    def coup_verdict(self, player_codes, banker_codes, reported: str | None) -> tuple[list, game.Evaluation | None]:
        """The engine's draw and winner findings for a dealt coup, and its evaluation (None when its
        hands cannot be evaluated). Both follow from the engine's signature of the hands
        (`game.coup_signature`: totals, pairs, later cards, suited pairs, twins and colours) and the
        reported winner: the evaluation is remembered by those, and so is a clean verdict; a coup
        with findings is always judged again, for its wording. Raises ValueError (InvalidCard) for
        codes that name no card."""
        cards = game.CARDS  # stored codes are normalised: a lookup each, no parsing
        try:
            player = tuple([cards[code] for code in player_codes])
            banker = tuple([cards[code] for code in banker_codes])
        except (KeyError, TypeError):
            dealt = game.Coup.from_codes(player=player_codes, banker=banker_codes)
            player, banker = dealt.player, dealt.banker
        key = ("coup", game.coup_signature(player, banker), reported)
        known: tuple[bool, game.Evaluation | None] | None = self._memo.get(key)
        if known is not None:
            clean, evaluation = known
            return ([] if clean else game.verify_coup(game.Coup(player, banker), reported)), evaluation
        dealt = game.Coup(player, banker)
        found = game.verify_coup(dealt, reported)
        try:
            evaluation = game.evaluate(dealt)
        except ValueError:  # hands that cannot be evaluated are reported by verify_coup
            evaluation = None
        self._memo[key] = (not found, evaluation)
        return found, evaluation

    def wager_findings(
        self,
        *,
        table_id: int,
        paytable_id: int,
        seat: int,
        bet: str,
        currency: str,
        amount_minor: int,
        paid_minor: int | None,
        charged_minor: int,
        evaluation: game.Evaluation,
        facts: frozenset[str],
        version: int,
        limits: game.TableLimits,
    ) -> tuple[game.Violation, ...]:
        """What the engine finds wrong with one wager: the table's limits and the paytable's
        increments, then the payout reported against the settlement and the ledger's commission
        against it. Each part is asked of the engine once per distinct input:
        - the limits by table, limit set (`limits_at`: its version), paytable, bet and stake; a
          single wager's verdict does not depend on its seat (only the wording does), so a clean
          verdict is remembered for every seat, a finding per seat;
        - the settlement by paytable, bet, stake, payout, commission and the outcome's facts that the
          paytable's rules name (`relevant_facts`, not the cards: worked out once per coup by the
          caller), whatever the table or seat."""
        if len(self._memo) >= CACHE_LIMIT:
            self._memo.clear()
        memo = self._memo
        limit_key = ("limits", table_id, version, paytable_id, bet, currency, amount_minor)
        over: tuple[game.Violation, ...] | None = memo.get(limit_key)
        if over is None:
            seat_key = (*limit_key, seat)
            over = memo.get(seat_key)
            if over is None:
                paytable = self.paytables[paytable_id]
                line = game.WagerLine(seat=seat, bet=bet, amount=self.money(amount_minor, currency))
                over = tuple(game.check_wager_limits(limits, [line], paytable.bet_increments))
                memo[seat_key if over else limit_key] = over
        settle_key = ("settle", paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, facts)
        wrong: tuple[game.Violation, ...] | None = memo.get(settle_key)
        if wrong is None:
            wrong = memo[settle_key] = tuple(
                self._judge_settlement(paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, evaluation)
            )
        return over + wrong if over else wrong

    def _judge_settlement(self, paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, evaluation):
        paytable = self.paytables[paytable_id]
        try:
            settlement = game.settle(
                paytable, bet, self.money(amount_minor, currency), evaluation, unit=settlement_unit(currency)
            )
        except (game.UnknownBet, ValueError):
            return
        if paid_minor is not None:
            finding = game.check_payout(settlement, self.money(paid_minor, currency))
            if finding is not None:
                yield finding
        finding = game.check_commission(settlement, self.money(charged_minor, currency))
        if finding is not None:
            yield finding

    def load_tables(self, table_ids: set[int]) -> None:
        """Each table's limits, code and status, and its opens and closes."""
        missing = table_ids - set(self.limits)
        if not missing:
            return
        currencies = {}
        for pk, currency, code, status in Table.objects.filter(pk__in=missing).values_list(
            "pk", "currency", "code", "status"
        ):
            currencies[pk], self.table_codes[pk], self.table_status[pk] = currency, code, status
        self._load_table_history(missing)
        # The versions of each table's limits, oldest first; a table with none (set before versions
        # were kept, or never) is judged by its current limits.
        sets: dict[int, dict[dt.datetime | None, dict[str, game.BetLimit]]] = {table_id: {} for table_id in missing}
        versions = TableLimitVersion.objects.filter(table_id__in=missing).order_by("table_id", "effective_from", "bet")
        for table_id, start, bet, low, high in versions.values_list(
            "table_id", "effective_from", "bet", "minimum_minor", "maximum_minor"
        ):
            currency = currencies[table_id]
            sets[table_id].setdefault(start, {})[bet] = game.BetLimit(
                minimum=from_minor(low, currency), maximum=from_minor(high, currency)
            )
        unversioned = {table_id for table_id in missing if not sets[table_id]}
        current: dict[int, dict[str, game.BetLimit]] = {table_id: {} for table_id in unversioned}
        for table_id, bet, low, high in (
            TableLimit.objects.filter(table_id__in=unversioned).values_list(
                "table_id", "bet", "minimum_minor", "maximum_minor"
            )
            if unversioned
            else ()
        ):
            currency = currencies[table_id]
            current[table_id][bet] = game.BetLimit(
                minimum=from_minor(low, currency), maximum=from_minor(high, currency)
            )
        for table_id in missing:
            by_start = sets[table_id]
            self.limits[table_id] = [(start, game.TableLimits(bets)) for start, bets in by_start.items()] or [
                (None, game.TableLimits(current.get(table_id, {})))
            ]

    def _load_table_history(self, missing: set[int]) -> None:
        """Each table's opens and closes in the order they were recorded (its code and status now are
        read with its currency, by load_tables)."""
        for table_id in missing:
            self.table_events[table_id] = ([], [])
        for table_id, recorded_at, kind in (
            TableEvent.objects.filter(table_id__in=missing)
            .order_by("recorded_at", "pk")
            .values_list("table_id", "recorded_at", "kind")
        ):
            times, kinds = self.table_events[table_id]
            times.append(recorded_at)
            kinds.append(kind)

    def table_closed_at(self, table_id: int, moment) -> bool:
        """Whether the table was closed when `moment` was recorded: the last open or close recorded
        before it; before its first event, the opposite of that event; with no event, its status now."""
        times, kinds = self.table_events[table_id]
        if not times:
            return self.table_status[table_id] == TableStatus.CLOSED
        index = bisect.bisect_right(times, moment)
        if index:
            return kinds[index - 1] == TableEventKind.CLOSED
        return kinds[0] == TableEventKind.OPENED

    def load_paytables(self, paytable_ids: set[int]) -> None:
        missing = paytable_ids - set(self.paytables)
        for pk, rules in PaytableConfiguration.objects.filter(pk__in=missing).values_list("pk", "rules"):
            self.paytables[pk] = engine_paytable(rules)


def cards_seen(decks: int, counts, coup_id: int) -> list[game.Violation]:
    """The engine's capacity findings for a shoe of `decks` decks with these cards seen."""
    try:
        return game.check_cards_seen(decks, counts)
    except (ValueError, game.InvalidCard):
        logger.warning("coup %s: cards that name no card", coup_id)
        return []
