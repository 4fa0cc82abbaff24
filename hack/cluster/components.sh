# Starting the control plane's processes (sourced by hack/cluster-up). Each start_<x>
# is a no-op when <x> is already running, so cluster-up is idempotent, and it reads its
# arguments from args/<x> (written once), so `--restart <x>` starts the same thing.

_p="$state/pki"
_kc="$state/kubeconfigs"

# _args <name> args...: record a component's command line (one argument per line) the
# first time; later starts reuse it.
_args() {
  local name="$1"
  shift
  mkdir -p "$state/args"
  [ -f "$state/args/$name" ] || printf '%s\n' "$@" >"$state/args/$name"
}
_launch_recorded() {
  local name="$1" bin="$2" args=()
  mapfile -t args <"$state/args/$name"
  if [ "$name" = kueue ]; then launch_kueue "${args[@]}"; else launch "$name" "$bin" "${args[@]}"; fi
}

_t0() { _started=${EPOCHREALTIME/./}; }
_since() { local d=$(((${EPOCHREALTIME/./} - _started) / 100000)); printf '%d.%ds' $((d / 10)) $((d % 10)); }

_component_args() {
  case "$1" in
    etcd)
      _args etcd --name=iwc --data-dir="$state/etcd" \
        --listen-client-urls="https://127.0.0.1:$etcd_port" \
        --advertise-client-urls="https://127.0.0.1:$etcd_port" \
        --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" \
        --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
        --initial-cluster="iwc=http://127.0.0.1:$etcd_peer_port" \
        --listen-metrics-urls="http://127.0.0.1:$etcd_metrics_port" \
        --cert-file="$_p/etcd.crt" --key-file="$_p/etcd.key" \
        --trusted-ca-file="$_p/ca.crt" --client-cert-auth=true
      ;;
    kube-apiserver)
      local extra=()
      if [ "$opt_audit" = 1 ]; then
        cat >"$state/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
EOF
        extra+=(--audit-policy-file="$state/audit-policy.yaml" --audit-log-path="$state/logs/audit.log"
          --audit-log-maxsize=500 --audit-log-maxbackup=2)
      fi
      if [ "$opt_jaeger" = 1 ]; then
        cat >"$state/apiserver-tracing.yaml" <<'EOF'
