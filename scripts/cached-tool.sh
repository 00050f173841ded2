# shellcheck shell=bash
# Sourced by scripts/get-temporal-cli.sh and scripts/get-jaeger.sh: the steps both take to provide a
# binary (a variable or PATH, then the cache, then a build with Go) and the messages they print.
# The sourcing script sets TOOL_LOG (its log prefix), TOOL_ENV (the variable that names a binary),
# TOOL_NAME (the command on PATH), CACHE_DIR, CACHED (the cached binary), LOCK_NAME (the lock file
# in CACHE_DIR) and MIN_GO_MINOR, and defines `version_ok BIN` (0 when BIN's version output is the
# tool's, logging what it saw).

log() { printf '%s: %s\n' "$TOOL_LOG" "$*" >&2; }

# verify PATH: succeeds when PATH is an executable file that reports the tool's version.
verify() {
  local bin="$1"
  if [ -z "$bin" ] || [ ! -f "$bin" ]; then log "  not found: ${bin:-(empty)}"; return 1; fi
  if [ ! -x "$bin" ]; then log "  not executable: $bin"; return 1; fi
  version_ok "$bin"
}

found() { log "using $1"; printf '%s\n' "$1"; exit 0; }

# Serializes slow installs between concurrent callers (CI's background build and a test); no-op
# where flock is missing.
with_lock() {
  mkdir -p "$CACHE_DIR"
  if command -v flock >/dev/null 2>&1; then
    ( flock -w 3600 9 || { log "timed out waiting for $CACHE_DIR/$LOCK_NAME"; exit 1; }; "$@" ) 9>"$CACHE_DIR/$LOCK_NAME"
  else
    "$@"
  fi
}

try_env_and_path() {
  local named="${!TOOL_ENV:-}" onpath
  if [ -n "$named" ]; then
    log "1. $TOOL_ENV=$named"
    if verify "$named"; then found "$named"; fi
    log "  $TOOL_ENV is set but not a working $TOOL_NAME; trying the other options"
  fi
  onpath="$(command -v "$TOOL_NAME" 2>/dev/null || true)"
  if [ -n "$onpath" ]; then
    log "1. $TOOL_NAME on PATH: $onpath"
    if verify "$onpath"; then found "$onpath"; fi
  else
    log "1. no $TOOL_ENV and no $TOOL_NAME on PATH"
  fi
}

try_cache() {
  log "2. cached copy: $CACHED"
  if verify "$CACHED"; then found "$CACHED"; fi
}

# go_ready STEP NEED: succeeds, with GOV set to the Go version, when a Go toolchain of at least
# 1.MIN_GO_MINOR is on PATH; otherwise logs why step 3 (STEP) is skipped (NEED: the Go it needs).
go_ready() {
  local step="$1" need="$2" minor
  if ! command -v go >/dev/null 2>&1; then
    log "3. $step: no Go toolchain on PATH"
    return 1
  fi
  GOV="$(go env GOVERSION 2>/dev/null || true)"
  minor="$(printf '%s' "$GOV" | sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p')"
  if [ -z "$minor" ] || [ "$minor" -lt "$MIN_GO_MINOR" ]; then
    log "3. $step: $GOV is too old (need $need)"
    return 1
  fi
  log "3. $step with $GOV"
}
