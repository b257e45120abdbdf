"""The cash-reporting rules of the jurisdictions pit ships presets for: thresholds, reporting
currency, filing deadlines and retention, each with the rule it follows. A casino records its rules
as a `CashRules` version from a preset (and may change any value); the preset itself is data here.

Comparisons, as the rules word them: the CTR is owed when a patron's cash in, or cash out, in one
gaming day is *more than* the threshold (31 CFR 1021.311 "more than $10,000"); the MTL logs each
transaction *more than* its threshold; a SAR candidate is a pattern involving *at least* the SAR
threshold (31 CFR 1021.320 "at least $5,000"). Where a jurisdiction has no SAR floor the threshold is
zero (every pattern is a candidate).
"""

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Preset:
    code: str
    name: str
    reporting_currency: str
    mtl_threshold: Decimal
    ctr_threshold: Decimal
    sar_threshold: Decimal
    ctr_deadline_days: int
    business_days: bool  # the deadline counts business days (Monday to Friday), not calendar days
    sar_deadline_days: int
    retention_years: int
    rules: dict[str, str] = field(default_factory=dict)  # what each value follows


ALERT_SHARE = Decimal("0.90")

PRESETS: dict[str, Preset] = {
    preset.code: preset
    for preset in (
        Preset(
            code="us",
            name="United States (FinCEN, Bank Secrecy Act)",
            reporting_currency="USD",
            mtl_threshold=Decimal("3000"),
            ctr_threshold=Decimal("10000"),
            sar_threshold=Decimal("5000"),
            ctr_deadline_days=15,
            business_days=False,
            sar_deadline_days=30,
            retention_years=5,
            rules={
                "ctr_threshold": "31 CFR 1021.311: cash in or cash out of more than $10,000 in one gaming day",
                "aggregation": "31 CFR 1021.313: multiple transactions by or for one person in one gaming day "
                "are one; cash in and cash out are totalled apart, never netted",
                "ctr_deadline": "31 CFR 1021.311, FinCEN Form 112: filed within 15 days after the transaction",
                "mtl_threshold": "state rules, e.g. Indiana 68 IAC 15-2-3: transactions over $3,000 logged "
                "with date, time, patron or description, type, amount, location and employee",
                "sar_threshold": "31 CFR 1021.320: suspicious transactions of at least $5,000, filed within "
                "30 days of initial detection",
                "retention": "31 CFR 1021.410: records kept for five years",
            },
        ),
        Preset(
            code="mo",
            name="Macau (DICJ)",
            reporting_currency="MOP",
            mtl_threshold=Decimal("100000"),
            ctr_threshold=Decimal("500000"),
            sar_threshold=Decimal("0"),
            ctr_deadline_days=2,
            business_days=True,
            sar_deadline_days=2,
            retention_years=5,
            rules={
                "ctr_threshold": "DICJ AML instruction: large cash transactions of MOP 500,000 or more "
                "reported (the casino sets the deadline of its instruction here)",
                "mtl_threshold": "the casino's own log threshold (no regulatory MTL figure)",
                "sar_threshold": "Law 2/2006: suspicious transactions reported whatever the amount",
                "retention": "Law 2/2006 and DICJ instruction: five years",
            },
        ),
        Preset(
            code="sg",
            name="Singapore (Casino Regulatory Authority)",
            reporting_currency="SGD",
            mtl_threshold=Decimal("5000"),
            ctr_threshold=Decimal("10000"),
            sar_threshold=Decimal("0"),
            ctr_deadline_days=15,
            business_days=False,
            sar_deadline_days=15,
            retention_years=5,
            rules={
                "ctr_threshold": "Casino Control (Prevention of Money Laundering and Terrorism Financing) "
                "Regulations: cash transactions of S$10,000 or more reported within 15 days",
                "mtl_threshold": "the casino's own log threshold",
                "sar_threshold": "CDSA s39: suspicious transactions reported whatever the amount",
                "retention": "five years",
            },
        ),
        Preset(
            code="au",
            name="Australia (AUSTRAC)",
            reporting_currency="AUD",
            mtl_threshold=Decimal("5000"),
            ctr_threshold=Decimal("10000"),
            sar_threshold=Decimal("0"),
            ctr_deadline_days=10,
            business_days=True,
            sar_deadline_days=3,
            retention_years=7,
            rules={
                "ctr_threshold": "AML/CTF Act 2006 s43: threshold transaction reports of A$10,000 or more "
                "within 10 business days",
                "mtl_threshold": "the casino's own log threshold",
                "sar_threshold": "AML/CTF Act 2006 s41: suspicious matter reports within 3 business days "
                "(24 hours for terrorism financing)",
                "retention": "AML/CTF Act 2006 s107: seven years",
            },
        ),
        Preset(
            code="ph",
            name="Philippines (AMLC, PAGCOR)",
            reporting_currency="PHP",
            mtl_threshold=Decimal("500000"),
            ctr_threshold=Decimal("5000000"),
            sar_threshold=Decimal("0"),
            ctr_deadline_days=5,
            business_days=True,
            sar_deadline_days=5,
            retention_years=5,
            rules={
                "ctr_threshold": "RA 9160 as amended by RA 10927: casino cash transactions over PHP 5,000,000 "
                "in one gaming day are covered transactions, reported within five working days",
                "mtl_threshold": "the casino's own log threshold",
                "sar_threshold": "RA 10927: suspicious transactions reported whatever the amount",
                "retention": "RA 9160 s9: five years",
            },
        ),
    )
}


def preset_values(code: str) -> dict:
    """The values of a `CashRules` version made from the preset `code` (the defaults of the rest)."""
    preset = PRESETS[code]
    return {
        "preset": code,
        "reporting_currency": preset.reporting_currency,
        "mtl_threshold": preset.mtl_threshold,
        "ctr_threshold": preset.ctr_threshold,
        "sar_threshold": preset.sar_threshold,
        "alert_share": ALERT_SHARE,
        "ctr_deadline_days": preset.ctr_deadline_days,
        "sar_deadline_days": preset.sar_deadline_days,
        "business_days": preset.business_days,
        "retention_years": preset.retention_years,
        "pattern_floor": preset.sar_threshold or preset.mtl_threshold,
    }
