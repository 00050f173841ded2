#!/usr/bin/env bash
# Provides Jaeger (the v2 binary, built on the OpenTelemetry Collector) as a real OTLP receiver for
# troupe's trace test and trace bench, without Docker (docs/testing.md).
# Prints the path of a working binary on stdout; everything else goes to stderr.
# Order: $JAEGER_BIN / `jaeger` on PATH -> cached copy -> a build from its Go module.
# `go install github.com/jaegertracing/jaeger/cmd/jaeger@VERSION` refuses the module (its go.mod has
# `replace` directives), so the build runs inside the module cache: about 4-5 minutes and 520 MB of
# downloads the first time on 2 cores, seconds with a warm Go cache; the binary is about 116 MiB.
set -euo pipefail

JAEGER_VERSION="${TROUPE_JAEGER_VERSION:-v1.75.0}"
CACHE_DIR="${TROUPE_CACHE_DIR:-$HOME/.cache/troupe}"
BIN_DIR="$CACHE_DIR/bin"
CACHED="$BIN_DIR/jaeger"
MIN_GO_MINOR=21 # go >= 1.21 fetches the toolchain the module asks for (GOTOOLCHAIN=auto)

log() { printf 'get-jaeger: %s\n' "$*" >&2; }

# verify PATH: succeeds when PATH runs and knows Jaeger's v2 `version` command.
verify() {
  local bin="$1" out
  if [ -z "$bin" ] || [ ! -f "$bin" ]; then log "  not found: ${bin:-(empty)}"; return 1; fi
  if [ ! -x "$bin" ]; then log "  not executable: $bin"; return 1; fi
  out="$("$bin" version 2>&1)" || { log "  $bin does not run: $(printf '%s' "$out" | head -n 1)"; return 1; }
  case "$out" in
    *gitCommit*|*GitCommit*|*"Jaeger"*|*jaeger*) log "  $bin: runs (a source build prints empty version fields)"; return 0 ;;
    *) log "  $bin: unexpected version output: $(printf '%s' "$out" | head -n 1)"; return 1 ;;
  esac
}

found() { log "using $1"; printf '%s\n' "$1"; exit 0; }

# Serializes the slow build between concurrent callers (CI's background build and a test); no-op
# where flock is missing.
with_lock() {
  mkdir -p "$CACHE_DIR"
  if command -v flock >/dev/null 2>&1; then
    ( flock -w 3600 9 || { log "timed out waiting for $CACHE_DIR/jaeger-install.lock"; exit 1; }; "$@" ) 9>"$CACHE_DIR/jaeger-install.lock"
  else
    "$@"
  fi
}

try_env_and_path() {
  if [ -n "${JAEGER_BIN:-}" ]; then
    log "1. JAEGER_BIN=$JAEGER_BIN"
    if verify "$JAEGER_BIN"; then found "$JAEGER_BIN"; fi
    log "  JAEGER_BIN is set but not a working jaeger; trying the other options"
  fi
  local onpath
  onpath="$(command -v jaeger 2>/dev/null || true)"
  if [ -n "$onpath" ]; then
    log "1. jaeger on PATH: $onpath"
    if verify "$onpath"; then found "$onpath"; fi
  else
    log "1. no JAEGER_BIN and no jaeger on PATH"
  fi
}

try_cache() {
  log "2. cached copy: $CACHED"
  if verify "$CACHED"; then found "$CACHED"; fi
}

go_build() {
  # Another caller may have finished the build while we waited for the lock.
  if verify "$CACHED"; then return 0; fi
  mkdir -p "$BIN_DIR"
  local module="github.com/jaegertracing/jaeger@$JAEGER_VERSION" dir
  log "  running: go mod download $module (slow the first time)"
  ( cd "${TMPDIR:-/tmp}" && go mod download "$module" ) >&2
  dir="$(cd "${TMPDIR:-/tmp}" && go env GOMODCACHE)/$module"
  log "  running: (cd $dir && go build -o $CACHED ./cmd/jaeger) (4-5 minutes the first time)"
  ( cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$CACHED.tmp.$$" ./cmd/jaeger ) >&2
  mv -f "$CACHED.tmp.$$" "$CACHED"
}

try_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "3. go build: no Go toolchain on PATH"
    return 0
  fi
  local gov minor
  gov="$(go env GOVERSION 2>/dev/null || true)"
  minor="$(printf '%s' "$gov" | sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p')"
  if [ -z "$minor" ] || [ "$minor" -lt "$MIN_GO_MINOR" ]; then
    log "3. go build: $gov is too old (need Go >= 1.$MIN_GO_MINOR with GOTOOLCHAIN=auto)"
    return 0
  fi
  log "3. go build with $gov"
  if with_lock go_build && verify "$CACHED"; then found "$CACHED"; fi
  log "  the go build did not produce a working jaeger"
}

try_env_and_path
try_cache
try_go

cat >&2 <<EOF
get-jaeger: ERROR: no working Jaeger found. Options, any one is enough:
  1. set JAEGER_BIN=/path/to/jaeger, or put \`jaeger\` on PATH
     (a jaeger v2 release binary from https://github.com/jaegertracing/jaeger/releases)
  2. place a binary at $CACHED
  3. install Go >= 1.$MIN_GO_MINOR and rerun (builds $JAEGER_VERSION from its Go module into $BIN_DIR;
     \`go install\` refuses this module, so the script builds inside the module cache)
EOF
exit 1
