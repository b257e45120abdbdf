-- pit on PostgreSQL with least privilege: two roles and the database. Run once per installation,
-- as a superuser (safe to run again; it also turns a one-role installation into a two-role one):
--
--   sudo -u postgres psql -v ON_ERROR_STOP=1 -v owner=pit_owner -v app=pit -v database=pit \
--       -f deploy/roles.sql
--   sudo -u postgres psql -c '\password pit_owner'      # then put the passwords in the two URLs
--   sudo -u postgres psql -c '\password pit'
--
-- (or -v owner_password=... -v app_password=... to set them here, e.g. from a container's init script).
--
-- owner (:owner) owns the database, its schema and every table; only `manage.py migrate` connects
--   as it (DATABASE_MIGRATE_URL). Being the owner it could drop the triggers that keep the facts
--   insert-only, so it is used for migrations only, never by the app.
-- app (:app) is the runtime role of the web processes and the workers (DATABASE_URL). It owns
--   nothing, so it cannot ALTER, DROP, or DISABLE TRIGGER; it is no superuser, so it cannot set
--   session_replication_role; it never gets TRUNCATE. `manage.py migrate`, run as the owner, grants
--   it table by table what the services need (pit.core.immutable.runtime_privileges_sql): SELECT
--   and INSERT on the facts, UPDATE only of the columns services change, no DELETE on facts.
\set ON_ERROR_STOP on

SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION', :'owner')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner') \gexec
SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOINHERIT', :'app')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app') \gexec
-- An existing role is held to the same attributes (a one-role installation's `pit` may have had more).
ALTER ROLE :"owner" NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
ALTER ROLE :"app" NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT;
\if :{?owner_password}
ALTER ROLE :"owner" PASSWORD :'owner_password';
\endif
\if :{?app_password}
ALTER ROLE :"app" PASSWORD :'app_password';
\endif

SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'owner')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database') \gexec
ALTER DATABASE :"database" OWNER TO :"owner";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"database" TO :"app";

\connect :"database"
-- Whatever the runtime role owned (a one-role installation) passes to the owner.
REASSIGN OWNED BY :"app" TO :"owner";
ALTER SCHEMA public OWNER TO :"owner";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app";
-- Tables the owner creates later: ordinary DML for the runtime role (never TRUNCATE); the next
-- `manage.py migrate` narrows it on the facts, table by table.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"app";
