package deploy

// manifests are the files of deploy/, as text/template over the Names and
// APIServices. Every file says it is generated (YAML comments).
var manifests = []struct{ path, text string }{
	{"base/kustomization.yaml", `# {{.Header}}
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- namespace.yaml
- rbac.yaml
- etcd.yaml
- apiserver.yaml
- apiservices.yaml
`},
	{"base/namespace.yaml", `# {{.Header}}
apiVersion: v1
kind: Namespace
metadata:
  name: {{.Namespace}}
`},
	{"base/rbac.yaml", `# {{.Header}}
# The apiserver's identity in the main cluster and what it may do there:
# read the front proxy's trust (extension-apiserver-authentication-reader),
# send TokenReviews and SubjectAccessReviews (system:auth-delegator),
# watch namespaces, and watch the admission configurations (policies,
# bindings, webhook configurations) it enforces on its own kinds.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{.Service}}
  namespace: {{.Namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{.Service}}:extension-apiserver-authentication-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: {{.Service}}
  namespace: {{.Namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{.Service}}:system:auth-delegator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: {{.Service}}
  namespace: {{.Namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{.NamespaceRole}}
rules:
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get, list, watch]
- apiGroups: [admissionregistration.k8s.io]
  resources: [validatingadmissionpolicies, validatingadmissionpolicybindings, validatingwebhookconfigurations, mutatingwebhookconfigurations]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{.NamespaceRole}}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{.NamespaceRole}}
subjects:
- kind: ServiceAccount
  name: {{.Service}}
  namespace: {{.Namespace}}
`},
	{"base/etcd.yaml", `# {{.Header}}
# One etcd member on a persistent volume, reachable only from the
# apiserver's pods (NetworkPolicy). For an external etcd cluster over TLS,
# use the external-etcd component instead.
apiVersion: v1
kind: Service
metadata:
  name: {{.Etcd}}
  namespace: {{.Namespace}}
  labels:
    app: {{.Etcd}}
spec:
  clusterIP: None
  selector:
    app: {{.Etcd}}
  ports:
  - name: client
    port: 2379
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{.Etcd}}
  namespace: {{.Namespace}}
spec:
  serviceName: {{.Etcd}}
  replicas: 1
  selector:
    matchLabels:
      app: {{.Etcd}}
  template:
    metadata:
      labels:
        app: {{.Etcd}}
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        fsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
      - name: etcd
        image: registry.k8s.io/etcd:3.5.21-0
        command:
        - etcd
        - --name={{.Etcd}}-0
        - --data-dir=/var/lib/etcd
        - --listen-client-urls=http://0.0.0.0:2379
        - --advertise-client-urls=http://{{.Etcd}}-0.{{.Etcd}}.{{.Namespace}}.svc:2379
        - --listen-peer-urls=http://127.0.0.1:2380
        - --listen-metrics-urls=http://0.0.0.0:2381
        - --quota-backend-bytes=2147483648
        - --auto-compaction-mode=periodic
        - --auto-compaction-retention=1h
        ports:
        - name: client
          containerPort: 2379
        readinessProbe:
          httpGet:
            path: /readyz
            port: 2381
        livenessProbe:
          httpGet:
            path: /livez
            port: 2381
          failureThreshold: 8
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            memory: 1Gi
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: [ALL]
        volumeMounts:
        - name: data
          mountPath: /var/lib/etcd
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 2Gi
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{.Etcd}}
  namespace: {{.Namespace}}
spec:
  podSelector:
    matchLabels:
      app: {{.Etcd}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector:
        matchLabels:
          app: {{.Service}}
    ports:
    - port: 2379
`},
	{"base/apiserver.yaml", `# {{.Header}}
# Two replicas of cmd/apiserver in aggregated mode on one etcd. The main
# cluster's aggregator reaches them through the Service, verifying the
# serving certificate (Secret {{.ServingSecret}}) with the APIServices'
# caBundle.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{.Service}}
  namespace: {{.Namespace}}
  labels:
    app: {{.Service}}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {{.Service}}
  template:
    metadata:
      labels:
        app: {{.Service}}
    spec:
      serviceAccountName: {{.Service}}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
      - name: apiserver
        image: {{.Image}}
        imagePullPolicy: IfNotPresent
        args:
        - --mode=aggregated
        - --bind-address=0.0.0.0
        - --secure-port=8443
        - --data-dir=/var/lib/apiserver
        - --etcd-servers=http://{{.Etcd}}-0.{{.Etcd}}.{{.Namespace}}.svc:2379
        - --tls-cert-file=/var/run/serving/tls.crt
        - --tls-private-key-file=/var/run/serving/tls.key
        ports:
        - name: https
          containerPort: 8443
        readinessProbe:
          httpGet:
            scheme: HTTPS
            path: /readyz
            port: https
          periodSeconds: 5
        livenessProbe:
          httpGet:
            scheme: HTTPS
            path: /livez
            port: https
          initialDelaySeconds: 10
          failureThreshold: 6
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            memory: 512Mi
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: [ALL]
        volumeMounts:
        - name: serving
          mountPath: /var/run/serving
          readOnly: true
        - name: data
          mountPath: /var/lib/apiserver
      volumes:
      - name: serving
        secret:
          secretName: {{.ServingSecret}}
      - name: data
        emptyDir: {}
---
apiVersion: v1
kind: Service
metadata:
  name: {{.Service}}
  namespace: {{.Namespace}}
spec:
  selector:
    app: {{.Service}}
  ports:
  - name: https
    port: 443
    targetPort: https
`},
	{"base/apiservices.yaml", `# {{.Header}}
# One APIService per served group-version: the main cluster's aggregator
# proxies /apis/<group>/<version> to the Service. The overlays fill
# caBundle.
{{- range $i, $a := .APIServices}}
{{- if $i}}
---
{{- end}}
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: {{$a.Name}}
spec:
  group: {{$a.Group}}
  version: {{$a.Version}}
  groupPriorityMinimum: 1000
  versionPriority: {{$a.VersionPriority}}
  service:
    name: {{$.Service}}
    namespace: {{$.Namespace}}
    port: 443
{{- end}}
`},
	{"kustomization.yaml", `# {{.Header}}
# The default deployment: the serving certificate comes from certs/, which
#   go run ./cmd/apiserver certs --dir deploy/certs --service {{.Service}} --namespace {{.Namespace}}
# writes (a CA, and a certificate for {{.Service}}.{{.Namespace}}.svc); its
# CA becomes every APIService's caBundle. Apply with kubectl apply -k deploy.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- base
secretGenerator:
- name: {{.ServingSecret}}
  namespace: {{.Namespace}}
  type: kubernetes.io/tls
  files:
  - tls.crt=certs/tls.crt
  - tls.key=certs/tls.key
  - ca=certs/ca.crt
  options:
    disableNameSuffixHash: true
replacements:
- source:
    kind: Secret
    name: {{.ServingSecret}}
    namespace: {{.Namespace}}
    fieldPath: data.ca
  targets:
  - select:
      group: apiregistration.k8s.io
      kind: APIService
    fieldPaths:
    - spec.caBundle
    options:
      create: true
`},
	{".gitignore", `# {{.Header}}
# Serving keys are written here by "apiserver certs"; never commit them.
/certs/
`},
	{"cert-manager/kustomization.yaml", `# {{.Header}}
# The deployment with cert-manager: a self-signed CA issues the serving
# certificate into Secret {{.ServingSecret}}, and cert-manager's CA
# injector fills every APIService's caBundle. Needs cert-manager installed.
# Apply with kubectl apply -k deploy/cert-manager.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../base
- certificates.yaml
patches:
- target:
    group: apiregistration.k8s.io
    kind: APIService
  patch: |-
    apiVersion: apiregistration.k8s.io/v1
    kind: APIService
    metadata:
      name: any
      annotations:
        cert-manager.io/inject-ca-from: {{.Namespace}}/{{.ServingSecret}}
`},
	{"cert-manager/certificates.yaml", `# {{.Header}}
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{.Service}}-selfsigned
  namespace: {{.Namespace}}
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{.Service}}-ca
  namespace: {{.Namespace}}
spec:
  isCA: true
  commonName: {{.Service}}-ca
  secretName: {{.Service}}-ca
  privateKey:
    algorithm: ECDSA
    size: 256
  issuerRef:
    kind: Issuer
    name: {{.Service}}-selfsigned
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{.Service}}-ca
  namespace: {{.Namespace}}
spec:
  ca:
    secretName: {{.Service}}-ca
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{.ServingSecret}}
  namespace: {{.Namespace}}
spec:
  secretName: {{.ServingSecret}}
  dnsNames:
  - {{.Service}}
  - {{.Service}}.{{.Namespace}}
  - {{.Service}}.{{.Namespace}}.svc
  - {{.Service}}.{{.Namespace}}.svc.cluster.local
  privateKey:
    algorithm: ECDSA
    size: 256
  usages: [server auth]
  issuerRef:
    kind: Issuer
    name: {{.Service}}-ca
`},
	{"external-etcd/kustomization.yaml", `# {{.Header}}
# A component: an external etcd cluster over TLS instead of the
# StatefulSet. Put the endpoints in the args below and the client
# certificate in Secret {{.Service}}-etcd-client (ca.crt, tls.crt,
# tls.key), then add to deploy/kustomization.yaml:
#   components:
#   - external-etcd
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
- patch: |-
    $patch: delete
    apiVersion: apps/v1
    kind: StatefulSet
    metadata:
      name: {{.Etcd}}
      namespace: {{.Namespace}}
- patch: |-
    $patch: delete
    apiVersion: v1
    kind: Service
    metadata:
      name: {{.Etcd}}
      namespace: {{.Namespace}}
- patch: |-
    $patch: delete
    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: {{.Etcd}}
      namespace: {{.Namespace}}
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: {{.Service}}
      namespace: {{.Namespace}}
    spec:
      template:
        spec:
          containers:
          - name: apiserver
            args:
            - --mode=aggregated
            - --bind-address=0.0.0.0
            - --secure-port=8443
            - --data-dir=/var/lib/apiserver
            - --etcd-servers=https://etcd-0.example.internal:2379,https://etcd-1.example.internal:2379,https://etcd-2.example.internal:2379
            - --etcd-cafile=/var/run/etcd/ca.crt
            - --etcd-certfile=/var/run/etcd/tls.crt
            - --etcd-keyfile=/var/run/etcd/tls.key
            - --tls-cert-file=/var/run/serving/tls.crt
            - --tls-private-key-file=/var/run/serving/tls.key
            volumeMounts:
            - name: etcd-client
              mountPath: /var/run/etcd
              readOnly: true
          volumes:
          - name: etcd-client
            secret:
              secretName: {{.Service}}-etcd-client
`},
}
