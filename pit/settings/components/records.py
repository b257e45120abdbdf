"""Where the record's chain heads are anchored outside the database (pit.records.anchors)."""

from pit.settings.components.environment import VAR_DIR, env

# Each gaming day's chain heads, a running entry for the open day and a final one after it ends,
# appended by beat (`records.anchor_heads`) and `manage.py anchor_heads` to heads-YYYY-MM-DD.jsonl
# here. Make it a place the runtime user can only append to (chattr +a, another user's directory,
# an object store with object lock): docs/operations/anchors.md.
PIT_RECORDS_ANCHOR_DIR = env.str("PIT_RECORDS_ANCHOR_DIR", default=str(VAR_DIR / "anchors"))
# The HMAC-SHA256 key that signs each heads entry and each signed export (`sign_export`); at least
# 32 characters. Only the app's environment holds it, never the database. Empty: nothing is anchored
# (beat logs an error, the commands refuse).
PIT_RECORDS_SIGNING_KEY = env.str("PIT_RECORDS_SIGNING_KEY", default="")
# Ended gaming days (before the current one) whose final heads entry beat writes when missing.
PIT_RECORDS_ANCHOR_DAYS = env.int("PIT_RECORDS_ANCHOR_DAYS", default=3)
