"""pit's own knobs, by family: each reads PIT_<NAME> from the environment (deploy/env.example lists them)."""

from pit.settings.components.environment import VAR_DIR, env

# Whether pit.settings.production is in force (it sets this); not read from the environment.
PIT_PRODUCTION = False

# ---------------------------------------------------------------- The gaming day and the ledger
# The gaming day starts at this hour (casino time, TIME_ZONE); coups before it count to the day before.
PIT_GAMING_DAY_START_HOUR = env.int("PIT_GAMING_DAY_START_HOUR", default=6)
PIT_DEFAULT_CURRENCY = env.str("PIT_DEFAULT_CURRENCY", default="USD")
# A commission box variance within this amount (per seat) raises no violation.
PIT_BOX_VARIANCE_TOLERANCE = env.str("PIT_BOX_VARIANCE_TOLERANCE", default="0.00")

# ---------------------------------------------------------------- The patrons' cash
# The cash-reporting preset (pit.cash.presets: us, mo, sg, au, ph) that stands until compliance
# records the casino's own rules; recorded rules (admin, Cash rules) take over from their moment.
PIT_CASH_JURISDICTION = env.str("PIT_CASH_JURISDICTION", default="us")
# Open cash findings whose filing deadline is this many days away or less are alarmed.
PIT_CASH_DEADLINE_WARNING_DAYS = env.int("PIT_CASH_DEADLINE_WARNING_DAYS", default=3)

# ---------------------------------------------------------------- Access
# Proxies in front of the app that append to X-Forwarded-For (nginx: 1). The client's address, for
# throttling and lockouts, is the one the outermost trusted proxy saw; 0: REMOTE_ADDR.
PIT_TRUSTED_PROXIES = env.int("PIT_TRUSTED_PROXIES", default=0)
# Failed API authentications within the window (pit.accounts.access): a wrong key whose prefix was
# issued counts against that prefix, and past PIT_API_AUTH_FAILURE_LIMIT wrong keys with it get 429
# with Retry-After; a key that authenticates is never refused. A key with no issued prefix counts
# against the client's address, past PIT_API_AUTH_ADDRESS_FAILURE_LIMIT: 429. A floor NAT puts 200
# tables behind one address: 1,000 is five made-up keys per table per window.
PIT_API_AUTH_FAILURE_LIMIT = env.int("PIT_API_AUTH_FAILURE_LIMIT", default=10)
PIT_API_AUTH_ADDRESS_FAILURE_LIMIT = env.int("PIT_API_AUTH_ADDRESS_FAILURE_LIMIT", default=1000)
PIT_API_AUTH_FAILURE_WINDOW = env.int("PIT_API_AUTH_FAILURE_WINDOW", default=300)
# Staff API tokens expire after this many days at most (manage.py create_staff_token --days).
PIT_STAFF_TOKEN_DAYS = env.int("PIT_STAFF_TOKEN_DAYS", default=30)
# A staff session with no request for this long is signed out (the dashboard's refresh does not count).
PIT_ADMIN_IDLE_TIMEOUT_MINUTES = env.int("PIT_ADMIN_IDLE_TIMEOUT_MINUTES", default=30)
PIT_IDLE_EXEMPT_PATHS = ["/admin/pit/dashboard/data/"]
# Two-factor admin login (TOTP): required for these roles (group names; "superuser" for superusers),
# the ones that change money or records. A user of them with no authenticator can open only the
# enrollment page (/admin/two-factor/) until they enroll.
PIT_TWO_FACTOR_ROLES = env.list("PIT_TWO_FACTOR_ROLES", default=["superuser", "pit boss", "accountant", "cage"])
# The issuer name an authenticator app shows beside the code.
OTP_TOTP_ISSUER = env.str("PIT_TWO_FACTOR_ISSUER", default="Pit back-office")

# ---------------------------------------------------------------- Tasks, queues and the outbox
# A check of more coups than this at once (a store-and-forward batch) goes to the bulk queue.
PIT_URGENT_VERIFY_MAX_COUPS = env.int("PIT_URGENT_VERIFY_MAX_COUPS", default=50)
# The outbox (pit.core.models.OutboxMessage): a task owed by a write is kept in the database with
# it; the pickup sends what the broker never got, and sends again a reconciliation not completed this
# many seconds after its last send (a coup check 4x later; doubling each time), e.g. one lost with a
# killed worker.
PIT_OUTBOX_REDISPATCH_SECONDS = env.int("PIT_OUTBOX_REDISPATCH_SECONDS", default=45)
# Deliveries of one message (its worker lost under it each time) before the task is parked as failed.
PIT_TASK_MAX_DELIVERIES = env.int("PIT_TASK_MAX_DELIVERIES", default=5)

