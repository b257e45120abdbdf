"""Date and time formats of every page (FORMAT_MODULE_PATH): ISO 8601 dates and 24-hour times, the
way the reports, the exports and the API write them, so one format is read everywhere."""
