#!/bin/sh
# First start of the compose PostgreSQL (docker-entrypoint-initdb.d): pit's two roles and its
# database, as deploy/roles.sql makes them on a host. Passwords from the container's environment.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v owner=pit_owner -v app=pit -v database=pit \
    -v owner_password="$PIT_DB_OWNER_PASSWORD" -v app_password="$PIT_DB_PASSWORD" \
    -f /pit/roles.sql
