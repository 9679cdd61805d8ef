#!/usr/bin/env bash
# Fails when the committed generated output is stale, missing, or has files
# that would be removed, naming the command that fixes it. Writes nothing.
# Then builds the module to prove the committed output compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! go run ./cmd/gen -verify; then
  echo "verify-codegen: generated code is out of date; run: go generate ./...  (or hack/update-codegen.sh)" >&2
  exit 1
fi
go build ./...
echo "verify-codegen: generated code is up to date"
