{{/* Generated from manifests/ by src/cli/generate-chart.ts. */}}

{{/*
Arguments of planwright start beyond manifests/: a namespaced installation's
--watch-namespaces (as planwright init --watch-namespaces adds it), then the tenancy flags.
*/}}
{{- define "planwright.args" -}}
{{- with .Values.watchNamespaces }}
- --watch-namespaces
- {{ join "," . | quote }}
{{- end }}
{{- if ne .Values.tenancy.posture "kudo" }}
- --tenancy
- {{ .Values.tenancy.posture | quote }}
{{- end }}
{{- range .Values.tenancy.allowNamespace }}
- --allow-namespace
- {{ . | quote }}
{{- end }}
{{- range .Values.tenancy.allowClusterScoped }}
- --allow-cluster-scoped
- {{ . | quote }}
{{- end }}
{{- range .Values.tenancy.allowOperatorVersion }}
- --allow-operator-version
- {{ . | quote }}
{{- end }}
{{- range .Values.tenancy.allowServiceAccount }}
- --allow-service-account
- {{ . | quote }}
{{- end }}
{{- with .Values.tenancy.defaultServiceAccount }}
- --default-service-account
- {{ . | quote }}
{{- end }}
{{- end }}

{{/*
A namespaced installation's webhooks are called only for its namespaces (and the webhook
probe), as planwright init --watch-namespaces registers them.
*/}}
{{- define "planwright.matchConditions" -}}
{{- with .Values.watchNamespaces }}
matchConditions:
  - name: planwright-watch-namespaces
    expression: {{ printf "request.name == %s || request.namespace in %s" (toJson "planwright-webhook-probe") (toJson .) | quote }}
{{- end }}
{{- end }}