# ---------------------------------------------------------------- Health (/healthz, docs/operations/health.md)
# Each worker writes a heartbeat per queue it consumes this often (seconds); a queue whose workers
# have all been silent for PIT_HEALTH_WORKER_STALE_SECONDS has no consumer: /healthz answers 503.
PIT_WORKER_HEARTBEAT_SECONDS = env.float("PIT_WORKER_HEARTBEAT_SECONDS", default=10.0)
PIT_HEALTH_WORKER_STALE_SECONDS = env.int("PIT_HEALTH_WORKER_STALE_SECONDS", default=45)
# False: /healthz checks the database and the broker only, not the queues' consumers, the outbox or
# the checks' lag, which all need workers running (a web measured alone, as the benchmarks do).
PIT_HEALTH_REQUIRE_WORKERS = env.bool("PIT_HEALTH_REQUIRE_WORKERS", default=True)
# 503 past these: more tasks owed in the outbox than this, a task the broker never got for longer
# than this (the pickup sends every 20 s), and a coup check or reconciliation owed for longer than
# this (seconds).
PIT_HEALTH_OUTBOX_MAX_SIZE = env.int("PIT_HEALTH_OUTBOX_MAX_SIZE", default=500)
PIT_HEALTH_OUTBOX_MAX_UNSENT_SECONDS = env.int("PIT_HEALTH_OUTBOX_MAX_UNSENT_SECONDS", default=120)
PIT_HEALTH_CHECKS_MAX_LAG_SECONDS = env.int("PIT_HEALTH_CHECKS_MAX_LAG_SECONDS", default=300)

# ---------------------------------------------------------------- Rule checks
# The sweep (`reverify`, the nightly beat task) on PostgreSQL: the processes it runs in (the one that
# started it indexes the shoe sequences in shoe order, then all take chunks of shoes from a shared
# counter). 1: all in one process. Default 2 (docs/benchmarks.md, bench_sweep).
PIT_SWEEP_PROCESSES = env.int("PIT_SWEEP_PROCESSES", default=2)

# ---------------------------------------------------------------- Game protection
# A shoe's card sequence is compared with every shoe of the pit on its gaming days and this many
# gaming days either side (shoe_sequence_repeat).
PIT_PROTECTION_REPEAT_DAYS = env.int("PIT_PROTECTION_REPEAT_DAYS", default=1)
# An open table whose dealing shoe has sent no coup for this many minutes is an alarm (stale_feed),
# looked for every minute; more coups than this within an hour at one table is coup_rate_high.
PIT_PROTECTION_STALE_FEED_MINUTES = env.int("PIT_PROTECTION_STALE_FEED_MINUTES", default=10)
PIT_PROTECTION_MAX_COUPS_PER_HOUR = env.int("PIT_PROTECTION_MAX_COUPS_PER_HOUR", default=120)
# side_bet_advantage_play: a seat's side bets on positive-expectation coups, per gaming day, as
# unlikely as this (or less) for a player betting at random.
PIT_PROTECTION_SIDE_BET_P_VALUE = env.float("PIT_PROTECTION_SIDE_BET_P_VALUE", default=1e-6)
# win_deviation: a table's (and a seat's) win against theoretical beyond this many standard deviations,
# either way, over the gaming day, the last 7 gaming days and the shoe; scopes with fewer wagers
# than PIT_PROTECTION_Z_MIN_WAGERS are not judged (the normal approximation needs them). 5, not 4:
# a 40-table pit makes about 2,800 seat tests a day (7 seats x 8 shoes, a day, a week per table),
# and at 4 (p = 6.3e-5 each) that is about 65 false alarms a year; at 5 (p = 5.7e-7) about one
# every two years (docs/design/protection.md).
PIT_PROTECTION_Z_DAY = env.float("PIT_PROTECTION_Z_DAY", default=5.0)
PIT_PROTECTION_Z_WEEK = env.float("PIT_PROTECTION_Z_WEEK", default=5.0)
# The gaming days the nightly by-patron tests cover (ending on the last complete one).
PIT_PROTECTION_PATRON_DAYS = env.int("PIT_PROTECTION_PATRON_DAYS", default=7)
PIT_PROTECTION_Z_SHOE = env.float("PIT_PROTECTION_Z_SHOE", default=5.0)
PIT_PROTECTION_Z_MIN_WAGERS = env.int("PIT_PROTECTION_Z_MIN_WAGERS", default=100)
# dealer_error_rate: a dealer's dealing and paying errors over a gaming day, against this accepted
# rate per 1,000 coups; a count this unlikely (or less) at that rate (Poisson) is a finding. Judged
# by beat every 10 minutes for the current and the previous gaming day.
PIT_PROTECTION_DEALER_ERRORS_PER_1000 = env.float("PIT_PROTECTION_DEALER_ERRORS_PER_1000", default=5.0)
PIT_PROTECTION_DEALER_ERROR_P_VALUE = env.float("PIT_PROTECTION_DEALER_ERROR_P_VALUE", default=1e-5)
# The longest a dealer's rotation runs: one still open this many hours after it began (nobody recorded
# coming in) is a finding (dealer_rotation_overdue) and its dealer is charged with no later coup.
PIT_DEALER_SHIFT_HOURS = env.float("PIT_DEALER_SHIFT_HOURS", default=8.0)

