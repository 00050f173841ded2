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

TOOL_LOG=get-jaeger TOOL_ENV=JAEGER_BIN TOOL_NAME=jaeger LOCK_NAME=jaeger-install.lock
# shellcheck source=scripts/cached-tool.sh
HERE="${BASH_SOURCE[0]%/*}" # the scripts folder, without dirname (the script needs only bash, sed and head)
[ "$HERE" != "${BASH_SOURCE[0]}" ] || HERE=.
. "$HERE/cached-tool.sh"

# Jaeger v2's `version` command (a source build prints empty version fields).
version_ok() {
  local out
  out="$("$1" version 2>&1)" || { log "  $1 does not run: $(printf '%s' "$out" | head -n 1)"; return 1; }
  case "$out" in
    *gitCommit*|*GitCommit*|*"Jaeger"*|*jaeger*) log "  $1: runs (a source build prints empty version fields)"; return 0 ;;
    *) log "  $1: unexpected version output: $(printf '%s' "$out" | head -n 1)"; return 1 ;;
  esac
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
  go_ready "go build" "Go >= 1.$MIN_GO_MINOR with GOTOOLCHAIN=auto" || return 0
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
