# What a shared cluster adds to the control plane (sourced by hack/cluster-up): Kueue's
# controller-manager (`--kueue`) and a metrics backend, VictoriaMetrics (`--metrics`).
# Both on 127.0.0.1 only, built from their Go modules (hack/cluster/build.sh).

_kueue="$state/kueue"
# Kueue's own CRDs that convert between v1beta1 and v1beta2 through its webhook
# (config/components/crd/kustomization.yaml upstream); v1beta2 is stored.
_kueue_converted="localqueues clusterqueues cohorts workloads multikueueclusters"

# Kueue's serving certificate (webhooks and /metrics, IP:127.0.0.1) and its client
# certificate as the user iwc:kueue, both from the cluster's CA; its configuration.
_kueue_files() {
  mkdir -p "$_kueue/certs" "$_kueue/etc/kueue/metrics" "$_kueue/etc-work"
  if [ ! -f "$_kueue/certs/tls.crt" ]; then
    _leaf kueue "/CN=iwc:kueue" serverAuth,clientAuth "IP:127.0.0.1,DNS:localhost"
    cp "$_pki/kueue.crt" "$_kueue/certs/tls.crt"
    cp "$_pki/kueue.key" "$_kueue/certs/tls.key"
    chmod 600 "$_kueue/certs/tls.key"
  fi
  [ -f "$state/kubeconfigs/kueue.kubeconfig" ] || _kubeconfig "$state/kubeconfigs/kueue.kubeconfig" kueue
  # Kueue reads its /metrics certificate from a fixed path, /etc/kueue/metrics/certs,
  # unless it manages certificates itself (for a Service's DNS name, which the API server
  # cannot reach here). It runs in a mount namespace of its own where /etc is an overlay
  # holding that path; the host's /etc is not touched.
  ln -sfn "$_kueue/certs" "$_kueue/etc/kueue/metrics/certs"
  cat >"$_kueue/config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health: {healthProbeBindAddress: "127.0.0.1:$kueue_health_port"}
metrics: {bindAddress: "127.0.0.1:$kueue_metrics_port"}
webhook: {host: 127.0.0.1, port: $kueue_webhook_port, certDir: "$_kueue/certs"}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
manageJobsWithoutQueueName: false
integrations: {frameworks: ["batch/job"]}
# as Kueue's own manifests ship it (config/components/manager/controller_manager_config.yaml)
controller:
  groupKindConcurrency:
    Job.batch: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection: {qps: 50, burst: 100}
# the visibility API is an aggregated API server on every interface: off
featureGates: {VisibilityOnDemand: false}
EOF
}

# install_kueue: its CRDs, its namespace, its user bound to cluster-admin (as kwok's).
install_kueue() {
  step "Kueue CRDs"
  _kueue_files
  kctl apply --server-side --force-conflicts -f "$kueue_bin/crds/" >/dev/null || return 1
  kctl wait --for=condition=Established --timeout=60s -f "$kueue_bin/crds/" >/dev/null || return 1
  kctl get namespace kueue-system >/dev/null 2>&1 || kctl create namespace kueue-system >/dev/null || return 1
  kctl get clusterrolebinding iwc:kueue >/dev/null 2>&1 ||
    kctl create clusterrolebinding iwc:kueue --clusterrole=cluster-admin --user=iwc:kueue >/dev/null || return 1
  ok "$(find "$kueue_bin/crds" -name '*.yaml' | wc -l) CRDs"
}

# launch_kueue args...: as launch does, inside `unshare --mount` with the /etc overlay.
# Returns once the PID runs the kueue binary (`running` compares /proc/<pid>/exe).
launch_kueue() {
  mkdir -p "$state/pids" "$state/logs"
  # shellcheck disable=SC2016 # expanded by the inner sh
  setsid unshare --mount --propagation private sh -c \
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/etc,workdir=$1/etc-work" /etc && shift && exec "$@"' \
    sh "$_kueue" "$kueue_bin/kueue" "$@" >>"$state/logs/kueue.log" 2>&1 </dev/null &
  local pid=$! i
  printf '%s\n' "$pid" >"$(pidfile kueue)"
  readlink -f "$kueue_bin/kueue" >"$(pidfile kueue).exe"
  for ((i = 0; i < 50; i++)); do
    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(cat "$(pidfile kueue).exe")" ] && return 0
    [ -d "/proc/$pid" ] || return 0
    sleep 0.1
  done
}

# register_kueue_webhooks: Kueue's admission webhooks for its own kinds and for Jobs,
# called at https://127.0.0.1:<port><path> (upstream they name a Service, which the API
# server could not reach here), verified with the cluster's CA; the Job webhooks see only
# Jobs that carry the queue label, so a Kueue that is down stops no other Job. Webhooks
# of the integrations not enabled (pods, Deployments, JobSets, …) are left out. Then the
# conversion webhook of the CRDs that have one.
register_kueue_webhooks() {
  step "Kueue webhooks"
  local ca url="https://127.0.0.1:$kueue_webhook_port" crd
  ca="$(base64 -w0 "$_pki/ca.crt")"
  # shellcheck disable=SC2016 # jq's variables
  kctl create --dry-run=client -o json -f "$kueue_bin/webhooks.yaml" | jq --arg ca "$ca" --arg url "$url" '
    .metadata = {name: ("iwc-kueue-" + .metadata.name)}
    | .webhooks |= map(select(any(.rules[]; (.apiGroups | index("kueue.x-k8s.io"))
                                 or ((.apiGroups | index("batch")) and (.resources | index("jobs")))))
      | .clientConfig = {url: ($url + .clientConfig.service.path), caBundle: $ca}
      | if any(.rules[]; .apiGroups | index("batch")) then
          .objectSelector = {matchExpressions: [{key: "kueue.x-k8s.io/queue-name", operator: "Exists"}]}
        else . end)' | kctl apply -f - >/dev/null || return 1
  for crd in $_kueue_converted; do
    kctl patch crd "$crd.kueue.x-k8s.io" --type=merge -p "{\"spec\":{\"conversion\":{\"strategy\":\"Webhook\",
      \"webhook\":{\"conversionReviewVersions\":[\"v1\"],\"clientConfig\":{\"url\":\"$url/convert\",
      \"caBundle\":\"$ca\"}}}}}" >/dev/null || return 1
  done
  ok "$(kctl get mutatingwebhookconfiguration iwc-kueue-mutating-webhook-configuration \
    -o jsonpath='{.webhooks[*].name}' | wc -w) mutating, $(kctl get validatingwebhookconfiguration \
    iwc-kueue-validating-webhook-configuration -o jsonpath='{.webhooks[*].name}' | wc -w) validating"
}

addon_args() {
  case "$1" in
    kueue)
      _args kueue --config="$_kueue/config.yaml" --kubeconfig="$state/kubeconfigs/kueue.kubeconfig"
      ;;
    victoriametrics)
      # OTLP metric names and labels as Prometheus names them (iwc.llm.cost → iwc_llm_cost_USD_total);
      # a sample is visible to queries at once, not after the default 30 s
      _args victoriametrics -httpListenAddr="127.0.0.1:$vm_port" -storageDataPath="$state/victoriametrics" \
        -retentionPeriod=7d -opentelemetry.usePrometheusNaming -search.latencyOffset=0s \
        -loggerLevel=WARN
      ;;
  esac
}

addon_ready() {
  case "$1" in
    kueue) curl -fsS --max-time 3 "http://127.0.0.1:$kueue_health_port/readyz" ;;
    victoriametrics) curl -fsS --max-time 3 "http://127.0.0.1:$vm_port/health" ;;
  esac
}
