package discovery

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The apidiscovery.k8s.io/v2 (and v2beta1, same shape) types, written here
// because k8s.io/api is not a dependency. Field names and JSON tags follow
// k8s.io/api/apidiscovery/v2.

// GroupName of the aggregated discovery types.
const GroupName = "apidiscovery.k8s.io"

// APIGroupDiscoveryList is the aggregated discovery document of /api or /apis.
type APIGroupDiscoveryList struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ListMeta     `json:"metadata"`
	Items           []APIGroupDiscovery `json:"items"`
}

// APIGroupDiscovery is one group; Metadata.Name is the group name.
type APIGroupDiscovery struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        GroupMeta             `json:"metadata"`
	Versions        []APIVersionDiscovery `json:"versions,omitempty"`
}

// GroupMeta is the part of ObjectMeta a group discovery entry uses.
type GroupMeta struct {
	Name string `json:"name,omitempty"`
}

// APIVersionDiscovery lists the resources of one version.
type APIVersionDiscovery struct {
	Version   string                 `json:"version"`
	Resources []APIResourceDiscovery `json:"resources,omitempty"`
	Freshness string                 `json:"freshness,omitempty"`
}

// Scopes of a resource.
const (
	ScopeNamespace = "Namespaced"
	ScopeCluster   = "Cluster"
)

// APIResourceDiscovery is one resource.
type APIResourceDiscovery struct {
	Resource         string                    `json:"resource"`
	ResponseKind     *metav1.GroupVersionKind  `json:"responseKind"`
	Scope            string                    `json:"scope"`
	SingularResource string                    `json:"singularResource"`
	Verbs            []string                  `json:"verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty"`
	Categories       []string                  `json:"categories,omitempty"`
	Subresources     []APISubresourceDiscovery `json:"subresources,omitempty"`
}

// APISubresourceDiscovery is one subresource.
type APISubresourceDiscovery struct {
	Subresource   string                    `json:"subresource"`
	ResponseKind  *metav1.GroupVersionKind  `json:"responseKind,omitempty"`
	AcceptedTypes []metav1.GroupVersionKind `json:"acceptedTypes,omitempty"`
	Verbs         []string                  `json:"verbs"`
}
