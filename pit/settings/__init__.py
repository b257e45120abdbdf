"""Settings modules: `base` (everything, read from the environment), `local`, `test`, `production`."""
