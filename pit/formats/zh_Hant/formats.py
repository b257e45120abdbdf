"""The back-office's formats in Chinese: dates written the Chinese way on pages that spell them out
(2026年12月2日), ISO 8601 in lists and forms as in English, 24-hour times; numbers grouped by
thousands with "," and "." before the decimals (pit.core.money.money_display for money)."""

DATE_FORMAT = "Y年n月j日"
SHORT_DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y年n月j日 H:i:s"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
TIME_FORMAT = "H:i:s"
MONTH_DAY_FORMAT = "n月j日"
YEAR_MONTH_FORMAT = "Y年n月"
DATE_INPUT_FORMATS = ["%Y-%m-%d", "%Y/%m/%d"]
DATETIME_INPUT_FORMATS = ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"]
FIRST_DAY_OF_WEEK = 1  # Monday
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
