"""Game protection's checks, run with the rule checks (the per-coup task and the nightly sweep of
`pit.compliance.checks`): one module per check, the run over chunks of shoes and the tables' days in
`runner`. Each finding is a RuleViolation with an engine-registered code, recorded once per
fingerprint. Design: docs/design/protection-checks.md."""
