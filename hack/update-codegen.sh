#!/usr/bin/env bash
# Regenerates everything cmd/gen writes: types/<g>/<v>/zz_generated.*.go,
# generated/**, docs/markers.md. Same as `go generate ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./cmd/gen "$@"
