"""The staff roles as data: role (a Django group name) -> the exact permissions it holds.

Defined once, here. A roles data migration (accounts/0003_roles) holds a copy of `ROLES` as it
stood when it was written (`roles_frozen()`, pasted in: a migration must not change meaning when
this file changes later) and gives each group exactly those permissions; a test checks that the
latest roles migration's copy equals `ROLES`, so a change here needs a new roles migration.
Least privilege: what a role may change it changes through admin actions
that call services (open/close a table, review a violation, explain a variance); nobody but a
superuser may add or delete rows, and floor devices hold no admin permission at all (they
authenticate to the API by key, not as users).
"""

from pit.accounts.models import Role


def _view(*models: str) -> set[str]:
    """`view_<model>` for each "app_label.model"."""
    return {f"{model.split('.')[0]}.view_{model.split('.')[1]}" for model in models}


# Everything about the game on the floor, read-only.
_FLOOR_RECORDS = _view(
    "tables.table",
    "tables.tablelimit",
    "tables.tablelimitversion",
    "tables.tableevent",
    "tables.limitchange",
    "paytables.paytableconfiguration",
    "shoes.shoe",
    "shoes.coup",
    "shoes.wager",
    "shoes.coupcorrection",
    "compliance.ruleviolation",
)
_LEDGER_RECORDS = _view(
    "ledger.commissionentry",
    "ledger.boxcount",
    "ledger.reconciliation",
    "ledger.reconciliationseat",
    "ledger.reconciliationsupplement",
    "ledger.reconciliationsupplementseat",
)
# Table accounting (pit.accounting): chip tray counts, fill/credit slips and their steps, drop counts,
# win-to-drop investigations, gaming-day closes and adjustments.
_ACCOUNTING_RECORDS = _view(
    "accounting.inventorycount",
    "accounting.slip",
    "accounting.slipstep",
    "accounting.dropcount",
    "accounting.holdflag",
    "accounting.holdfinding",
    "accounting.gamingdayevent",
    "accounting.adjustment",
    "accounting.slipbook",
    "accounting.slipvoid",
)
# What the pit owes surveillance and the regulator (pit.notices), and their acknowledgements and filings.
_NOTICE_RECORDS = _view(
    "notices.surveillancenotification",
    "notices.surveillanceacknowledgement",
    "notices.regulatornotice",
    "notices.regulatornoticefiling",
)
# The pit's internal controls (pit.controls): card custody, sensitive keys, shift handovers.
_CONTROL_RECORDS = _view(
    "controls.storageplace",
    "controls.deck",
    "controls.deckissue",
    "controls.deckevent",
    "controls.storagecount",
    "controls.sensitivekey",
    "controls.keyaccesslist",
    "controls.keyissue",
    "controls.keyreturn",
    "controls.shifthandover",
    "controls.handoveracceptance",
)
# Dealers: the roster, who dealt where and when, whose fault each reviewed violation was.
_DEALER_RECORDS = _view("dealers.dealer", "dealers.dealerrotation", "dealers.violationfault")
# Progressive meters (pit.progressives): meters, their filed configurations and banks, payouts, readings.
_PROGRESSIVE_RECORDS = _view(
    "progressives.meter",
    "progressives.meterconfiguration",
    "progressives.banktable",
    "progressives.meterpayout",
    "progressives.meterreading",
)
# The audit trail: django-pghistory's event tables (one per tracked model) and its aggregate views.
_AUDIT_RECORDS = _view(
    "tables.tableauditevent",
    "paytables.paytableconfigurationauditevent",
    "compliance.ruleviolationauditevent",
    "ledger.reconciliationauditevent",
    "accounts.userauditevent",
    "accounts.deviceauditevent",
    "accounts.stafftokenauditevent",
    "tables.tablelimitauditevent",
    "shoes.shoeauditevent",
    "controls.storageplaceauditevent",
    "controls.sensitivekeyauditevent",
    "pghistory.context",
    "pghistory.events",
    "pghistory.middlewareevents",
)
# Every delivery of a report (shown, downloaded, read by the API, sent by a schedule): the audit of
# what left pit, to whom. Auditors and compliance (the cash reports are theirs) read it.
_DELIVERY_RECORDS = _view("reports.reportdelivery")
# Players (pit.players): patrons, their versions and exclusions, seat sessions and the money at the
# seat, and every look at a patron. Seeing them shows card numbers only: a patron's name and
# nationality take PATRON_PERSONAL as well, which only the roles that deal with the person hold.
_PLAYER_RECORDS = _view(
    "players.tier",
    "players.patron",
    "players.patronversion",
    "players.exclusion",
    "players.seatsession",
    "players.sessionevent",
    "players.sessionidentification",
    "players.buyin",
    "players.chipswalked",
    "players.patronlook",
)
PATRON_PERSONAL = "players.view_patron_personal"
# Ratings (pit.ratings): each session's rating (exact and standard theo), estimated average bets,
# the tiers' reinvestment rates and the comps ledger; `ratings.view_ratings` shows them on a patron's page.
_RATING_RECORDS = _view(
    "ratings.sessionrating", "ratings.averagebetestimate", "ratings.reinvestmentrate", "ratings.compentry"
) | {"ratings.view_ratings"}
# The patrons' cash (pit.cash): the rules and rates, every cash transaction, the findings.
_CASH_RECORDS = _view(
    "cash.cashrules",
    "cash.exchangerate",
    "cash.cashtransaction",
    "cash.cashfinding",
    "cash.cashfindingauditevent",
)
# The machinery around the records: failed Celery tasks, API idempotency keys, report exports.
_OPERATIONS_RECORDS = _view(
    "core.failedtask",
    "api.idempotencykey",
    "reports.reportexport",
    "reports.reportschedule",
    "reports.reportschedulerun",
)
# Held by pit.accounts.models.StaffPermission (an unmanaged model with no table): running a report
# is a permission of the person, not of any row the reports app keeps.
RUN_REPORTS = "accounts.run_reports"

