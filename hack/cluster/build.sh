# Building the cluster's binaries from the wrapper modules (sourced by hack/cluster-up).
# A binary is built only when it is missing from the cache, which lives outside the
# clone and is keyed by version: ${IWC_CACHE:-~/.cache/iwc-bench}/cluster/<tool>-<version>/.
# GOMODCACHE and GOCACHE stay at Go's defaults (also outside the clone). The full Go
# output goes to a log file, shown only on failure. A lock per tool keeps two clones
# from building the same thing at once.

_build_log_dir="$cache_root/logs"

# _go_install <label> <module dir> <out dir> <ldflags> <package...>
_go_install() {
  local label="$1" moddir="$2" out="$3" ldflags="$4"
  shift 4
  local log="$_build_log_dir/$label.log" tmp="$out.tmp.$$" t0=$SECONDS rc=0
  mkdir -p "$_build_log_dir" "$tmp"
  step "build $label"
  {
    echo "# $(date -u +%FT%TZ) go install $*"
    (cd "$cluster_src/$moddir" && CGO_ENABLED=0 GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=readonly" \
      go install -ldflags="-s -w $ldflags" "$@")
  } >>"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    rm -rf "$tmp"
    printf 'fail after %ss\n' $((SECONDS - t0))
    show_log "$log"
    return 1
  fi
  mkdir -p "$out"
  mv "$tmp"/* "$out"/
  rmdir "$tmp"
  ok "done in $(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s"
}

# _locked <tool> <command...>: run under the tool's cache lock.
_locked() {
  local lock="$cache_root/.$1.lock"
  shift
  mkdir -p "$cache_root"
  (
    flock -w 7200 9 || die "timed out waiting for $lock"
    "$@"
  ) 9>"$lock"
}

_k8s_ldflags() {
  local minor ld="" p
  minor="$(echo "$k8s_version" | cut -d. -f2)"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  echo "$ld"
}

# build_kube <binary...>: the missing ones among kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, kubelet, in one go install (they share most packages).
build_kube() {
  local b missing=()
  for b in "$@"; do [ -x "$kube_bin/$b" ] || missing+=("k8s.io/kubernetes/cmd/$b"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  _locked "kubernetes-$k8s_version" _build_kube_locked "${missing[@]}"
}
_build_kube_locked() {
  local p todo=()
  for p in "$@"; do [ -x "$kube_bin/${p##*/}" ] || todo+=("$p"); done   # built meanwhile?
  [ ${#todo[@]} -eq 0 ] && return 0
  _go_install "kubernetes-$k8s_version" kube "$kube_bin" "$(_k8s_ldflags)" "${todo[@]}"
}

build_etcd() {
  [ -x "$etcd_bin/etcd" ] && return 0
  _locked "etcd-$etcd_version" _build_etcd_locked
}
_build_etcd_locked() {
  [ -x "$etcd_bin/etcd" ] && return 0
  # the server module's root package is the etcd command; go install names it "server"
  _go_install "etcd-$etcd_version" etcd "$etcd_bin" "" go.etcd.io/etcd/server/v3 || return 1
  mv "$etcd_bin/server" "$etcd_bin/etcd"
}

build_kwok() {
  [ -x "$kwok_bin/kwok" ] && [ -f "$kwok_bin/stages.yaml" ] && return 0
  _locked "kwok-$kwok_version" _build_kwok_locked
}
_build_kwok_locked() {
  [ -x "$kwok_bin/kwok" ] && [ -f "$kwok_bin/stages.yaml" ] && return 0
  [ -x "$kwok_bin/kwok" ] || _go_install "kwok-$kwok_version" kwok "$kwok_bin" "" \
    sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl || return 1
  # kwok's own default stages (what kwokctl configures): nodes become Ready and keep a
  # lease heartbeat; pods become Running, a Job's pods then Succeeded, deleted pods go.
  # Copied from the module source next to the binary, so a cleaned module cache is fine.
  local dir f
  dir="$(cd "$cluster_src/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)" || return 1
  for f in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease \
    pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    echo "---"
    cat "$dir/kustomize/stage/$f.yaml"
  done >"$kwok_bin/stages.yaml.tmp"
  mv "$kwok_bin/stages.yaml.tmp" "$kwok_bin/stages.yaml"
}

build_helm() {
  [ -x "$helm_bin/helm" ] && return 0
  _locked "helm-$helm_version" _build_helm_locked
}
_build_helm_locked() {
  [ -x "$helm_bin/helm" ] && return 0
  # as helm's Makefile does: its version, and the Kubernetes minor its client-go is for
  # (the default .Capabilities.KubeVersion of `helm template`)
  local minor h=helm.sh/helm/v3
  minor="$(version_of helm k8s.io/client-go | cut -d. -f2)"
  local ld="-X $h/internal/version.version=$helm_version -X $h/internal/version.gitTreeState=clean"
  ld="$ld -X $h/pkg/lint/rules.k8sVersionMajor=1 -X $h/pkg/lint/rules.k8sVersionMinor=$minor"
  ld="$ld -X $h/pkg/chartutil.k8sVersionMajor=1 -X $h/pkg/chartutil.k8sVersionMinor=$minor"
  _go_install "helm-$helm_version" helm "$helm_bin" "$ld" helm.sh/helm/v3/cmd/helm
}

build_jaeger() {
  [ -x "$jaeger_bin/jaeger" ] && return 0
  _locked "jaeger-$jaeger_version" _build_jaeger_locked
}
_build_jaeger_locked() {
  [ -x "$jaeger_bin/jaeger" ] && return 0
  _go_install "jaeger-$jaeger_version" jaeger "$jaeger_bin" "" github.com/jaegertracing/jaeger/cmd/jaeger
}

# Kueue's controller-manager, with what it is installed from copied next to the binary
# (its CRDs and its webhook configurations, from the module source), so a cleaned module
# cache is fine.
build_kueue() {
  [ -x "$kueue_bin/kueue" ] && [ -f "$kueue_bin/webhooks.yaml" ] && return 0
  _locked "kueue-$kueue_version" _build_kueue_locked
}
_build_kueue_locked() {
  [ -x "$kueue_bin/kueue" ] && [ -f "$kueue_bin/webhooks.yaml" ] && return 0
  [ -x "$kueue_bin/kueue" ] || _go_install "kueue-$kueue_version" kueue "$kueue_bin" \
    "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$kueue_version" sigs.k8s.io/kueue/cmd/kueue || return 1
  local dir
  dir="$(cd "$cluster_src/kueue" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)" || return 1
  rm -rf "$kueue_bin/crds"
  cp -r "$dir/config/components/crd/bases" "$kueue_bin/crds"
  chmod -R u+w "$kueue_bin/crds"
  cp "$dir/config/components/webhook/manifests.yaml" "$kueue_bin/webhooks.yaml.tmp"
  chmod u+w "$kueue_bin/webhooks.yaml.tmp"
  mv "$kueue_bin/webhooks.yaml.tmp" "$kueue_bin/webhooks.yaml"
}

# VictoriaMetrics single-node, pure Go (CGO_ENABLED=0 picks its zstd in Go).
build_victoriametrics() {
  [ -x "$vm_bin/victoria-metrics" ] && return 0
  _locked "victoriametrics-$vm_version" _build_victoriametrics_locked
}
_build_victoriametrics_locked() {
  [ -x "$vm_bin/victoria-metrics" ] && return 0
  _go_install "victoriametrics-$vm_version" victoriametrics "$vm_bin" \
    "-X github.com/VictoriaMetrics/VictoriaMetrics/lib/buildinfo.Version=victoria-metrics-$vm_version" \
    github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics
}

# The kubelet's sandbox ("pause") image: no registry is reachable, so it is built here
# from hack/cluster/pause (a few lines of Go: sleep until a signal, reap children).
build_pause() {
  [ -x "$pause_bin/pause" ] && return 0
  _locked pause-1 _build_pause_locked
}
_build_pause_locked() {
  [ -x "$pause_bin/pause" ] && return 0
  _go_install pause-1 pause "$pause_bin" "" .
}
