"""The two ways the simulated floor talks to the pit: the services in-process, or the REST API over HTTP.

Both are thin: the dealer (`pit.floor.simulator`) decides what happens at the table; a client only
carries it, through exactly the calls a floor system would make.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.error
import urllib.request
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from pit import game
from pit.core.actors import SYSTEM, Actor
from pit.core.errors import Conflict
from pit.core.money import from_minor
from pit.dealers.models import Dealer
from pit.dealers.services import dealer_create, dealer_rotate
from pit.floor.cash import Cage
from pit.floor.seating import PatronClub
from pit.floor.simulator import CoupPlay, DealingShoe, SimulationError, TableSetup
from pit.ledger.models import CommissionEntry
from pit.ledger.services import commission_collect
from pit.paytables.selectors import engine_paytable
from pit.players.models import BuyInKind, SeatSession
from pit.players.services import buy_in_record, session_sit, session_stand
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import CoupInput, CoupOutcomeStatus, WagerInput, coups_record, shoe_close, shoe_start
from pit.tables.models import Table
from pit.tables.services import table_open


def _table_setup(table: Table) -> TableSetup:
    limits = {
        limit.bet: (
            from_minor(limit.minimum_minor, table.currency),
            from_minor(limit.maximum_minor, table.currency),
        )
        for limit in table.limits.all()
    }
    return TableSetup(
        code=table.code,
        seats=tuple(table.seats),
        currency=table.currency,
        paytable=engine_paytable(table.paytable),
        limits=limits,
    )


class ServicesFloorClient:
    """Plays through the tables, shoes and ledger services, as the API does."""

    def __init__(self, actor: Actor = SYSTEM):
        self.actor = actor
        self._tables: dict[str, Table] = {}
        self._shoes: dict[int, Shoe] = {}
        self.cage: Cage | None = None  # with a patron club: their chips and the cage (pit.floor.cash)

    def _table(self, code: str) -> Table:
        if code not in self._tables:
            self._tables[code] = Table.objects.select_related("paytable").get(code=code)
        return self._tables[code]

    def patrons_enrol(self, club: PatronClub) -> None:
        """The club's patrons recorded (once), so that their cards can be swiped at the seats."""
        self._patrons = club.enrol()
        club.cage = self.cage = Cage(club.roles, self._patrons, self.actor)

    def seat_player(self, code: str, seat: int, at: dt.datetime, *, card: str | None, buy_in: Decimal) -> int:
        """A player sits down: a patron's card swiped at the seat, or an unrated player described."""
        patron = self._patrons[card] if card else None
        table = self._table(code)
        # What the pit sees of an unrated player: a record's words, the same in every language.
        unrated = "" if patron else f"unrated player, {code} seat {seat}, {at:%Y-%m-%d %H:%M}"
        with transaction.atomic():
            session = session_sit(
                table=table,
                seat=seat,
                at=at,
                patron=patron,
                description=unrated,
                actor=self.actor,
            )
            if buy_in:
                buy_in_record(
                    session=session,
                    kind=BuyInKind.CASH,
                    amount=buy_in,
                    currency=table.currency,
                    at=at,
                    actor=self.actor,
                )
        if self.cage is not None:
            self.cage.sat(card)
        return session.pk

    def stand_player(self, session_id: int, at: dt.datetime) -> None:
        """The player stands, with the chips a patron walks away with (pit.floor.cash.Cage.walked)."""
        session = SeatSession.objects.select_related("table").get(pk=session_id)
        walked = self.cage.walked(session) if self.cage is not None else None
        session_stand(session=session, at=at, chips_walked=walked, actor=self.actor)

    def table_setup(self, code: str) -> TableSetup:
        try:
            return _table_setup(self._table(code))
        except Table.DoesNotExist:
            raise SimulationError(f"There is no table {code!r}.") from None

    def table_open(self, code: str, at: dt.datetime) -> None:
        self._tables[code] = table_open(table=self._table(code), actor=self.actor, at=at)

    def dealing_shoe_close(self, code: str, at: dt.datetime) -> None:
        shoe = Shoe.objects.filter(table=self._table(code), status=ShoeStatus.DEALING).first()
        if shoe is None:
            return
        balances = self._balances(shoe)
        counts = [(seat, from_minor(total, shoe.table.currency)) for seat, total in balances if total > 0]
        last = shoe.coups.order_by("-number").values_list("dealt_at", flat=True).first()
        closed_at = max(filter(None, (last, at, timezone.now())))
        shoe_close(shoe=shoe, box_counts=counts, closed_at=closed_at, actor=self.actor)

    def dealing_shoe(self, code: str) -> DealingShoe | None:
        shoe = Shoe.objects.filter(table=self._table(code), status=ShoeStatus.DEALING).first()
        if shoe is None:
            return None
        self._shoes[shoe.pk] = shoe
        currency = self._table(code).currency
        return DealingShoe(
            shoe_id=shoe.pk,
            sequence=shoe.sequence,
            decks=shoe.decks,
            cut_card_position=shoe.cut_card_position,
            cards_dealt=shoe.cards_dealt,
            coups_recorded=shoe.coups_recorded,
            cards_seen=dict(shoe.cards_seen),
            box={seat: from_minor(total, currency) for seat, total in self._balances(shoe) if total > 0},
        )

    @staticmethod
    def _balances(shoe: Shoe):
        return (
            CommissionEntry.objects.filter(shoe=shoe)
            .values_list("seat")
            .annotate(total=Sum("amount_minor"))
            .order_by("seat")
        )

    def shoe_start(self, code, *, decks, cut_card_position, burn, shuffled_at) -> tuple[int, int]:
        shoe = shoe_start(
            table=self._table(code),
            decks=decks,
            cut_card_position=cut_card_position,
            burn=burn,
            shuffled_at=shuffled_at,
            actor=self.actor,
        )
        self._shoes[shoe.pk] = shoe
        return shoe.pk, shoe.sequence

    def coups_record(self, shoe_id: int, coups: list[CoupPlay]) -> list[int]:
        inputs = [
            CoupInput(
                number=play.number,
                player=list(play.player),
                banker=list(play.banker),
                dealt_at=play.dealt_at,
                reported_winner=play.reported_winner,
                wagers=tuple(WagerInput(seat=w.seat, bet=w.bet, amount=w.amount, paid=w.paid) for w in play.wagers),
            )
            for play in coups
        ]
        outcomes = coups_record(shoe=self._shoes[shoe_id], coups=inputs, actor=self.actor)
        refused = [
            (play.number, o.errors)
            for play, o in zip(coups, outcomes, strict=True)
            if o.status != CoupOutcomeStatus.CREATED
        ]
        if refused:
            raise SimulationError(f"The pit refused coups of shoe {shoe_id}: {refused}")
        ids = []
        for outcome in outcomes:
            assert outcome.coup is not None, "a created coup's outcome carries it"
            ids.append(outcome.coup.pk)
        return ids

    def commission_collect(self, shoe_id: int, seat: int) -> None:
        commission_collect(shoe=self._shoes[shoe_id], seat=seat, actor=self.actor, note="player left (simulated)")

    def shoe_close(self, shoe_id: int, counts: list[tuple[int, Decimal]], closed_at: dt.datetime) -> None:
        # Backfilled history closes when it is recorded: a coup recorded after its shoe's closing
        # time is a violation (coup_after_shoe_closed), and these coups were recorded just now.
        closed_at = max(closed_at, timezone.now())
        try:
            shoe_close(shoe=self._shoes.pop(shoe_id), box_counts=counts, closed_at=closed_at, actor=self.actor)
        except ValidationError as exc:
            raise SimulationError(f"The pit refused to close shoe {shoe_id}: {exc}") from exc

    def dealer_rotate(self, code: str, dealer: str | None, started_at: dt.datetime) -> None:
        """A rotation, as a floor system posts it; the simulated dealers are hired on first use."""
        person = None
        if dealer is not None:
            person = Dealer.objects.filter(code=dealer).first() or dealer_create(
                code=dealer, name=f"Simulated dealer {dealer}"
            )
        try:
            dealer_rotate(table=self._table(code), dealer=person, started_at=started_at, actor=self.actor)
        except Conflict as exc:
            raise SimulationError(f"The pit refused a rotation at table {code}: {exc}") from exc


