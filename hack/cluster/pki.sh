# Certificates and kubeconfigs for hack/cluster-up (sourced). One CA signs everything;
# every component authenticates with its own client certificate, so RBAC sees the same
# users as on a kubeadm cluster. ECDSA P-256 keys: quick to make on a busy machine.
# Made once per state folder; a restart reuses them.

_pki="$state/pki"

_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# _leaf <name> <subject> <extendedKeyUsage> [subjectAltName] [CA name]
_leaf() {
  local name="$1" subject="$2" eku="$3" san="${4:-}" ca="${5:-ca}" ext
  ext="$(mktemp)"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -n "$san" ] && echo "subjectAltName=$san"
  } >"$ext"
  _key "$_pki/$name.key"
  openssl req -new -key "$_pki/$name.key" -subj "$subject" -out "$_pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$_pki/$name.csr" -CA "$_pki/$ca.crt" -CAkey "$_pki/$ca.key" \
    -CAcreateserial -days 3650 -sha256 -extfile "$ext" -out "$_pki/$name.crt" 2>/dev/null
  rm -f "$ext" "$_pki/$name.csr"
}

# _kubeconfig <file> <user cert name>: a kubeconfig with the CA and the client cert embedded.
_kubeconfig() {
  local file="$1" user="$2"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: iwc
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority-data: $(base64 -w0 "$_pki/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 "$_pki/$user.crt")
    client-key-data: $(base64 -w0 "$_pki/$user.key")
contexts:
- name: iwc
  context: {cluster: iwc, user: $user}
current-context: iwc
EOF
  chmod 600 "$file"
}

make_pki() {
  step "certificates (openssl)"
  if [ -f "$_pki/done" ]; then ok "kept"; return 0; fi
  rm -rf "$_pki"
  mkdir -p "$_pki" "$state/kubeconfigs"
  chmod 700 "$_pki"
  _key "$_pki/ca.key"
  openssl req -x509 -new -key "$_pki/ca.key" -subj "/CN=iwc-cluster-ca" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$_pki/ca.crt" 2>/dev/null
  local local_san="IP:127.0.0.1,DNS:localhost"
  _leaf kube-apiserver "/CN=kube-apiserver" serverAuth \
    "$local_san,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  _leaf etcd "/CN=etcd" serverAuth,clientAuth "$local_san"
  _leaf apiserver-etcd-client "/CN=kube-apiserver-etcd-client" clientAuth
  _leaf apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  _leaf admin "/O=system:masters/CN=iwc-admin" clientAuth
  # client and serving in one certificate for the components that also serve /healthz
  _leaf kube-controller-manager "/CN=system:kube-controller-manager" serverAuth,clientAuth "$local_san"
  _leaf kube-scheduler "/CN=system:kube-scheduler" serverAuth,clientAuth "$local_san"
  _leaf kwok "/CN=iwc:kwok-controller" serverAuth,clientAuth "$local_san"
  _leaf kubelet "/O=system:nodes/CN=system:node:$node_name_kubelet" serverAuth,clientAuth "$local_san"
  # the front proxy (request-header authentication, for aggregated API servers); without
  # it kube-controller-manager and kube-scheduler log "missing content for CA bundle"
  _key "$_pki/front-proxy-ca.key"
  openssl req -x509 -new -key "$_pki/front-proxy-ca.key" -subj "/CN=iwc-front-proxy-ca" -days 3650 \
    -sha256 -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$_pki/front-proxy-ca.crt" 2>/dev/null
  _leaf front-proxy-client "/CN=front-proxy-client" clientAuth "" front-proxy-ca
  # service-account token signing (kube-apiserver signs, kube-controller-manager too for
  # legacy token Secrets; both verify with the public half)
  _key "$_pki/sa.key"
  openssl pkey -in "$_pki/sa.key" -pubout -out "$_pki/sa.pub" 2>/dev/null
  chmod 600 "$_pki"/*.key
  _kubeconfig "$state/kubeconfig" admin
  local c
  for c in kube-controller-manager kube-scheduler kwok kubelet; do
    _kubeconfig "$state/kubeconfigs/$c.kubeconfig" "$c"
  done
  touch "$_pki/done"
  ok
}