apiVersion: apiserver.config.k8s.io/v1
kind: TracingConfiguration
endpoint: 127.0.0.1:4317
samplingRatePerMillion: 1000000
EOF
        extra+=(--tracing-config-file="$state/apiserver-tracing.yaml")
      fi
      # --shutdown-*: on SIGTERM, end the watches and stop in ~2 s; by default the HTTP
      # server waits --request-timeout (60 s) for the other components' open watches
      # shellcheck disable=SC2086 # IWC_KUBE_APISERVER_ARGS is a list of extra flags
      _args kube-apiserver --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
        --secure-port="$api_port" \
        --etcd-servers="https://127.0.0.1:$etcd_port" --etcd-cafile="$_p/ca.crt" \
        --etcd-certfile="$_p/apiserver-etcd-client.crt" --etcd-keyfile="$_p/apiserver-etcd-client.key" \
        --client-ca-file="$_p/ca.crt" \
        --tls-cert-file="$_p/kube-apiserver.crt" --tls-private-key-file="$_p/kube-apiserver.key" \
        --kubelet-client-certificate="$_p/apiserver-kubelet-client.crt" \
        --kubelet-client-key="$_p/apiserver-kubelet-client.key" \
        --kubelet-certificate-authority="$_p/ca.crt" --kubelet-preferred-address-types=InternalIP \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-key-file="$_p/sa.pub" --service-account-signing-key-file="$_p/sa.key" \
        --service-cluster-ip-range="$service_cidr" --endpoint-reconciler-type=none \
        --requestheader-client-ca-file="$_p/front-proxy-ca.crt" \
        --requestheader-allowed-names=front-proxy-client --requestheader-username-headers=X-Remote-User \
        --requestheader-group-headers=X-Remote-Group --requestheader-extra-headers-prefix=X-Remote-Extra- \
        --proxy-client-cert-file="$_p/front-proxy-client.crt" --proxy-client-key-file="$_p/front-proxy-client.key" \
        --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction,PodSecurity \
        --allow-privileged=true \
        --shutdown-send-retry-after=true --shutdown-watch-termination-grace-period=2s \
        "${extra[@]}" ${IWC_KUBE_APISERVER_ARGS:-}
      ;;
    kube-controller-manager)
      # shellcheck disable=SC2086
      _args kube-controller-manager --kubeconfig="$_kc/kube-controller-manager.kubeconfig" \
        --authentication-kubeconfig="$_kc/kube-controller-manager.kubeconfig" \
        --authorization-kubeconfig="$_kc/kube-controller-manager.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port="$kcm_port" \
        --tls-cert-file="$_p/kube-controller-manager.crt" --tls-private-key-file="$_p/kube-controller-manager.key" \
        --controllers="$kcm_controllers" --use-service-account-credentials=true \
        --service-account-private-key-file="$_p/sa.key" --root-ca-file="$_p/ca.crt" \
        --leader-elect=false ${IWC_KUBE_CONTROLLER_MANAGER_ARGS:-}
      ;;
    kube-scheduler)
      # shellcheck disable=SC2086
      _args kube-scheduler --kubeconfig="$_kc/kube-scheduler.kubeconfig" \
        --authentication-kubeconfig="$_kc/kube-scheduler.kubeconfig" \
        --authorization-kubeconfig="$_kc/kube-scheduler.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port="$scheduler_port" \
        --tls-cert-file="$_p/kube-scheduler.crt" --tls-private-key-file="$_p/kube-scheduler.key" \
        --leader-elect=false ${IWC_KUBE_SCHEDULER_ARGS:-}
      ;;
    kwok)
      { cat "$kwok_bin/stages.yaml"; printf '\n---\n'; cat "$cluster_src/kwok/stage-pod-fail.yaml"; } >"$state/kwok-stages.yaml"
      _args kwok --kubeconfig="$_kc/kwok.kubeconfig" --config="$state/kwok-stages.yaml" \
        --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
        --node-ip=127.0.0.1 --cidr="$pod_cidr" \
        --node-port="$kwok_port" --server-address="127.0.0.1:$kwok_port" \
        --tls-cert-file="$_p/kwok.crt" --tls-private-key-file="$_p/kwok.key" \
        --node-lease-duration-seconds=40
      ;;
    relay)
      _args relay "TCP-LISTEN:$service_port,bind=127.0.0.1,reuseaddr,fork" "TCP:127.0.0.1:$api_port"
      ;;
    egress-*)
      mkdir -p "$egress_dir"
      _args "$1" "UNIX-LISTEN:$egress_dir/${1#egress-}.sock,fork,unlink-early,mode=600" \
        "TCP:127.0.0.1:$(cat "$egress_dir/${1#egress-}.target")"
      ;;
    jaeger)
      cat >"$state/jaeger.yaml" <<'EOF'
# Jaeger v2 all-in-one on loopback only: OTLP in, traces in memory, the query UI/API;
# metrics (Jaeger keeps none) out through its Prometheus exporter on 127.0.0.1:8889,
# labelled with their resource attributes (service, run, Job, app).
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      processors: [batch]
      exporters: [prometheus]
  telemetry:
    metrics: {level: none}
extensions:
  jaeger_storage:
    backends:
      memstore: {memory: {max_traces: 100000}}
  jaeger_query:
    storage: {traces: memstore}
    http: {endpoint: "127.0.0.1:16686"}
    grpc: {endpoint: "127.0.0.1:16685"}
  healthcheckv2:
    use_v2: true
    http: {endpoint: "127.0.0.1:13133"}
receivers:
  otlp:
    protocols:
      grpc: {endpoint: "127.0.0.1:4317"}
      http: {endpoint: "127.0.0.1:4318"}
processors:
  batch: {}
exporters:
  jaeger_storage_exporter: {trace_storage: memstore}
  prometheus:
    endpoint: "127.0.0.1:8889"
    resource_to_telemetry_conversion: {enabled: true}
    metric_expiration: 24h
EOF
      if running victoriametrics; then
        # the metrics also go on to VictoriaMetrics (OTLP/HTTP), where PromQL reads them
        sed -i -e 's/      exporters: \[prometheus\]/      exporters: [prometheus, otlphttp\/victoriametrics]/' "$state/jaeger.yaml"
        printf '  otlphttp/victoriametrics:\n    metrics_endpoint: "http://127.0.0.1:%s/opentelemetry/v1/metrics"\n' \
          "$vm_port" >>"$state/jaeger.yaml"
      fi
      _args jaeger --config="$state/jaeger.yaml"
      ;;
    *) addon_args "$1" ;;
  esac
}

