#!/usr/bin/env bash
# Provides what docker-compose.yml's temporalio/server and temporalio/admin-tools images hold, without
# Docker, for `npm run test:cluster` (docs/deploying.md, "The deployment, run for real"): the Temporal
# server binary, `temporal-sql-tool`, the PostgreSQL schema folders and the server's PostgreSQL config
# template, all of the version the compose file pins (read from docker-compose.yml, so the two stay one
# source; TROUPE_TEMPORAL_SERVER_VERSION overrides it).
# Prints the folder that holds them on stdout; everything else goes to stderr:
#   <dir>/temporal-server, <dir>/temporal-sql-tool, <dir>/schema/postgresql/v12/...,
#   <dir>/config/development-postgres12.yaml
# Order: $TEMPORAL_SERVER_DIR -> cached copy -> a build from the Go module go.temporal.io/server
# (about 4 minutes and 130 MB the first time on 2 cores; seconds once the Go cache is warm).
set -euo pipefail

# the version docker-compose.yml pins for the temporalio/server image (TEMPORAL_VERSION's default)
COMPOSE_FILE="${BASH_SOURCE[0]%/*}/../docker-compose.yml"
PINNED="$(sed -n 's/.*temporalio\/server:\${TEMPORAL_VERSION:-\([0-9][0-9.]*\)}.*/\1/p' "$COMPOSE_FILE" 2>/dev/null | head -n 1)"
if [ -z "${TROUPE_TEMPORAL_SERVER_VERSION:-}" ] && [ -z "$PINNED" ]; then
  echo "get-temporal-server: cannot read the temporalio/server version from $COMPOSE_FILE (\${TEMPORAL_VERSION:-X.Y.Z}); set TROUPE_TEMPORAL_SERVER_VERSION=vX.Y.Z" >&2
  exit 1
fi
SERVER_VERSION="${TROUPE_TEMPORAL_SERVER_VERSION:-v$PINNED}"
CACHE_DIR="${TROUPE_CACHE_DIR:-$HOME/.cache/troupe}"
DIR="$CACHE_DIR/temporal-server-$SERVER_VERSION"
MIN_GO_MINOR=21 # go >= 1.21 fetches the toolchain the module asks for (GOTOOLCHAIN=auto)

TOOL_LOG=get-temporal-server TOOL_ENV=TEMPORAL_SERVER_DIR TOOL_NAME=temporal-server LOCK_NAME=temporal-server-install.lock
CACHED="$DIR/temporal-server"
# shellcheck source=scripts/cached-tool.sh
HERE="${BASH_SOURCE[0]%/*}"
[ "$HERE" != "${BASH_SOURCE[0]}" ] || HERE=.
. "$HERE/cached-tool.sh"

version_ok() {
  local out
  out="$("$1" --version 2>&1)" || { log "  $1 does not run: $(printf '%s' "$out" | head -n 1)"; return 1; }
  case "$out" in
    *"temporal version ${SERVER_VERSION#v}"*) log "  $1: $out"; return 0 ;;
    *) log "  $1: unexpected --version output (want ${SERVER_VERSION#v}): $out"; return 1 ;;
  esac
}

# complete DIR: succeeds when DIR holds all four parts.
complete() {
  verify "$1/temporal-server" && [ -x "$1/temporal-sql-tool" ] \
    && [ -d "$1/schema/postgresql/v12/temporal/versioned" ] && [ -f "$1/config/development-postgres12.yaml" ]
}

go_build() {
  if complete "$DIR"; then return 0; fi
  local module="go.temporal.io/server@$SERVER_VERSION" src tmp="$DIR.tmp.$$"
  mkdir -p "$tmp/config" "$tmp/schema"
  log "  running: GOBIN=$tmp go install $module's cmd/server and cmd/tools/sql (slow the first time)"
  ( cd "${TMPDIR:-/tmp}" && GOBIN="$tmp" go install -trimpath -ldflags "-s -w" \
      "go.temporal.io/server/cmd/server@$SERVER_VERSION" "go.temporal.io/server/cmd/tools/sql@$SERVER_VERSION" ) >&2
  mv "$tmp/server" "$tmp/temporal-server"
  mv "$tmp/sql" "$tmp/temporal-sql-tool"
  src="$(cd "${TMPDIR:-/tmp}" && go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  log "  copying the schema and the config template from $src"
  cp -R "$src/schema/postgresql" "$tmp/schema/"
  cp "$src/config/development-postgres12.yaml" "$tmp/config/"
  chmod -R u+w "$tmp"
  rm -rf "$DIR"
  mv "$tmp" "$DIR"
}

if [ -n "${TEMPORAL_SERVER_DIR:-}" ]; then
  log "1. TEMPORAL_SERVER_DIR=$TEMPORAL_SERVER_DIR"
  if complete "$TEMPORAL_SERVER_DIR"; then found "$TEMPORAL_SERVER_DIR"; fi
  log "  TEMPORAL_SERVER_DIR lacks a part; trying the other options"
fi
log "2. cached copy: $DIR"
if complete "$DIR"; then found "$DIR"; fi
if go_ready "go install" "Go >= 1.$MIN_GO_MINOR with GOTOOLCHAIN=auto"; then
  if with_lock go_build && complete "$DIR"; then found "$DIR"; fi
  log "  the go build did not produce a working server"
fi

cat >&2 <<MSG
get-temporal-server: ERROR: no Temporal server $SERVER_VERSION found. Options, any one is enough:
  1. set TEMPORAL_SERVER_DIR to a folder holding temporal-server, temporal-sql-tool,
     schema/postgresql/v12 and config/development-postgres12.yaml (from a server release)
  2. install Go >= 1.$MIN_GO_MINOR and rerun (builds $SERVER_VERSION from its Go module into $DIR)
MSG
exit 1
