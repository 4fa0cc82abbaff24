# A real node for hack/cluster-up --kubelet (sourced): Debian's containerd 1.6 with runc
# and a kubelet of the control plane's version. This VM has cgroups v1 (hybrid) and no
# systemd, so the kubelet uses the cgroupfs driver and `failCgroupV1: false`
# (Kubernetes 1.35 is also the last release that supports containerd 1.x). Pods must use
# host networking: no CNI bridge here (it would hand out private addresses), only a
# loopback-only CNI network so containerd reports its network ready.
# Everything lives under $state/containerd and $state/kubelet; cluster-down unmounts it.

_ctrd="$state/containerd"
_sock="$_ctrd/containerd.sock"
pause_image="iwc.local/pause:1"

ctr_() { ctr --address "$_sock" --namespace k8s.io "$@"; }

_containerd_config() {
  mkdir -p "$_ctrd/cni" "$_ctrd/cni-bin" "$_ctrd/root" "$_ctrd/state"
  ln -sfn /usr/lib/cni/loopback "$_ctrd/cni-bin/loopback"
  cp "$cluster_src/cni/iwc-isolated" "$_ctrd/cni-bin/iwc-isolated"
  rm -f "$_ctrd/cni"/*
  cat >"$_ctrd/cni/10-iwc-isolated.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "iwc-isolated", "plugins": [{"type": "iwc-isolated", "egressDir": "$egress_dir", "kubectl": "$kube_bin/kubectl", "kubeconfig": "$state/kubeconfig"}]}
EOF
  cat >"$_ctrd/config.toml" <<EOF
# containerd 1.6 for hack/cluster-up --kubelet: its own root, state and socket
version = 2
root = "$_ctrd/root"
state = "$_ctrd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$_sock"
[ttrpc]
  address = "$_sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$_ctrd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  # root here lacks CAP_SYS_RESOURCE: the kubelet's oom_score_adj of -998 for a sandbox
  # fails in runc ("nsexec: failed to update /proc/self/oom_score_adj: Permission
  # denied"); this clamps it to containerd's own score instead
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(command -v runc)"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$_ctrd/cni-bin"
    conf_dir = "$_ctrd/cni"
EOF
}

_kubelet_config() {
  mkdir -p "$state/kubelet"
  cat >"$state/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_healthz_port
tlsCertFile: $_p/kubelet.crt
tlsPrivateKeyFile: $_p/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $_p/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$_sock
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
resolvConf: /etc/resolv.conf
serializeImagePulls: false
# imported images cannot be pulled again: never garbage-collect them
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
EOF
}

_containerd_ready() { ctr_ version; }
_kubelet_ready() {
  curl -fsS --max-time 3 "http://127.0.0.1:$kubelet_healthz_port/healthz" &&
    [ "$(kctl get node "$node_name_kubelet" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]
}

start_containerd() {
  step "containerd $(containerd --version | awk '{print $3}')"
  if running containerd && _containerd_ready >/dev/null 2>&1; then ok "running"; return 0; fi
  _containerd_config
  _args containerd --config="$_ctrd/config.toml"
  _t0
  _launch_recorded containerd "$(command -v containerd)"
  wait_for 60 containerd _containerd_ready || return 1
  ok "ready in $(_since)"
  # the sandbox image, made here (no registry)
  step "pause image"
  if ! ctr_ images ls -q | grep -qx "$pause_image"; then
    local root
    root="$(mktemp -d)"
    cp "$pause_bin/pause" "$root/pause"
    "$cluster_src/image-archive" "$root" "$pause_image" "$pause_bin/pause.tar" --entrypoint /pause
    rm -rf "$root"
    ctr_ images import "$pause_bin/pause.tar" >>"$state/logs/containerd.log" 2>&1 || {
      echo fail; show_log "$state/logs/containerd.log"; return 1; }
    ok "imported"
  else
    ok "kept"
  fi
}

start_kubelet() {
  step "kubelet $k8s_version"
  if running kubelet && _kubelet_ready >/dev/null 2>&1; then ok "running"; return 0; fi
  _kubelet_config
  # (no seccomp profile is put here: the chart's DaemonSet iwc-sandbox-profile writes
  # sandbox.seccompProfile into <root-dir>/seccomp/, as on any node)
  rm -rf "$state/kubelet/seccomp/iwc-bench"
  # --hostname-override with an IP: the node's InternalIP is then 127.0.0.1 (a --node-ip
  # of 127.0.0.1 is refused: "nodeIP can't be loopback address"), so kube-apiserver
  # reaches this kubelet (logs, exec) on loopback.
  _args kubelet --config="$state/kubelet-config.yaml" --kubeconfig="$_kc/kubelet.kubeconfig" \
    --root-dir="$state/kubelet" --hostname-override="$node_name_kubelet" ${IWC_KUBELET_ARGS:-}
  _t0
  _launch_recorded kubelet "$kube_bin/kubelet"
  wait_for 120 kubelet _kubelet_ready || return 1
  ok "node $node_name_kubelet Ready in $(_since)"
}

# restart_kubelet_part <containerd|kubelet>: stop it and start it again (containerd's
# running containers stay: their shims outlive it).
restart_kubelet_part() {
  step "stop $1"
  stop "$1" 30
  ok
  case "$1" in
    containerd) start_containerd ;;
    kubelet) start_kubelet ;;
  esac
}

# import_image <archive>: a `podman save` / `docker save` archive into the node's
# containerd (namespace k8s.io, where the kubelet looks).
import_image() {
  step "import $(basename "$1")"
  running containerd || { echo "fail (no containerd: start with --kubelet)"; return 1; }
  [ -f "$1" ] || { echo "fail (no such file)"; return 1; }
  local out
  out="$(ctr_ images import "$1" 2>&1)" || { echo fail; printf '%s\n' "$out" >&2; return 1; }
  ok "$(ctr_ images ls -q | grep -v '^sha256:' | tr '\n' ' ')"
}

# stop_node: let the kubelet tear its pods down (sandboxes, CNI, network namespaces),
# stop it, then kill whatever containerd still runs, stop containerd and its shims;
# cluster-down unmounts what is left under the state folder.
stop_node() {
  if running kubelet && running kube-apiserver; then
    step "delete the kubelet's pods"
    kctl delete pods -A --field-selector "spec.nodeName=$node_name_kubelet" --grace-period=0 --force \
      --wait=false >/dev/null 2>&1 || true
    local i
    for ((i = 0; i < 30; i++)); do
      [ -z "$(ctr_ tasks ls -q 2>/dev/null)" ] && break
      sleep 1
    done
    ok
  fi
  if running kubelet; then
    step "stop kubelet"
    stop kubelet 30
    ok
  fi
  if running containerd; then
    step "stop containers"
    local id n=0 netns=()
    # network namespaces containerd made for pods off the host network (/var/run/netns/cni-…)
    mapfile -t netns < <(for id in $(ctr_ containers ls -q 2>/dev/null); do
      ctr_ containers info "$id" 2>/dev/null | grep -o '"/var/run/netns/cni-[^"]*"' | tr -d '"'
    done | sort -u)
    for id in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
      n=$((n + 1))
    done
    sleep 1
    for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks rm -f "$id" >/dev/null 2>&1 || true; done
    for id in "${netns[@]}"; do
      [ -e "$id" ] && { umount "$id" 2>/dev/null || true; rm -f "$id"; }
    done
    ok "$n killed"
    step "stop containerd"
    stop containerd 30
    ok
  fi
  # shims outlive containerd by design (their own sessions); each left a shim.pid in
  # containerd's state folder
  local f pid
  for f in "$_ctrd"/state/io.containerd.runtime.v2.task/*/*/shim.pid; do
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    if [ -n "$pid" ] && grep -q containerd-shim "/proc/$pid/cmdline" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}