# Controllers: what Jobs, namespaces, service accounts and owner references need, the
# node lifecycle (it lifts the not-ready taint the TaintNodesByCondition admission puts
# on every new Node), Deployments and DaemonSets (the operator's chart: the sandbox
# profile's installer), PodDisruptionBudgets (the Eviction API reads them) and a few cheap ones.
kcm_controllers="job-controller,garbage-collector-controller,serviceaccount-controller"
kcm_controllers+=",serviceaccount-token-controller,namespace-controller,ttl-after-finished-controller"
kcm_controllers+=",root-ca-certificate-publisher-controller,node-lifecycle-controller"
kcm_controllers+=",deployment-controller,replicaset-controller,pod-garbage-collector-controller"
kcm_controllers+=",clusterrole-aggregation-controller,cronjob-controller,daemonset-controller"
kcm_controllers+=",disruption-controller"

_binary_of() {
  case "$1" in
    etcd) echo "$etcd_bin/etcd" ;;
    kwok) echo "$kwok_bin/kwok" ;;
    relay | egress-*) command -v socat ;;
    jaeger) echo "$jaeger_bin/jaeger" ;;
    kueue) echo "$kueue_bin/kueue" ;;
    victoriametrics) echo "$vm_bin/victoria-metrics" ;;
    *) echo "$kube_bin/$1" ;;
  esac
}
_version_of() {
  case "$1" in
    etcd) echo "$etcd_version" ;;
    kwok) echo "$kwok_version" ;;
    relay) echo "socat" ;;
    egress-*) echo "→ 127.0.0.1:$(cat "$egress_dir/${1#egress-}.target")" ;;
    jaeger) echo "$jaeger_version" ;;
    kueue) echo "$kueue_version" ;;
    victoriametrics) echo "$vm_version" ;;
    *) echo "$k8s_version" ;;
  esac
}

_ready() {
  case "$1" in
    etcd) curl -fsS --max-time 3 --cacert "$_p/ca.crt" --cert "$_p/etcd.crt" --key "$_p/etcd.key" \
      "https://127.0.0.1:$etcd_port/readyz" ;;
    kube-apiserver) https_ok "https://127.0.0.1:$api_port/readyz" ;;
    kube-controller-manager) https_ok "https://127.0.0.1:$kcm_port/healthz" ;;
    kube-scheduler) https_ok "https://127.0.0.1:$scheduler_port/healthz" ;;
    kwok) https_ok "https://127.0.0.1:$kwok_port/healthz" ;;
    relay) https_ok "https://127.0.0.1:$service_port/readyz" ;;
    jaeger) curl -fsS --max-time 3 "http://127.0.0.1:16686/" ;;
    egress-*) [ -S "$egress_dir/${1#egress-}.sock" ] ;;
    *) addon_ready "$1" ;;
  esac
}

# start_egress <port> <target>: pods off the host network may reach 127.0.0.1:<port>,
# which leads to the host's 127.0.0.1:<target> (cni/iwc-isolated). For pods created
# after this; a changed target restarts the forwarder.
start_egress() {
  local port="$1" target="$2" name="egress-$1"
  mkdir -p "$egress_dir"
  if [ "$(cat "$egress_dir/$port.target" 2>/dev/null)" != "$target" ]; then
    stop "$name"
    rm -f "$state/args/$name"
    echo "$target" >"$egress_dir/$port.target"
  fi
  start "$name" 10
}

# start <name> [timeout]: start a component unless it runs, wait until it is ready.
start() {
  local name="$1" timeout="${2:-60}"
  step "$name $(_version_of "$name")"
  if running "$name"; then
    if _ready "$name" >/dev/null 2>&1; then ok "running"; return 0; fi
    wait_for "$timeout" "$name" _ready "$name" && ok "running"
    return
  fi
  _component_args "$name"
  _t0
  _launch_recorded "$name" "$(_binary_of "$name")"
  wait_for "$timeout" "$name" _ready "$name" || return 1
  ok "ready in $(_since)"
}

# restart <name>: stop it and start it again with the same arguments.
restart() {
  local name="$1"
  [ -f "$state/args/$name" ] || die "$name was never started in $state"
  step "stop $name"
  stop "$name" 30
  ok
  start "$name" 120
}

# The kwok controller's RBAC: its own user, bound to cluster-admin (it writes node and
# pod status, leases, and deletes pods).
grant_kwok() {
  step "RBAC for kwok"
  if kctl get clusterrolebinding iwc:kwok-controller >/dev/null 2>&1; then ok "kept"; return 0; fi
  kctl create clusterrolebinding iwc:kwok-controller --clusterrole=cluster-admin \
    --user=iwc:kwok-controller >/dev/null || return 1
  ok
}