class HttpFloorClient:
    """Plays through the REST API with a device key, as a card-reading shoe or table terminal does."""

    def __init__(self, base_url: str, key: str, *, timeout: float = 30):
        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/api/v1"):
            self.base_url += "/api/v1"
        self.key, self.timeout = key, timeout

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(  # noqa: S310 (the URL is the operator's --url)
            f"{self.base_url}{path}",
            method=method,
            data=None if body is None else json.dumps(body, default=str).encode(),
            headers={
                "Authorization": f"Api-Key {self.key}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            raise SimulationError(f"{method} {path}: HTTP {exc.code}: {exc.read().decode()[:2000]}") from exc
        return json.loads(text) if text.strip() else {}

    def table_setup(self, code: str) -> TableSetup:
        data = self._call("GET", f"/tables/{code}/")
        listing = self._call("GET", "/paytables/?page_size=1000")
        paytables = listing.get("results", []) if isinstance(listing, dict) else listing
        rules = next((p["rules"] for p in paytables if p.get("id") == data.get("paytable")), None)
        if rules is None:
            raise SimulationError(f"The API shows no paytable {data.get('paytable')} for table {code}.")
        limits = {
            item["bet"]: (Decimal(str(item["minimum"])), Decimal(str(item["maximum"])))
            for item in data.get("limits", [])
        }
        return TableSetup(
            code=data.get("code", code),
            seats=tuple(data["seats"]),
            currency=data.get("currency", "USD"),
            paytable=game.Paytable.from_dict(rules),
            limits=limits,
        )

    def table_open(self, code: str, at: dt.datetime) -> None:
        self._call("POST", f"/tables/{code}/open/", {"at": at.isoformat()})

    def dealing_shoe_close(self, code: str, at: dt.datetime) -> None:
        # The API does not tell a device what the ledger expects in the box, so a shoe left
        # dealing cannot be closed honestly from here: say so rather than post a made-up count.
        dealing = self._call("GET", f"/tables/{code}/").get("dealing_shoe")
        if dealing:
            raise SimulationError(
                f"Shoe id {dealing} is still dealing at table {code}: close it with its commission box "
                "count (POST /api/v1/shoes/{id}/close/) or run the simulator without --url first."
            )

    def dealing_shoe(self, code: str) -> DealingShoe | None:
        # What each seat owes the box is the ledger's, not the device's: no going on over HTTP.
        return None

    def shoe_start(self, code, *, decks, cut_card_position, burn, shuffled_at) -> tuple[int, int]:
        data = self._call(
            "POST",
            f"/tables/{code}/shoes/",
            {
                "decks": decks,
                "cut_card_position": cut_card_position,
                "burn": burn,
                "shuffled_at": shuffled_at.isoformat(),
            },
        )
        return data["id"], data.get("sequence", 0)

    def coups_record(self, shoe_id: int, coups: list[CoupPlay]) -> list[int]:
        data = self._call(
            "POST",
            f"/shoes/{shoe_id}/coups/batch/",
            {
                "coups": [
                    {
                        "number": play.number,
                        "player": list(play.player),
                        "banker": list(play.banker),
                        "dealt_at": play.dealt_at.isoformat(),
                        "reported_winner": play.reported_winner,
                        "wagers": [
                            {"seat": w.seat, "bet": w.bet, "amount": str(w.amount), "paid": str(w.paid)}
                            for w in play.wagers
                        ],
                    }
                    for play in coups
                ]
            },
        )
        results = data.get("results", data.get("coups", [])) if isinstance(data, dict) else data
        ids: list[int] = []
        for item in results:
            status = item.get("status", "created")
            if status not in ("created", "existing"):
                raise SimulationError(f"The API refused a coup of shoe {shoe_id}: {item}")
            coup_id = item.get("id") or (item.get("coup") or {}).get("id")
            if not isinstance(coup_id, int):
                raise SimulationError(f"The API answered a coup of shoe {shoe_id} without its id: {item}")
            ids.append(coup_id)
        return ids

    def commission_collect(self, shoe_id: int, seat: int) -> None:
        self._call("POST", f"/shoes/{shoe_id}/seats/{seat}/collect/", {})

    def shoe_close(self, shoe_id: int, counts: list[tuple[int, Decimal]], closed_at: dt.datetime) -> None:
        self._call(
            "POST",
            f"/shoes/{shoe_id}/close/",
            {
                "commission_box": [{"seat": seat, "counted": str(counted)} for seat, counted in counts],
            },
        )

    def dealer_rotate(self, code: str, dealer: str | None, started_at: dt.datetime) -> None:
        # The dealers (SIM01 ...) must be known to the pit already: a device posts rotations, it
        # does not hire dealers.
        self._call("POST", f"/tables/{code}/rotations/", {"dealer": dealer, "started_at": started_at.isoformat()})