# ---------------------------------------------------------------- Reports
# Reports covering more gaming days than this run in the background (Celery) and are downloaded when
# ready; up to it they stream straight to the browser (and the JSON API refuses longer ranges).
PIT_REPORT_INLINE_MAX_DAYS = env.int("PIT_REPORT_INLINE_MAX_DAYS", default=31)
# ... and so do reports estimated at more rows than this, whatever their range (a month of ledger
# detail can take longer to write than a request may last).
PIT_REPORT_INLINE_MAX_ROWS = env.int("PIT_REPORT_INLINE_MAX_ROWS", default=20000)
# Background export files are deleted this many days after they were written (the row stays, expired).
PIT_REPORT_EXPORT_KEEP_DAYS = env.int("PIT_REPORT_EXPORT_KEEP_DAYS", default=7)
# Scheduled report exports (admin: Reports > Report schedules) that go to a folder write under this
# one (each schedule names a folder inside it); beat runs the due schedules every 5 minutes.
PIT_REPORT_SCHEDULE_DIR = env.str("PIT_REPORT_SCHEDULE_DIR", default=str(VAR_DIR / "scheduled-reports"))

# ---------------------------------------------------------------- Rollups
# Daily rollups (pit.rollups): table results and the master game report read complete, fresh gaming
# days from them (False: from the detail only). Every 15 minutes beat rolls up the last
# PIT_ROLLUPS_CATCH_UP_DAYS complete days not yet rolled up, and refreshes any table-day of them
# whose detail changed without owing a refresh; older days: `manage.py rebuild_rollups`.
PIT_ROLLUPS_READ = env.bool("PIT_ROLLUPS_READ", default=True)
PIT_ROLLUPS_CATCH_UP_DAYS = env.int("PIT_ROLLUPS_CATCH_UP_DAYS", default=3)

# ---------------------------------------------------------------- Partitions and archives
# PostgreSQL: coups, wagers and commission entries are partitioned by month of gaming day
# (pit.core.partitions); beat creates this many months ahead of the current one, every night.
PIT_PARTITION_MONTHS_AHEAD = env.int("PIT_PARTITION_MONTHS_AHEAD", default=3)
# Months of gaming days kept in the database: `manage.py archive_month` refuses a month that ends
# within this many months before the current gaming day (regulation: 5-7 years).
PIT_RETENTION_MONTHS = env.int("PIT_RETENTION_MONTHS", default=84)
# Where `manage.py archive_month` writes a month's rows (one CSV per table and a manifest).
PIT_ARCHIVE_DIR = env.str("PIT_ARCHIVE_DIR", default=str(VAR_DIR / "archive"))

# ---------------------------------------------------------------- Table accounting
# pit.accounting: the length of a shift for chip inventories, fills, credits and
# drops (24: one period per gaming day; 8: three shifts; 12: two).
PIT_ACCOUNTING_SHIFT_HOURS = env.int("PIT_ACCOUNTING_SHIFT_HOURS", default=24)
# A table-day whose statutory win differs from the house win of its recorded wagers by more than this
# (major units, a decimal string) is a win_reconciliation_variance violation.
PIT_WIN_RECONCILIATION_TOLERANCE = env.str("PIT_WIN_RECONCILIATION_TOLERANCE", default="0.00")
# Segregation of duties by person: each step of a fill or credit slip by a different person, and a
# second signer (the tray count's dealer, a slip's signer) from their own login or by their password
# at the same screen. Off only where the jurisdiction allows one person to do several steps.
PIT_SEGREGATION_OF_DUTIES = env.bool("PIT_SEGREGATION_OF_DUTIES", default=True)
# Whether markers (credit instruments) go into the drop box and are counted in the drop.
PIT_DROP_MARKERS = env.bool("PIT_DROP_MARKERS", default=True)
# Win-to-drop investigation: "points" flags a table-day more than PIT_HOLD_RULE_VALUE points from the
# table's win-to-drop over the PIT_HOLD_RULE_PRIOR_DAYS before it (Kansas: 3); "interval" flags one
# outside the PIT_HOLD_RULE_VALUE % interval of its daily win-to-drop over them (Maryland: 95, 365 days).
PIT_HOLD_RULE = env.str("PIT_HOLD_RULE", default="points")
PIT_HOLD_RULE_VALUE = env.str("PIT_HOLD_RULE_VALUE", default="3")
PIT_HOLD_RULE_PRIOR_DAYS = env.int("PIT_HOLD_RULE_PRIOR_DAYS", default=365)
# Adjustments to closed gaming days of at least this amount (major units) are in the monthly report.
PIT_ADJUSTMENT_REPORT_THRESHOLD = env.str("PIT_ADJUSTMENT_REPORT_THRESHOLD", default="2000.00")