# make_nodes <n>: fake Nodes kwok-node-0..n-1 (kwok manages those annotated
# kwok.x-k8s.io/node=fake). Both addresses are given: kwok's node-initialize stage
# rewrites the list when either is missing, and its Hostname would be empty. The
# InternalIP is loopback, where kwok serves the "kubelet" API (logs, exec). Capacity per node: 256 CPUs, 1 TiB, 250 pods, so the default
# five hold 1250 pods (500 app pods request ~550 CPUs). No taint: the operator's Jobs
# carry no toleration.
make_nodes() {
  local n="$1" i have missing=()
  step "kwok nodes ($n)"
  have="$(kctl get nodes -l type=kwok -o name 2>/dev/null)"
  for ((i = 0; i < n; i++)); do
    grep -qx "node/kwok-node-$i" <<<"$have" || missing+=("$i")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    ok "kept"
  else
    for i in "${missing[@]}"; do
      cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: kwok-node-$i
status:
  allocatable: {cpu: "256", memory: 1Ti, pods: "250", ephemeral-storage: 10Ti}
  capacity: {cpu: "256", memory: 1Ti, pods: "250", ephemeral-storage: 10Ti}
  addresses:
  - {type: InternalIP, address: 127.0.0.1}
  - {type: Hostname, address: kwok-node-$i}
EOF
    done | kctl create -f - >/dev/null || return 1
    ok "created ${#missing[@]}"
  fi
  step "kwok nodes Ready"
  _t0
  wait_for 90 kwok _nodes_ready "$n" || return 1
  ok "in $(_since)"
}
_nodes_ready() {
  local ready
  ready="$(kctl get nodes -l type=kwok -o jsonpath='{range .items[*]}{.spec.taints}{" "}{range .status.conditions[?(@.type=="Ready")]}{.status}{end}{"\n"}{end}')"
  # Ready, and the node lifecycle controller has lifted the not-ready taint
  [ "$(grep -c '^ True$' <<<"$ready")" -ge "$1" ]
}

# write_env: $state/env, for tests to source (KEY=value lines with `export`, no quoting
# needed: the values hold no spaces). Rewritten on every cluster-up.
write_env() {
  {
    echo "# written by hack/cluster-up; source it"
    echo "export KUBECONFIG=$state/kubeconfig"
    echo "export IWC_CLUSTER_DIR=$state"
    echo "export IWC_CLUSTER_API_URL=https://127.0.0.1:$api_port"
    running relay && echo "export IWC_CLUSTER_SERVICE_URL=https://127.0.0.1:$service_port"
    echo "export IWC_CLUSTER_KUBERNETES_VERSION=$k8s_version"
    echo "export IWC_CLUSTER_CA=$_p/ca.crt"
    echo "export IWC_CLUSTER_ADMIN_CERT=$_p/admin.crt"
    echo "export IWC_CLUSTER_ADMIN_KEY=$_p/admin.key"
    echo "export IWC_CLUSTER_ETCD_DATA=$state/etcd"
    echo "export IWC_CLUSTER_ETCD_METRICS_URL=http://127.0.0.1:$etcd_metrics_port/metrics"
    echo "export IWC_CLUSTER_NODES=$(kctl get nodes -l type=kwok -o name | wc -l)"
    echo "export IWC_CLUSTER_LOGS=$state/logs"
    [ -f "$state/audit-policy.yaml" ] && echo "export IWC_CLUSTER_AUDIT_LOG=$state/logs/audit.log"
    echo "export IWC_CLUSTER_BIN=$kube_bin"
    echo "export IWC_HELM=$helm_bin/helm"
    echo "export IWC_KWOK=$kwok_bin/kwok"
    echo "export IWC_KWOKCTL=$kwok_bin/kwokctl"
    echo "export IWC_ETCD=$etcd_bin/etcd"
    [ -x "$jaeger_bin/jaeger" ] && echo "export IWC_JAEGER=$jaeger_bin/jaeger"
    if running jaeger; then
      echo "export IWC_OTLP_ENDPOINT=http://127.0.0.1:4318"
      echo "export IWC_JAEGER_QUERY_URL=http://127.0.0.1:16686"
      echo "export IWC_METRICS_URL=http://127.0.0.1:8889/metrics"
    fi
    running victoriametrics && echo "export IWC_PROMQL_URL=http://127.0.0.1:$vm_port"
    running kueue && echo "export IWC_KUEUE_VERSION=$kueue_version"
    if running kubelet; then
      echo "export IWC_CLUSTER_KUBELET_NODE=$node_name_kubelet"
      echo "export IWC_CLUSTER_CONTAINERD_SOCK=$state/containerd/containerd.sock"
    fi
    echo "export PATH=$kube_bin:$helm_bin:$kwok_bin:\$PATH"
  } >"$state/env.tmp"
  mv "$state/env.tmp" "$state/env"
}
