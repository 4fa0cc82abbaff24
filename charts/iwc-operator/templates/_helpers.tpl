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

{{- /* llm.providers as the operator reads them: openai=iwc-openai,google=iwc-google */ -}}
{{- define "iwc.providerSecrets" -}}
{{- $pairs := list -}}
{{- range $name, $provider := .Values.llm.providers -}}
{{- with $provider.apiKeySecret -}}
{{- $pairs = append $pairs (printf "%s=%s" $name .) -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end -}}
