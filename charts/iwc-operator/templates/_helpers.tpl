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
