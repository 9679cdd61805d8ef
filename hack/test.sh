#!/usr/bin/env bash
# The project's one test command (README: "The two commands"). CI runs exactly this.
#   1. generated code is up to date (hack/verify-codegen.sh)
#   2. every Go file gofmt'ed; go vet on the main module and the e2e module
#   3. unit, golden, property and storage tests (real embedded etcd), then
#      each fuzz target for FUZZTIME (default 10s)
#   4. e2e tests: client-go dynamic client and informer, controller-runtime,
#      the JavaScript client (@kubernetes/client-node, with the machine's node and npm),
#      the Python client (kubernetes 22.6, Debian's python3-kubernetes),
#      the bad-input table, garbage collection, against a built cmd/apiserver;
#      and behind a real kube-apiserver as an aggregated API server (built by
#      hack/kube-apiserver.sh, about 11 minutes the first time), with
#      kube-controller-manager's garbage collector (hack/kube-controller-manager.sh,
#      built in the same module, a few minutes more the first time)
#   5. the shared kubectl acceptance scenarios (--require full,smp,crd,secure,gc,admission:
#      core, full, strategic merge patch, CEL rules and the scale subresource,
#      TLS, authentication, RBAC and ServiceAccount tokens, garbage collection
#      through ownerReferences and namespace deletion, ValidatingAdmissionPolicy
#      and admission webhooks)
# Set SKIP_E2E=1 or SKIP_ACCEPTANCE=1 to skip the slow stages locally.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "verify generated code"
hack/verify-codegen.sh

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [[ -n "$unformatted" ]]; then
  echo "not gofmt'ed:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...
if [[ -f e2e/go.mod ]]; then (cd e2e && go vet ./...); fi

step "go test (main module)"
go test -count=1 -timeout 20m ./...

step "go test: storage and endpoints without the watch cache; storage and the JSON decoder and encoder with the race detector"
KUBEFORGE_WATCH_CACHE=off go test -count=1 -timeout 10m ./runtime/storage ./runtime/endpoints
go test -count=1 -race -timeout 10m ./runtime/storage
# The JSON decoder writes and the encoder reads through unsafe offsets:
# the race detector's pointer checks run over their parity tests too.
go test -count=1 -race -short -timeout 10m ./runtime/jsondecode ./runtime/jsonencode

step "fuzz (${FUZZTIME:=10s} per target; a crasher lands in testdata/fuzz and becomes a regression test)"
# fuzz PKG TARGET runs one target for FUZZTIME. Go 1.26's fuzz coordinator can
# fail a run with a bare "context deadline exceeded" when -fuzztime ends while
# a worker is mid-call (golang/go#75804, fixed in Go 1.27): no input failed and
# none is written. That one outcome is told apart from a real failure (which
# always writes "Failing input written to ...") and answered by running the
# target's corpus again as a plain test; anything else fails the step.
fuzz() {
  local pkg=$1 target=$2 out rc=0
  out=$(mktemp)
  go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg" 2>&1 | tee "$out" || rc=$?
  if ((rc != 0)); then
    # The race's whole report: the FAIL line, the bare error, then FAIL.
    if ! grep -q 'Failing input written to' "$out" &&
      grep -A2 -e "^--- FAIL: ${target} " "$out" | tr '\n' '|' | grep -qE "^--- FAIL: ${target} \([0-9.]+s\)\|    context deadline exceeded\|FAIL\|$"; then
      echo "fuzz: $target ended on Go's fuzztime race (golang/go#75804), no failing input; its corpus runs again as a test"
      go test -count=1 -run="^${target}\$" "$pkg"
    else
      rm -f "$out"; return "$rc"
    fi
  fi
  rm -f "$out"
}
for target in FuzzPatch FuzzBody FuzzListParams; do fuzz ./runtime/endpoints "$target"; done
for target in FuzzContinue FuzzNames; do fuzz ./runtime/storage "$target"; done
fuzz ./runtime/jsondecode FuzzUnmarshal
fuzz ./runtime/jsonencode FuzzMarshal
fuzz ./runtime/validate FuzzObjectMeta
fuzz ./runtime/presence FuzzJSON
fuzz ./runtime/request FuzzExactName

if [[ -z ${SKIP_E2E:-} && -f e2e/go.mod ]]; then
  step "kube-apiserver ${KUBERNETES_VERSION:-v1.37.2} for the aggregation test (built from k8s.io/kubernetes once per machine)"
  start=$SECONDS
  KUBE_APISERVER=$(hack/kube-apiserver.sh)
  export KUBE_APISERVER
  echo "$KUBE_APISERVER ($((SECONDS - start)) s)"
  step "kube-controller-manager ${KUBERNETES_VERSION:-v1.37.2} for its garbage collector behind the cluster (same module, once per machine)"
  start=$SECONDS
  KUBE_CONTROLLER_MANAGER=$(hack/kube-controller-manager.sh)
  export KUBE_CONTROLLER_MANAGER
  echo "$KUBE_CONTROLLER_MANAGER ($((SECONDS - start)) s)"
  step "go test (e2e module)"
  (cd e2e && go test -count=1 -timeout 15m ./...)
fi

if [[ -z ${SKIP_ACCEPTANCE:-} ]]; then
  step "acceptance scenarios (kubectl, --require full,smp,crd,secure,gc,admission)"
  shared=../shared
  [[ -x $shared/acceptance/run.sh ]] || { echo "missing $shared/acceptance/run.sh (shared/ must sit beside the repository)" >&2; exit 1; }
  # The harness creates its second namespace only when `kubectl
  # api-resources --api-group= | grep -q '^namespaces '` succeeds under
  # pipefail. kubectl writes its table a cell at a time, so when grep exits
  # on the match before kubectl's last writes, kubectl dies of SIGPIPE, the
  # namespace is never created and every team-b scenario fails with
  # NotFound (seen once in CI, 2026-11-29). That outcome alone runs the
  # scenarios once more, saying so; any other failure fails here.
  acc_out=$(mktemp)
  acc_rc=0
  bash "$shared/acceptance/run.sh" --require full,smp,crd,secure,gc,admission . 2>&1 | tee "$acc_out" || acc_rc=$?
  if ((acc_rc != 0)) && grep -q 'namespaces "team-b" not found' "$acc_out"; then
    echo "acceptance: namespace team-b was never created (the harness's api-resources | grep -q lost to SIGPIPE); running the scenarios again"
    rm -f "$acc_out"
    bash "$shared/acceptance/run.sh" --require full,smp,crd,secure,gc,admission .
  else
    rm -f "$acc_out"
    ((acc_rc == 0)) || exit "$acc_rc"
  fi
fi
