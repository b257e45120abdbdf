"""Which part of pit may import which: the layers, bottom first, and the rules beside them.
tests/test_import_contract.py holds every import in pit/ to it; docs/design/layering.md explains it."""

# A component is a set of module prefixes; a module belongs to the component of its longest matching
# prefix. Most components are one app. Four apps have a lower part that the apps above their upper part
# build on, so the lower part is a component of its own (see docs/design/layering.md):
# the audit trail of accounts, the violation registry of compliance, the ledger's models, and the admin
# pages of tables and paytables (which show the shoes', the ledger's and the registry's rows).
COMPONENTS: dict[str, tuple[str, ...]] = {
    "game": ("pit.game",),
    "celery": ("pit.celery",),
    "core": ("pit.core",),
    "audit": ("pit.accounts.audit", "pit.accounts.access"),
    "violations": ("pit.compliance.models", "pit.compliance.services", "pit.compliance.selectors"),
    "records": ("pit.records",),
    "paytables": ("pit.paytables",),
    "tables": ("pit.tables",),
    "accounts": ("pit.accounts",),
    "ledger.models": ("pit.ledger.models",),
    "shoes": ("pit.shoes",),
    "ledger": ("pit.ledger",),
    "dealers": ("pit.dealers",),
    "players": ("pit.players",),
    "ratings": ("pit.ratings",),
    "cash": ("pit.cash",),
    "archive": ("pit.archive",),
    "protection": ("pit.protection",),
    "progressives": ("pit.progressives",),
    "compliance": ("pit.compliance",),
    "rollups": ("pit.rollups",),
    "accounting": ("pit.accounting",),
    "controls": ("pit.controls",),
    "notices": ("pit.notices",),
    "tables.admin": ("pit.tables.admin",),
    "paytables.admin": ("pit.paytables.admin",),
    "dashboard": ("pit.dashboard",),
    "reports": ("pit.reports",),
    "api": ("pit.api",),
    "floor": ("pit.floor",),
    # The project package itself ("pit", which imports nothing) and its wiring.
    "project": ("pit.urls", "pit.asgi", "pit.wsgi", "pit.settings", "pit.formats", "pit.contract"),
}

# Bottom first. A component may import its own modules and any component of a lower layer; the
# components of one layer are independent (neither imports the other).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("game", "celery"),
    ("core",),
    ("audit",),
    ("violations",),
    ("records",),
    ("paytables",),
    ("tables",),
    ("accounts", "ledger.models"),
    ("shoes",),
    ("ledger",),
    ("dealers", "players", "archive", "rollups", "tables.admin", "paytables.admin"),
    ("ratings",),
    ("protection", "progressives"),
    ("compliance", "accounting", "cash"),
    ("controls", "notices"),
    ("dashboard", "reports"),
    ("api", "floor"),
    ("project",),
)

# Third-party packages only some components may import: (package, the components allowed, why).
RESTRICTED_PACKAGES: tuple[tuple[str, frozenset[str], str], ...] = (
    ("rest_framework", frozenset({"api"}), "only the API app speaks DRF"),
    ("drf_spectacular", frozenset({"api"}), "only the API app speaks DRF"),
    ("django_filters", frozenset({"api"}), "only the API app speaks DRF"),
)

# Modules allowed a restricted package anyway: (module, package, why).
RESTRICTED_EXEMPT: tuple[tuple[str, str, str], ...] = (
    ("pit.core.warmup", "rest_framework", "warms DRF's lazily imported classes before a worker's first request"),
)

# Reports read; they never write: no report module calls another app's write services.
READ_ONLY: tuple[str, ...] = ("reports", "dashboard")