ROLES: dict[str, frozenset[str]] = {
    # Pit bosses see the ledger too (its reconciliation seats included: a box_variance violation
    # they review names a seat), but change only what the admin's actions change.
    Role.PIT_BOSS.value: frozenset(
        _FLOOR_RECORDS
        | _LEDGER_RECORDS
        | _ACCOUNTING_RECORDS
        | _DEALER_RECORDS
        | _PROGRESSIVE_RECORDS
        | _NOTICE_RECORDS
        | {"notices.notify_surveillancenotification"}
        | {"tables.change_table", "compliance.change_ruleviolation", "shoes.correct_coup"}
        | {"accounting.record_inventorycount", "accounting.request_slip", "accounting.receive_slip"}
        | {"dealers.record_dealerrotation", "dealers.attribute_violation"}
        | _PLAYER_RECORDS
        | {PATRON_PERSONAL, "players.record_patron", "players.record_exclusion", "players.record_seatsession"}
        | _RATING_RECORDS
        | {"ratings.record_estimate"}
        | _view("cash.cashtransaction")
        | {"progressives.pay_meterpayout"}
        | _CONTROL_RECORDS
        | {"controls.record_deck", "controls.record_keyissue", "controls.record_shifthandover"}
    ),
    Role.ACCOUNTANT.value: frozenset(
        _FLOOR_RECORDS
        | _LEDGER_RECORDS
        | _ACCOUNTING_RECORDS
        | _NOTICE_RECORDS
        | {"accounting.keep_slipbook", "notices.file_regulatornotice"}
        | {"ledger.change_reconciliation", RUN_REPORTS, "accounting.record_dropcount", "reports.keep_reportschedule"}
        | {"accounting.investigate_holdflag", "accounting.close_gamingday", "accounting.record_adjustment"}
        | _PROGRESSIVE_RECORDS
        | {"progressives.file_meterconfiguration"}
    ),
    # The cage issues fills and takes credits back, and records the cage's cash transactions and the
    # day's exchange rates; it sees the tables and the slips (a patron named by card number). It pays a
    # progressive hit out of the bankroll: its cashier is a payout's second signer.
    Role.CAGE.value: frozenset(
        _view("tables.table", "accounting.slip", "accounting.slipstep", "accounting.slipbook")
        | _view("cash.exchangerate", "cash.cashtransaction")
        | {"accounting.issue_slip", "cash.record_cashtransaction", "cash.record_exchangerate"}
        | _view("progressives.meter", "progressives.meterpayout")
        | {"progressives.witness_meterpayout"}
    ),
    # Surveillance sees what happens on the floor as it happens: tables and their openings, shoes and
    # coups, violations (the alarms), fills and credits, and what the pit tells it, which it
    # acknowledges. No ledger, no staff or personal data, no money figures of the accounts.
    Role.SURVEILLANCE.value: frozenset(
        _view(
            "tables.table",
            "tables.tableevent",
            "tables.limitchange",
            "shoes.shoe",
            "shoes.coup",
            "compliance.ruleviolation",
            "accounting.slip",
            "accounting.slipstep",
            "notices.surveillancenotification",
            "notices.surveillanceacknowledgement",
        )
        | {"notices.acknowledge_surveillancenotification"}
    ),
    # Compliance keeps the casino's anti-money-laundering duties: the cash rules, every cash
    # transaction, the findings it acknowledges, files or dismisses, and the patrons in person.
    Role.COMPLIANCE.value: frozenset(
        _PLAYER_RECORDS
        | _RATING_RECORDS
        | _CASH_RECORDS
        | _view("tables.table")
        | {PATRON_PERSONAL, RUN_REPORTS, "cash.review_cashfinding", "cash.record_cashrules"}
        | _DELIVERY_RECORDS
    ),
    # Hosts look after patrons (enrolment, details, comps): they see the patrons and their sessions
    # with personal data, and nothing of the money of the tables.
    Role.HOST.value: frozenset(
        _PLAYER_RECORDS | _RATING_RECORDS | {PATRON_PERSONAL, "players.record_patron", "ratings.redeem_comp"}
    ),
    Role.AUDITOR.value: frozenset(
        _FLOOR_RECORDS
        | _LEDGER_RECORDS
        | _ACCOUNTING_RECORDS
        | _view("accounting.devicegrant")
        | _AUDIT_RECORDS
        | _DELIVERY_RECORDS
        | _OPERATIONS_RECORDS
        | _DEALER_RECORDS
        | _PLAYER_RECORDS
        | _RATING_RECORDS
        | _CASH_RECORDS
        | _PROGRESSIVE_RECORDS
        | _view("accounts.languagepreference")
        | _CONTROL_RECORDS
        | _NOTICE_RECORDS
        | _view("accounts.device", "accounts.stafftoken", "records.chainhead", "records.streamlink")
        | {RUN_REPORTS}
    ),
    Role.FLOOR_DEVICE.value: frozenset(),
}


def roles_frozen() -> dict[str, list[str]]:
    """`ROLES` as plain sorted lists: what a data migration pastes in as its frozen copy."""
    return {role: sorted(permissions) for role, permissions in ROLES.items()}
