#!/usr/bin/env bash
# Builds kube-controller-manager from the k8s.io/kubernetes Go module (once
# per machine) and prints its path. The aggregation e2e test
# (e2e/aggregated_test.go) runs its garbage collector against the
# kube-apiserver this project runs behind.
#
# usage: hack/kube-controller-manager.sh
#   KUBERNETES_VERSION  the k8s.io/kubernetes module version (default v1.37.2)
#
# It builds in the module hack/kube-apiserver.sh sets up (and runs that
# first): the same k8s.io/kubernetes with the same pinned staging modules,
# one more import, so most packages come from the Go build cache and the
# second build takes a few minutes rather than the first's eleven. The
# binary is cached at
# ${XDG_CACHE_HOME:-$HOME/.cache}/kube-controller-manager-$KUBERNETES_VERSION/kube-controller-manager.
# Only the path goes to stdout; progress and errors go to stderr, and any
# failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

KUBERNETES_VERSION=${KUBERNETES_VERSION:-v1.37.2}
export KUBERNETES_VERSION
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kube-controller-manager-$KUBERNETES_VERSION
bin=$cache/kube-controller-manager
src=${XDG_CACHE_HOME:-$HOME/.cache}/kube-apiserver-$KUBERNETES_VERSION/src

die() { echo "hack/kube-controller-manager.sh: $*" >&2; exit 1; }

if [[ ! -x $bin ]]; then
  hack/kube-apiserver.sh >/dev/null || die "could not set up the k8s.io/kubernetes module (hack/kube-apiserver.sh)"
  [[ -f $src/go.mod ]] || die "no module at $src"
  echo "building kube-controller-manager $KUBERNETES_VERSION (once) in $src ..." >&2
  mkdir -p "$cache" || die "cannot create $cache"
  log=$cache/build.log
  : >"$log"
  run() { # run STEP...: logged; on failure show the log and stop
    if ! (cd "$src" && "$@") >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      die "could not build kube-controller-manager $KUBERNETES_VERSION: '$*' failed (log: $log)"
    fi
  }
  cat >"$src/tools_controller_manager.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
GO
  run go mod tidy
  minor=$(sed -E 's/^v1\.([0-9]+)\..*/\1/' <<<"$KUBERNETES_VERSION")
  ver=k8s.io/component-base/version
  run go build -trimpath -ldflags "-X $ver.gitVersion=$KUBERNETES_VERSION -X $ver.gitMajor=1 -X $ver.gitMinor=$minor -X $ver.gitTreeState=clean" \
    -o "$bin.tmp.$$" k8s.io/kubernetes/cmd/kube-controller-manager
  mv -f "$bin.tmp.$$" "$bin" || die "cannot install $bin"
fi

"$bin" --version >/dev/null 2>&1 || die "$bin does not run (delete it to rebuild)"
echo "$bin"
