#!/bin/sh
# One-shot job of docker-compose.yml (image temporalio/admin-tools), run once the server is up:
# creates troupe's namespace and registers the custom search attributes its workflow sets, so a
# run never fails a workflow task on an unknown attribute. Safe to run again: an existing
# namespace is left as it is, and registering an attribute again with the same type succeeds.
set -eu

: "${TEMPORAL_ADDRESS:?set TEMPORAL_ADDRESS, e.g. temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${TEMPORAL_RETENTION:-72h}"
WAIT_SECONDS="${WAIT_SECONDS:-120}"

# The CLI's gRPC resolver has failed on compose service names where an IPv4 address works.
host="${TEMPORAL_ADDRESS%:*}"
port="${TEMPORAL_ADDRESS##*:}"
ip="$(getent ahosts "$host" 2>/dev/null | awk '$1 ~ /^[0-9.]+$/ { print $1; exit }' || true)"
address="${ip:-$host}:$port"

waited=0
until temporal operator cluster health --address "$address" >/dev/null 2>&1; do
  if [ "$waited" -ge "$WAIT_SECONDS" ]; then
    echo "setup-namespace: Temporal at $address was not healthy within ${WAIT_SECONDS}s" >&2
    exit 1
  fi
  sleep 2
  waited=$((waited + 2))
done

if temporal operator namespace describe --namespace "$NAMESPACE" --address "$address" >/dev/null 2>&1; then
  echo "setup-namespace: namespace $NAMESPACE exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" --address "$address"
  echo "setup-namespace: namespace $NAMESPACE created (retention $RETENTION)"
fi

# register TYPE NAME... One call per name: given several --name flags, `temporal` 1.5.1 registered
# only the first. A new namespace reaches the server's namespace cache some seconds after it is
# created; until then registering fails with "namespace not found", so each call is retried.
register() {
  kind="$1"
  shift
  for name in "$@"; do
    waited=0
    until temporal operator search-attribute create --namespace "$NAMESPACE" --address "$address" --name "$name" --type "$kind"; do
      if [ "$waited" -ge "$WAIT_SECONDS" ]; then
        echo "setup-namespace: could not register $name ($kind) within ${WAIT_SECONDS}s" >&2
        exit 1
      fi
      sleep 2
      waited=$((waited + 2))
    done
    echo "setup-namespace: search attribute $name ($kind) registered"
  done
}

register Keyword TroupeGraph TroupeStatus TroupeReason TroupeThread
register Bool TroupeWaiting
