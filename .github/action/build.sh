#!/usr/bin/env bash
# Builds conform from the action's own checkout (never a released module),
# so that the action runs exactly the suite of the revision it names.
#   ACTION_PATH  the action's checkout (GITHUB_ACTION_PATH in a workflow)
#   CONFORM_BIN  where to put the binary
set -euo pipefail
: "${ACTION_PATH:?the action checkout}" "${CONFORM_BIN:?where to build conform}"
mkdir -p "$(dirname "$CONFORM_BIN")"
cd "$ACTION_PATH"
go build -o "$CONFORM_BIN" ./cmd/conform
"$CONFORM_BIN" --version
