# Shared by hack/cluster-up, hack/cluster-down and hack/cluster/smoke (sourced, not run).
# Paths, versions (read from the wrapper modules' go.mod: one fact, one place), one-line
# step output, and process bookkeeping by PID file.

cluster_src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"   # hack/cluster
cache_root="${IWC_CACHE:-$HOME/.cache/iwc-bench}/cluster"
state="${IWC_CLUSTER_DIR:-/tmp/iwc-cluster}"
egress_dir="$state/egress"   # <port>.sock: what a kubelet pod off the host network may reach

# Loopback ports; one cluster per machine at a time (override to run a second one).
api_port="${IWC_CLUSTER_API_PORT:-6443}"
service_port="${IWC_CLUSTER_SERVICE_PORT:-443}"   # the `kubernetes` Service, 127.0.0.1:443
etcd_port="${IWC_CLUSTER_ETCD_PORT:-2379}"
etcd_peer_port=$((etcd_port + 1))
etcd_metrics_port=$((etcd_port + 2))
kcm_port="${IWC_CLUSTER_KCM_PORT:-10257}"
scheduler_port="${IWC_CLUSTER_SCHEDULER_PORT:-10259}"
kwok_port="${IWC_CLUSTER_KWOK_PORT:-10247}"
kubelet_port="${IWC_CLUSTER_KUBELET_PORT:-10250}"
kubelet_healthz_port=$((kubelet_port - 2))
kueue_webhook_port="${IWC_CLUSTER_KUEUE_WEBHOOK_PORT:-9443}"   # its health probe +1, its metrics +2
kueue_health_port=$((kueue_webhook_port + 1))
kueue_metrics_port=$((kueue_webhook_port + 2))
vm_port="${IWC_CLUSTER_METRICS_PORT:-8428}"   # VictoriaMetrics: OTLP/HTTP in, PromQL out
# The `kubernetes` Service takes the first address of this range: 127.0.0.1, so a pod's
# KUBERNETES_SERVICE_HOST is loopback (a private range would be unreachable here).
service_cidr="127.0.0.0/24"
pod_cidr="127.64.0.0/16"   # kwok's fake pod IPs: loopback too, never a private address
node_name_kubelet="127.0.0.1"   # see docs/kubernetes.md: the kubelet's node IP cannot be loopback, its hostname can

# version_of <module dir> <module path>: the version the wrapper module requires.
version_of() {
  awk -v m="$2" '/^[ \t]*\/\// || /=>/ { next } { for (i = 1; i < NF; i++) if ($i == m) { print $(i + 1); exit } }' \
    "$cluster_src/$1/go.mod"
}
k8s_version="$(version_of kube k8s.io/kubernetes)"
etcd_version="$(version_of etcd go.etcd.io/etcd/server/v3)"
kwok_version="$(version_of kwok sigs.k8s.io/kwok)"
helm_version="$(version_of helm helm.sh/helm/v3)"
jaeger_version="$(version_of jaeger github.com/jaegertracing/jaeger)"
kueue_version="$(version_of kueue sigs.k8s.io/kueue)"
vm_version="$(version_of victoriametrics github.com/VictoriaMetrics/VictoriaMetrics)"

kube_bin="$cache_root/kubernetes-$k8s_version"
etcd_bin="$cache_root/etcd-$etcd_version"
kwok_bin="$cache_root/kwok-$kwok_version"
helm_bin="$cache_root/helm-$helm_version"
jaeger_bin="$cache_root/jaeger-$jaeger_version"
kueue_bin="$cache_root/kueue-$kueue_version"
vm_bin="$cache_root/victoriametrics-$vm_version"
pause_bin="$cache_root/pause-1"

say() { printf '%s\n' "$*"; }
step() { printf '  %-34s' "$1"; }   # a step's line; finish it with ok / skip / fail
ok() { printf '%s\n' "${1:-ok}"; }
die() { printf '\nerror: %s\n' "$*" >&2; exit 1; }

# show_log <file>: the end of a log, on failure.
show_log() {
  [ -f "$1" ] || return 0
  printf -- '--- last lines of %s\n' "$1" >&2
  tail -n "${2:-40}" "$1" >&2
  printf -- '---\n' >&2
}

pidfile() { printf '%s/pids/%s.pid' "$state" "$1"; }

# running <name>: true when the process recorded for <name> is alive and still the
# binary we started (a PID can be reused after a crash).
running() {
  local f pid exe
  f="$(pidfile "$1")"
  [ -f "$f" ] || return 1
  pid="$(cat "$f")"
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 1
  [ "$exe" = "$(cat "$f.exe" 2>/dev/null)" ]
}

# launch <name> <binary> args...: start in its own session, log to logs/<name>.log,
# record the PID and the binary path.
launch() {
  local name="$1" bin="$2"
  shift 2
  mkdir -p "$state/pids" "$state/logs"
  setsid "$bin" "$@" >>"$state/logs/$name.log" 2>&1 </dev/null &
  local pid=$!
  printf '%s\n' "$pid" >"$(pidfile "$name")"
  readlink -f "$bin" >"$(pidfile "$name").exe"
}

# stop <name> [seconds]: SIGTERM, wait, then SIGKILL; only the PID we recorded (and its
# own process group, which setsid made it the leader of).
stop() {
  local name="$1" grace="${2:-20}" f pid i
  f="$(pidfile "$name")"
  [ -f "$f" ] || return 0
  if running "$name"; then
    pid="$(cat "$f")"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < grace * 10; i++)); do
      [ -d "/proc/$pid" ] || break
      # a zombie child of ours would linger in /proc; it is gone for our purpose
      grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
      sleep 0.1
    done
    if [ -d "/proc/$pid" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    # leftovers in its process group (socat's forked children, containerd shims are
    # not: they are in their own sessions and handled by cluster-down)
    kill -TERM -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$f" "$f.exe"
}

# wait_for <seconds> <log name> <command...>: poll until the command succeeds.
wait_for() {
  local seconds="$1" log="$2" i
  shift 2
  for ((i = 0; i < seconds * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -n "$log" ] && ! running "$log"; then
      printf 'fail (%s exited)\n' "$log"
      show_log "$state/logs/$log.log"
      return 1
    fi
    sleep 0.2
  done
  printf 'fail (not ready after %ss)\n' "$seconds"
  [ -n "$log" ] && show_log "$state/logs/$log.log"
  return 1
}

# https_ok <url>: a GET with the admin client certificate that answers 2xx.
https_ok() {
  curl -fsS --max-time 3 --cacert "$state/pki/ca.crt" --cert "$state/pki/admin.crt" \
    --key "$state/pki/admin.key" "$1"
}

# kubectl of the cluster's own version (Debian's is 1.32: outside the supported skew)
kctl() { "$kube_bin/kubectl" --kubeconfig "$state/kubeconfig" "$@"; }
