package builtin

import (
	"encoding/json"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The hand-written validation of kube-apiserver's built-in kinds (package
// k8s.io/kubernetes/pkg/apis/*/validation) that their OpenAPI markers do
// not express. The generated Validate<Kind> of a kind listed in
// generators/builtinstrategy calls the function named there, after the
// metadata and marker checks, so that one 422 lists every error as
// kube-apiserver's does.

// standardFinalizers may be written without a domain.
var standardFinalizers = []string{string(corev1.FinalizerKubernetes), metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}

// KubeFinalizerNames checks metadata.finalizers as kube-apiserver's core
// ObjectMeta validation does for core and RBAC kinds (beyond apimachinery's
// qualified-name check): a name without a "/" must be a standard one.
func KubeFinalizerNames[T metav1.Object](obj T) field.ErrorList {
	var errs field.ErrorList
	for i, f := range obj.GetFinalizers() {
		errs = append(errs, kubeFinalizerName(f, field.NewPath("metadata", "finalizers").Index(i))...)
	}
	return errs
}

func kubeFinalizerName(name string, p *field.Path) field.ErrorList {
	if strings.Contains(name, "/") || slices.Contains(standardFinalizers, name) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, name, "name is neither a standard finalizer name nor is it fully qualified")}
}

// ValidateNamespace is kube's ValidateNamespace beyond metadata names:
// every spec.finalizers entry is a qualified name, standard when it has
// no "/"; and its ValidateNamespaceStatusUpdate: the phase is Active
// until the namespace is deleted and Terminating after (unset is
// defaulted).
func ValidateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := KubeFinalizerNames(ns)
	phase := field.NewPath("status", "Phase") // kube's path, capital P
	switch deleting := !ns.DeletionTimestamp.IsZero(); {
	case ns.Status.Phase == "":
	case !deleting && ns.Status.Phase != corev1.NamespaceActive:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
	case deleting && ns.Status.Phase != corev1.NamespaceTerminating:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	p := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		for _, msg := range validation.IsQualifiedName(string(f)) {
			errs = append(errs, field.Invalid(p, string(f), msg))
		}
		errs = append(errs, kubeFinalizerName(string(f), p)...)
	}
	return errs
}

// ValidateSecret is kube's ValidateSecret beyond data keys and size (the
// Secret's Admit hook): finalizer names, and the keys a typed Secret
// must carry. It runs on the prepared Secret (stringData merged).
func ValidateSecret(s *corev1.Secret) field.ErrorList {
	errs := KubeFinalizerNames(s)
	data := field.NewPath("data")
	required := func(key string) {
		errs = append(errs, field.Required(data.Key(key), ""))
	}
	wellFormed := func(key string) {
		raw, ok := s.Data[key]
		if !ok {
			required(key)
			return
		}
		if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(data.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		wellFormed(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		wellFormed(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			required(corev1.BasicAuthUsernameKey)
			required(corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			required(corev1.SSHAuthPrivateKey)
		}
	case corev1.SecretTypeTLS:
		if _, ok := s.Data[corev1.TLSCertKey]; !ok {
			required(corev1.TLSCertKey)
		}
		if _, ok := s.Data[corev1.TLSPrivateKeyKey]; !ok {
			required(corev1.TLSPrivateKeyKey)
		}
	}
	return errs
}

// leaseStrategies are the strategies kube names without a domain.
var leaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

// ValidateLease is kube's ValidateLeaseSpec. Its error paths, quirks
// included (a strategy's is spec.strategy.strategy), are kube's.
func ValidateLease(l *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if n := l.Spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseTransitions"), n, "must be greater than or equal to 0"))
	}
	if st := l.Spec.Strategy; st != nil {
		p := spec.Child("strategy").Child("strategy")
		if !strings.Contains(string(*st), "/") {
			if !slices.Contains(leaseStrategies, *st) {
				errs = append(errs, field.NotSupported(p, *st, leaseStrategies))
			}
		} else {
			for _, msg := range validation.IsQualifiedName(string(*st)) {
				errs = append(errs, field.Invalid(p, *st, msg))
			}
		}
	}
	if h := l.Spec.PreferredHolder; h != nil && *h != "" && (l.Spec.Strategy == nil || *l.Spec.Strategy == "") {
		errs = append(errs, field.Forbidden(spec.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}
