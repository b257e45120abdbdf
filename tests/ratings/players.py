"""Patrons and seat sessions for the ratings' tests, written with the models (and the floor's
seating, which owes the ratings' refresh as the players' services will)."""

from pit.players.models import Patron, PatronVersion, Tier


def tier(code: str = "gold", colour: str = "#d4af37", rank: int = 3) -> Tier:
    return Tier.objects.get_or_create(code=code, defaults={"name": code.title(), "colour": colour, "rank": rank})[0]


def patron(card: str, name: str = "A. Patron", nationality: str = "CN", tier_: Tier | None = None) -> Patron:
    made = Patron.objects.create(card_number=card)
    PatronVersion.objects.create(patron=made, name=name, tier=tier_ or tier(), nationality=nationality)
    return made
