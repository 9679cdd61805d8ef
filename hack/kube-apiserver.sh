#!/usr/bin/env bash
# Builds kube-apiserver from the k8s.io/kubernetes Go module (once per machine)
# and prints its path. The aggregation e2e test (e2e/aggregated_test.go) runs
# this project behind it as an APIService.
#
# usage: hack/kube-apiserver.sh
#   KUBERNETES_VERSION  the k8s.io/kubernetes module version (default v1.37.2)
#
# The binary is cached at ${XDG_CACHE_HOME:-$HOME/.cache}/kube-apiserver-$KUBERNETES_VERSION/kube-apiserver.
# k8s.io/kubernetes replaces its staging modules (k8s.io/api, client-go, ...)
# with folders of its own repository, which a module download does not carry:
# each is pinned here to the published v0.x release of the same minor, which
# is built from the same source. Only the path goes to stdout; build progress
# and errors go to stderr, and any failure exits non-zero.
set -euo pipefail

KUBERNETES_VERSION=${KUBERNETES_VERSION:-v1.37.2}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kube-apiserver-$KUBERNETES_VERSION
bin=$cache/kube-apiserver

die() { echo "hack/kube-apiserver.sh: $*" >&2; exit 1; }

if [[ ! -x $bin ]]; then
  command -v go >/dev/null || die "go is not on PATH"
  echo "building kube-apiserver $KUBERNETES_VERSION (once) into $cache ..." >&2
  mkdir -p "$cache/src" || die "cannot create $cache/src"
  log=$cache/build.log
  : >"$log"
  run() { # run STEP...: logged; on failure show the log and stop
    if ! (cd "$cache/src" && "$@") >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      die "could not build kube-apiserver $KUBERNETES_VERSION: '$*' failed (log: $log)"
    fi
  }
  staging="v0.${KUBERNETES_VERSION#v1.}"
  rm -f "$cache/src/go.mod" "$cache/src/go.sum"
  # a blank import keeps the module in the graph for go mod tidy
  cat >"$cache/src/tools.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver/app"
GO
  run go mod init fixtures/kube-apiserver
  run go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION"
  modfile=$(cd "$cache/src" && go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [[ -f $modfile ]] || die "no go.mod for k8s.io/kubernetes@$KUBERNETES_VERSION"
  edits=("-require=k8s.io/kubernetes@$KUBERNETES_VERSION")
  while read -r mod; do
    edits+=("-replace=$mod=$mod@$staging")
  done < <(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile")
  run go mod edit "${edits[@]}"
  run go mod tidy
  minor=$(sed -E 's/^v1\.([0-9]+)\..*/\1/' <<<"$KUBERNETES_VERSION")
  # the version kube-apiserver reports (/version, kubectl version), which a
  # release build stamps the same way
  ver=k8s.io/component-base/version
  run go build -trimpath -ldflags "-X $ver.gitVersion=$KUBERNETES_VERSION -X $ver.gitMajor=1 -X $ver.gitMinor=$minor -X $ver.gitTreeState=clean" \
    -o "$bin.tmp.$$" k8s.io/kubernetes/cmd/kube-apiserver
  mv -f "$bin.tmp.$$" "$bin" || die "cannot install $bin"
fi

"$bin" --version >/dev/null 2>&1 || die "$bin does not run (delete it to rebuild)"
echo "$bin"
