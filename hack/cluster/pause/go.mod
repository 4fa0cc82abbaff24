// The kubelet's sandbox ("pause") container for `hack/cluster-up --kubelet`: no
// registry is reachable here, so registry.k8s.io/pause cannot be pulled.
module iwcbench/hack/cluster/pause

go 1.25.0
