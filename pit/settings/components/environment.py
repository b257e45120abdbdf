"""Where pit lives and how the settings read the environment (django-environ, with an optional `.env`)."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parents[3]
env = environ.Env()
if (BASE_DIR / ".env").exists():
    env.read_env(BASE_DIR / ".env", overwrite=False)
# Where the embedded default keeps its SQLite file, broker folder and report files.
VAR_DIR = Path(env.str("PIT_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)