# ---------------------------------------------------------------- The API
# The largest API request body, in bytes (a 413 naming it beyond). 8 MiB holds the largest batch
# (5,000 coups) with 7 wagers a coup and every field given, even pretty-printed (5.7 MB).
PIT_API_MAX_BODY_BYTES = env.int("PIT_API_MAX_BODY_BYTES", default=8 * 1024 * 1024)
# An Idempotency-Key and the response it gave are kept at least this long, then purged.
PIT_IDEMPOTENCY_TTL_HOURS = env.int("PIT_IDEMPOTENCY_TTL_HOURS", default=24)

# ---------------------------------------------------------------- Internal controls (pit.controls)
# Card control (N.J.A.C. 13:69E-1.18): a deck at a table longer than this many hours without coming
# back to storage is named in the daily reconciliation and is a deck_in_use_overdue finding.
PIT_CONTROLS_DECK_MAX_HOURS = env.int("PIT_CONTROLS_DECK_MAX_HOURS", default=24)
# Minutes after a shoe's shuffle within which its decks may still be recorded as issued to it (a
# card-room terminal posting late) before the shoe is a shoe_cards_not_issued finding.
PIT_CONTROLS_ISSUE_GRACE_MINUTES = env.int("PIT_CONTROLS_ISSUE_GRACE_MINUTES", default=30)
# Sensitive keys: how long a key may be out when its own setting is empty (key_out_overdue).
PIT_CONTROLS_KEY_MAX_OUT_MINUTES = env.int("PIT_CONTROLS_KEY_MAX_OUT_MINUTES", default=120)
# Shift changes in casino time ("HH:MM", comma-separated, e.g. 06:00,14:00,22:00); empty: the
# accounting shifts (the gaming day's start and every PIT_ACCOUNTING_SHIFT_HOURS after it).
PIT_CONTROLS_SHIFT_CHANGES = env.list("PIT_CONTROLS_SHIFT_CHANGES", default=[])
# Minutes around a shift change within which the outgoing pit boss hands over and the incoming one
# accepts; past them, a change with tables open and no accepted handover is shift_not_handed_over.
PIT_CONTROLS_HANDOVER_MINUTES = env.int("PIT_CONTROLS_HANDOVER_MINUTES", default=60)
# Days back the periodic check of the controls looks (it clears what no longer holds within them).
PIT_CONTROLS_CHECK_DAYS = env.int("PIT_CONTROLS_CHECK_DAYS", default=2)
# ---------------------------------------------------------------- Internal controls and the jurisdiction
# The jurisdiction whose preset the pit's internal controls follow (pit.core.jurisdictions.PRESETS:
# house, us-md, us-oh, us-nj, us-wa, mo, sg). Each setting below left unset keeps the preset's value.
PIT_JURISDICTION = env.str("PIT_JURISDICTION", default="house")
PIT_LIMIT_NOTICE_MINUTES = env.int("PIT_LIMIT_NOTICE_MINUTES", default=None)
PIT_LIMIT_GRANDFATHERING = env.bool("PIT_LIMIT_GRANDFATHERING", default=None)
PIT_SEAT_CONTINUOUS_PLAY_MINUTES = env.int("PIT_SEAT_CONTINUOUS_PLAY_MINUTES", default=None)
PIT_SURVEILLANCE_ACK_MINUTES = env.int("PIT_SURVEILLANCE_ACK_MINUTES", default=None)
PIT_SURVEILLANCE_LARGE_FILL = env.str("PIT_SURVEILLANCE_LARGE_FILL", default=None)
PIT_REGULATOR_WARN_HOURS = env.int("PIT_REGULATOR_WARN_HOURS", default=None)
# The pit's scheduled hours, casino time, "HH:MM-HH:MM" (may pass midnight); a table opened or closed
# outside them is notified to surveillance. Empty: open around the clock (nothing is outside).
PIT_PIT_HOURS = env.str("PIT_PIT_HOURS", default="")
