"""The API's description in the OpenAPI schema (shown at /api/v1/docs/): what every client must know."""

API_DESCRIPTION = """
The REST API of pit for floor systems (card-reading shoes, table terminals, bet recognition) and staff.

## Authentication
* **Floor devices** send `Authorization: Api-Key <key>`. A key belongs to one device at one table;
  it is printed once by `python manage.py create_device_key --table <code> --name <device>` and
  stored only as a SHA-256 hash. A device writes to and reads its own table only (a request for
  another table gets 403) and cannot read violations or reports. An unknown or revoked key: 401.
* **Staff** (pit bosses, accountants, auditors) read with their admin session or a personal token,
  `Authorization: Token <token>` (printed once by `python manage.py create_staff_token <username>`,
  stored as a hash, expiring), under the same role rules as the admin (Django model permissions:
  `view_*` to read; a pit boss's `change_ruleviolation` to acknowledge or resolve violations).
* **Failed authentications are throttled**: after too many wrong keys or tokens from one address,
  or with one key prefix, within a few minutes, every attempt from there (or with that prefix) is a
  429 with `Retry-After`, even with a right key, until the window ends.

## Money and input
* Amounts are **decimal strings** in the table's currency: `"125.50"`. JSON numbers are refused for
  money (a float cannot hold money exactly); so are negative amounts, zero stakes, and more decimals
  than the currency has.
* Numbers, seats, money and times are **ASCII only**, in bodies and query parameters: `"²"`, `"٣"` or
  `"１０.００"` is a 400 naming the field.
* Whole numbers (a coup number, a seat, decks) are **JSON integers**: `"5"` and `" 5"` are refused.
  Identifiers (a slip number, a code, a username, a bet) match their pattern exactly, nothing trimmed.
  Times carry their **UTC offset** (`"2026-11-29T21:14:05Z"`). Free text is a string without NUL or
  other control characters. A key given twice in one object is a 400 naming its path.
* Every POST of a recorded fact: **201** recorded; **200** with the record for the same fact again
  (the same in every field); **409** naming each field that differs; nothing written by either.
* A batch holds at most 5,000 coups; a body at most 8 MiB (`PIT_API_MAX_BODY_BYTES`), which holds
  5,000 coups with 7 wagers each. A larger body is a **413** (`too_large`) naming both limits.
* `reported_winner` is `player`, `banker` or `tie`; `null` or left out when the table reports none.
* Cards are codes in dealt order: rank `A 2-9 T(or 10) J Q K`, then suit `S H D C` (`"TD"`, `"5H"`).
* Unknown fields are refused. Bodies are JSON (`Content-Type: application/json`); anything else is 415.
* Malformed input is refused with a 400 naming the field and nothing is stored. Well-formed input
  that breaks a rule of the game (a wrong draw, a wrong payout) is **stored and flagged** as a
  violation, never refused: the floor reports what happened, the pit boss judges it.

## Errors
Every error has one shape:

```json
{"status": 400, "code": "invalid", "message": "The request has errors; see `errors`.",
 "errors": {"wagers[2].amount": ["The amount must be more than zero."]}, "details": {}}
```

`code` is one of `invalid`, `parse_error` (400), `not_authenticated` (401), `permission_denied`
(403), `not_found` (404), `method_not_allowed` (405), `not_acceptable` (406), `conflict` (409),
`too_large` (413), `unsupported_media_type` (415), `unprocessable` (422). `errors` maps a field
path, as the request spells it, to its problems (`body` when the body as a whole is at fault);
`details` carries ids a client can act on (the open shoe's `shoe_id` on a 409 from starting a shoe).

## Never twice, never lost: Idempotency-Key
Every POST accepts an `Idempotency-Key` header (1 to 255 printable characters; a UUID is good).
* The answer to the first request with a key is stored with its effect, in one transaction.
* A retry with the same key and the same body gets the **same status and body** again
  (header `Idempotent-Replayed: true`) and writes nothing.
* The same key with a different body or path: **422**, nothing written.
* A retry while the first request is still running waits for it and gets its answer. A request that
  died half-way (a crashed worker) wrote nothing and frees its key at once: the retry runs.
* Every answer below 500 is stored, errors included: send a new key for a corrected request.
* Keys are kept at least `PIT_IDEMPOTENCY_TTL_HOURS` (24 by default) per device or user, then purged.

Without the header, coups are still recorded at most once: a coup number is unique in its shoe; the
same coup again (the same cards, wagers, reported winner and dealt time) answers 200 with the coup
recorded before; the same number with anything different is a 409 whose `errors` name each
difference (e.g. `wagers[1].amount`), nothing of it is written, and a violation is recorded.

## Waiting for a reconciliation
`GET /api/v1/shoes/{id}/reconciliation/` answers 202 with `{"status": "dealing" | "pending",
"retry_after_seconds"}` and a `Retry-After` header until the reconciliation exists (a dealing shoe is
reconciled when it is closed at the shuffle; a closed one within seconds), then 200. 404 means there is
no such shoe.

## Lists
Lists are paginated: `?page=2&page_size=200` (at most 1000), answered as
`{"count", "next", "previous", "results"}`.
""".strip()
