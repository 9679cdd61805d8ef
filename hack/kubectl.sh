#!/usr/bin/env bash
# Builds kubectl from its Go module (once per machine) and prints its path.
#
# usage: hack/kubectl.sh
#   KUBECTL_VERSION  the k8s.io/kubectl module version (default v0.37.2)
#
# The binary is cached at ${XDG_CACHE_HOME:-$HOME/.cache}/acceptance-kubectl-$KUBECTL_VERSION/kubectl,
# exactly where ../shared/acceptance/run.sh builds and looks for it, with the
# same steps, so the two share one build. Only the path goes to stdout; build
# progress and errors go to stderr, and any failure exits non-zero.
set -euo pipefail

KUBECTL_VERSION=${KUBECTL_VERSION:-v0.37.2}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/acceptance-kubectl-$KUBECTL_VERSION
bin=$cache/kubectl

die() { echo "hack/kubectl.sh: $*" >&2; exit 1; }

if [[ ! -x $bin ]]; then
  command -v go >/dev/null || die "go is not on PATH"
  echo "building kubectl $KUBECTL_VERSION (once) into $cache ..." >&2
  mkdir -p "$cache/src" || die "cannot create $cache/src"
  cat >"$cache/src/main.go" <<'EOF'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() { os.Exit(cli.Run(cmd.NewDefaultKubectlCommand())) }
EOF
  # kubectl before 1.24 has no component-base/cli: its own main ran the
  # command and flushed the logs. Its staging modules must all be pinned to
  # the same version, or go mod tidy picks today's k8s.io/api.
  minor=$(sed -E 's/^v0\.([0-9]+)\..*/\1/' <<<"$KUBECTL_VERSION")
  legacy=""
  if [[ $minor =~ ^[0-9]+$ ]] && ((minor < 24)); then
    legacy=1
    cat >"$cache/src/main.go" <<'EOF'
package main

import (
	"os"

	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	logs.InitLogs()
	defer logs.FlushLogs()
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
EOF
  fi
  log=$cache/build.log
  run() { # run STEP...: logged; on failure show the log and stop
    if ! (cd "$cache/src" && "$@") >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      die "could not build kubectl $KUBECTL_VERSION: '$*' failed (log: $log)"
    fi
  }
  : >"$log"
  rm -f "$cache/src/go.mod" "$cache/src/go.sum"
  run go mod init acceptance/kubectl
  if [[ -n $legacy ]]; then
    pins=()
    for m in api apimachinery cli-runtime client-go component-base kubectl metrics; do
      pins+=("-require=k8s.io/$m@$KUBECTL_VERSION")
    done
    run go mod edit "${pins[@]}"
  else
    run go get "k8s.io/kubectl@$KUBECTL_VERSION" "k8s.io/component-base@$KUBECTL_VERSION"
  fi
  run go mod tidy
  # build to a temporary name and rename, so a half-written binary is never
  # taken for a finished one by a concurrent run
  run go build -o "$bin.tmp.$$" .
  mv -f "$bin.tmp.$$" "$bin" || die "cannot install $bin"
fi

"$bin" version --client >/dev/null 2>&1 || die "$bin does not run (delete it to rebuild)"
echo "$bin"
