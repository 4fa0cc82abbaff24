{{- define "iwc.namespaces" -}}
{{- if .Values.namespaces }}{{ join "," .Values.namespaces }}{{ else }}{{ .Release.Namespace }}{{ end -}}
{{- end -}}

{{- define "iwc.labels" -}}
app.kubernetes.io/name: iwc-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "iwc.runnerImage" -}}
{{ .Values.image.runner.repository }}:{{ .Values.image.runner.tag }}
{{- end -}}

{{- /* The LLM providers the values name, as JSON: {name: {secret, baseUrl, url, egress?}}.
secret: the Secret holding its key (key apiKey; "" = none), by default the generated map's
iwc-<name>; baseUrl: the endpoint the values give ("" = the provider's default); url: where
its calls go (baseUrl, else the default URL in files/providers.yaml, generated from
PROVIDERS by hack/gen-chart-providers); egress: the values' own rules for it, if any. */ -}}
{{- define "iwc.llmProviders" -}}
{{- $known := .Files.Get "files/providers.yaml" | fromYaml -}}
{{- $given := deepCopy (.Values.llm.providers | default dict) -}}
{{- /* Deprecated since llm.providers.anthropic: llm.apiKeySecret and llm.baseUrl were
Anthropic's alone; still read, onto llm.providers.anthropic ("" with no baseUrl: no Anthropic). */ -}}
{{- if or (hasKey .Values.llm "apiKeySecret") .Values.llm.baseUrl -}}
{{- if and (hasKey .Values.llm "apiKeySecret") (not .Values.llm.apiKeySecret) (not .Values.llm.baseUrl) -}}
{{- $_ := unset $given "anthropic" -}}
{{- else -}}
{{- $old := dict -}}
{{- if hasKey .Values.llm "apiKeySecret" }}{{ $_ := set $old "apiKeySecret" .Values.llm.apiKeySecret }}{{ end -}}
{{- with .Values.llm.baseUrl }}{{ $_ := set $old "baseUrl" . }}{{ end -}}
{{- $_ := set $given "anthropic" (merge (get $given "anthropic" | default dict) $old) -}}
{{- end -}}
{{- end -}}
{{- $named := dict -}}
{{- range $name, $provider := $given -}}
{{- if not (kindIs "invalid" $provider) -}}
{{- $entry := get $known $name -}}
{{- if not $entry -}}
{{- fail (printf "llm.providers.%s: no such provider (known: %s; a new one is an entry in PROVIDERS, pipeline/kits/llm/providers.py, then hack/gen-chart-providers)" $name (keys $known | sortAlpha | join ", ")) -}}
{{- end -}}
{{- $provider = $provider | default dict -}}
{{- $out := dict "secret" (ternary $provider.apiKeySecret $entry.secret (hasKey $provider "apiKeySecret")) "baseUrl" ($provider.baseUrl | default "") "url" ($provider.baseUrl | default $entry.defaultUrl) -}}
{{- if hasKey $provider "egress" }}{{ $_ := set $out "egress" $provider.egress }}{{ end -}}
{{- $_ := set $named $name $out -}}
{{- end -}}
{{- end -}}
{{- toJson $named -}}
{{- end -}}

{{- /* The named providers' Secrets as the operator reads them (IWC_PROVIDER_SECRETS):
anthropic=iwc-anthropic,openai=iwc-openai */ -}}
{{- define "iwc.providerSecrets" -}}
{{- $pairs := list -}}
{{- range $name, $provider := (include "iwc.llmProviders" . | fromJson) -}}
{{- with $provider.secret -}}
{{- $pairs = append $pairs (printf "%s=%s" $name .) -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end -}}

{{- /* The egress rules (a JSON list) that let a pod reach one URL, and nothing more:
loopback needs none; an IP address gets that address; a Service's name (NAME.NAMESPACE.svc[...])
gets the pods of that namespace on that port, a bare name (NAME) those of the pod's own
namespace; any other host name is public: that port on non-private addresses (NetworkPolicy
cannot name hosts). The port is the URL's, else 443 (https) or 80 (http). NetworkPolicy
matches the pod's port: a Service whose targetPort differs needs rules of its own. */ -}}
{{- define "iwc.egressTo" -}}
{{- $u := urlParse . -}}
{{- $host := lower $u.hostname -}}
{{- $port := trimPrefix ":" (regexFind ":[0-9]+$" $u.host) | default (ternary "80" "443" (eq $u.scheme "http")) | int -}}
{{- $ports := list (dict "protocol" "TCP" "port" $port) -}}
{{- $to := list -}}
{{- if or (not $host) (eq $host "localhost") (hasPrefix "127." $host) (eq $host "::1") -}}
{{- else if regexMatch `^[0-9]+(\.[0-9]+){3}$` $host -}}
{{- $to = list (dict "ipBlock" (dict "cidr" (printf "%s/32" $host))) -}}
{{- else if contains ":" $host -}}
{{- $to = list (dict "ipBlock" (dict "cidr" (printf "%s/128" $host))) -}}
{{- else if regexMatch `^[a-z0-9-]+\.[a-z0-9-]+\.svc(\.|$)` $host -}}
{{- $to = list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" (index (splitList "." $host) 1)))) -}}
{{- else if not (contains "." $host) -}}
{{- $to = list (dict "podSelector" dict) -}}
{{- else -}}
{{- $to = list (dict "ipBlock" (dict "cidr" "0.0.0.0/0" "except" (list "10.0.0.0/8" "172.16.0.0/12" "192.168.0.0/16" "169.254.0.0/16" "100.64.0.0/10" "127.0.0.0/8"))) -}}
{{- end -}}
{{- if $to }}{{ list (dict "to" $to "ports" $ports) | toJson }}{{ else }}[]{{ end -}}
{{- end -}}

{{- /* The LLM egress of the pods that call models (a JSON list): for each provider the
values name, its own egress if given, else the rules that reach its URL. */ -}}
{{- define "iwc.llmEgress" -}}
{{- $rules := list -}}
{{- range $name, $provider := (include "iwc.llmProviders" . | fromJson) -}}
{{- if hasKey $provider "egress" -}}
{{- $rules = concat $rules $provider.egress -}}
{{- else if $provider.url -}}
{{- $rules = concat $rules (include "iwc.egressTo" $provider.url | fromJsonArray) -}}
{{- end -}}
{{- end -}}
{{- uniq $rules | toJson -}}
{{- end -}}
