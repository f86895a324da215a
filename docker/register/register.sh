#!/bin/sh
# PUT /connectors/<name>/config with the "config" object of $CONNECTOR_CONFIG (a connector-config/
# file): creates the connector or updates it, so re-running the stack is safe.
set -eu
file="${CONNECTOR_CONFIG:?set CONNECTOR_CONFIG to a connector-config/*.json file}"
url="${CONNECT_URL:-http://connect:8083}"
name=$(jq -r .name "$file")

tries=0
until curl -fsS "$url/" > /dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -ge 90 ]; then
    echo "Connect REST API at $url not up after 3 minutes" >&2
    exit 1
  fi
  sleep 2
done

jq .config "$file" | curl -fsS -X PUT -H 'Content-Type: application/json' --data @- \
  "$url/connectors/$name/config" > /dev/null
echo "Connector $name registered from $file"
sleep 5
curl -fsS "$url/connectors/$name/status"
echo
