#!/bin/sh
# One-shot job of docker-compose.yml (image temporalio/admin-tools): creates Temporal's two
# PostgreSQL databases and brings their schemas to the version this admin-tools image ships.
# Safe to run again: `create` ignores a database that exists, `setup-schema -v 0.0` skips a schema
# that is already past 0.0, and `update-schema` applies only the versions not yet applied.
set -eu

: "${POSTGRES_SEEDS:?set POSTGRES_SEEDS to the PostgreSQL host}"
: "${POSTGRES_USER:?set POSTGRES_USER}"
: "${SQL_PASSWORD:?set SQL_PASSWORD (temporal-sql-tool reads the password from it)}"
DB_PORT="${DB_PORT:-5432}"
DBNAME="${DBNAME:-temporal}"
VISIBILITY_DBNAME="${VISIBILITY_DBNAME:-temporal_visibility}"
SCHEMA_ROOT="${SCHEMA_ROOT:-/etc/temporal/schema/postgresql/v12}"
WAIT_SECONDS="${WAIT_SECONDS:-120}"

waited=0
until nc -z "$POSTGRES_SEEDS" "$DB_PORT" 2>/dev/null; do
  if [ "$waited" -ge "$WAIT_SECONDS" ]; then
    echo "setup-postgres-schema: PostgreSQL at $POSTGRES_SEEDS:$DB_PORT did not answer within ${WAIT_SECONDS}s" >&2
    exit 1
  fi
  sleep 2
  waited=$((waited + 2))
done

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

# setup_database NAME SCHEMA_DIR
setup_database() {
  echo "setup-postgres-schema: database $1"
  sql_tool --db "$1" create
  sql_tool --db "$1" setup-schema -v 0.0
  sql_tool --db "$1" update-schema -d "$2"
}

setup_database "$DBNAME" "$SCHEMA_ROOT/temporal/versioned"
setup_database "$VISIBILITY_DBNAME" "$SCHEMA_ROOT/visibility/versioned"
echo "setup-postgres-schema: done"
