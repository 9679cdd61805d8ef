module github.com/kubeforge/kubeforge/e2e

go 1.26.0

require (
	github.com/kubeforge/kubeforge v0.0.0
	k8s.io/apimachinery v0.37.2
	k8s.io/client-go v0.37.2
	sigs.k8s.io/controller-runtime v0.25.2
)

replace github.com/kubeforge/kubeforge => ../
