// Package encryption reads kube-apiserver's EncryptionConfiguration
// (--encryption-provider-config) into the value transformers that
// runtime/storage applies to the values of the resources it names.
//
// The providers are Kubernetes' own (k8s.io/apiserver/pkg/storage/value):
// aesgcm, aescbc, secretbox and identity, with kube's prefixes
// ("k8s:enc:aesgcm:v1:<key name>:"), so the bytes in etcd are those
// kube-apiserver writes and reads. kms is not supported. The first
// provider's first key writes; every listed key reads, and a value read
// with any other key is stale and rewritten by the next update, which is
// how keys rotate.
package encryption

import (
	"bytes"
	"crypto/aes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/apiserver/pkg/storage/value/encrypt/secretbox"
	"sigs.k8s.io/yaml"
)

// Config is a loaded EncryptionConfiguration.
type Config struct {
	// byResource maps a group-resource, "*" in Resource for every resource
	// of a group and in both for every resource, to its transformer.
	byResource map[schema.GroupResource]value.Transformer
	resources  []string
}

// Load reads the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read encryption config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load encryption config %s: %w", path, err)
	}
	return c, nil
}

// Parse reads an EncryptionConfiguration in YAML or JSON.
func Parse(data []byte) (*Config, error) {
	var ec apiserverv1.EncryptionConfiguration
	if err := yaml.UnmarshalStrict(data, &ec); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if ec.APIVersion != apiserverv1.SchemeGroupVersion.String() || ec.Kind != "EncryptionConfiguration" {
		return nil, fmt.Errorf("want apiVersion %s and kind EncryptionConfiguration, got %q and %q", apiserverv1.SchemeGroupVersion, ec.APIVersion, ec.Kind)
	}
	if len(ec.Resources) == 0 {
		return nil, errors.New("resources: must list at least one")
	}
	c := &Config{byResource: map[schema.GroupResource]value.Transformer{}}
	for i, rc := range ec.Resources {
		at := fmt.Sprintf("resources[%d]", i)
		if len(rc.Resources) == 0 {
			return nil, fmt.Errorf("%s.resources: must list at least one", at)
		}
		if len(rc.Providers) == 0 {
			return nil, fmt.Errorf("%s.providers: must list at least one", at)
		}
		var prefixed []value.PrefixTransformer
		for j, p := range rc.Providers {
			ts, err := providerTransformers(p)
			if err != nil {
				return nil, fmt.Errorf("%s.providers[%d]: %w", at, j, err)
			}
			prefixed = append(prefixed, ts...)
		}
		t := value.NewPrefixTransformers(fmt.Errorf("no provider of resources[%d] can read the stored value", i), prefixed...)
		for j, r := range rc.Resources {
			gr, err := parseResource(r)
			if err != nil {
				return nil, fmt.Errorf("%s.resources[%d]: %w", at, j, err)
			}
			if _, dup := c.byResource[gr]; dup {
				return nil, fmt.Errorf("%s.resources[%d]: %q is listed twice", at, j, r)
			}
			c.byResource[gr] = t
			c.resources = append(c.resources, r)
		}
	}
	return c, nil
}

// parseResource reads "<resource>.<group>", "<resource>" or
// "<resource>." for the core group, "*.<group>", "*." or "*.*".
func parseResource(r string) (schema.GroupResource, error) {
	if r != strings.ToLower(r) || strings.TrimSpace(r) != r || r == "" {
		return schema.GroupResource{}, fmt.Errorf("%q: must be a lowercase resource name", r)
	}
	gr := schema.ParseGroupResource(r)
	if gr.Resource == "*" && !strings.Contains(r, ".") {
		return schema.GroupResource{}, fmt.Errorf("%q: a wildcard must name a group (\"*.<group>\", \"*.\" for the core group or \"*.*\")", r)
	}
	if gr.Group == "*" && gr.Resource != "*" {
		return schema.GroupResource{}, fmt.Errorf("%q: a resource in every group is not supported; use \"*.*\"", r)
	}
	if strings.Contains(gr.Resource, "*") && gr.Resource != "*" || strings.Contains(gr.Group, "*") && gr.Group != "*" {
		return schema.GroupResource{}, fmt.Errorf("%q: \"*\" must stand alone", r)
	}
	return gr, nil
}

// providerTransformers returns one prefixed transformer per key of p.
func providerTransformers(p apiserverv1.ProviderConfiguration) ([]value.PrefixTransformer, error) {
	set := 0
	for _, ok := range []bool{p.AESGCM != nil, p.AESCBC != nil, p.Secretbox != nil, p.Identity != nil, p.KMS != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, errors.New("exactly one of aesgcm, aescbc, secretbox or identity must be set")
	}
	switch {
	case p.KMS != nil:
		return nil, errors.New("kms: not supported; use aesgcm, aescbc or secretbox")
	case p.Identity != nil:
		return []value.PrefixTransformer{{Transformer: identity.NewEncryptCheckTransformer()}}, nil
	case p.AESGCM != nil:
		return keyed("aesgcm", p.AESGCM.Keys, []int{16, 24, 32}, func(k []byte) (value.Transformer, error) {
			block, err := aes.NewCipher(k)
			if err != nil {
				return nil, err
			}
			return aestransformer.NewGCMTransformer(block)
		})
	case p.AESCBC != nil:
		return keyed("aescbc", p.AESCBC.Keys, []int{32}, func(k []byte) (value.Transformer, error) {
			block, err := aes.NewCipher(k)
			if err != nil {
				return nil, err
			}
			return aestransformer.NewCBCTransformer(block), nil
		})
	default:
		return keyed("secretbox", p.Secretbox.Keys, []int{32}, func(k []byte) (value.Transformer, error) {
			return secretbox.NewSecretboxTransformer([32]byte(k)), nil
		})
	}
}

func keyed(provider string, keys []apiserverv1.Key, sizes []int, build func([]byte) (value.Transformer, error)) ([]value.PrefixTransformer, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s.keys: must list at least one key", provider)
	}
	var out []value.PrefixTransformer
	seen := map[string]bool{}
	for i, k := range keys {
		at := fmt.Sprintf("%s.keys[%d]", provider, i)
		if k.Name == "" || strings.Contains(k.Name, ":") {
			return nil, fmt.Errorf("%s.name: must be non-empty and contain no ':'", at)
		}
		if seen[k.Name] {
			return nil, fmt.Errorf("%s.name: %q is used twice", at, k.Name)
		}
		seen[k.Name] = true
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("%s.secret: not base64: %w", at, err)
		}
		if !slices.Contains(sizes, len(secret)) {
			return nil, fmt.Errorf("%s.secret: %d bytes, want %s", at, len(secret), sizesText(sizes))
		}
		t, err := build(secret)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		out = append(out, value.PrefixTransformer{Prefix: []byte("k8s:enc:" + provider + ":v1:" + k.Name + ":"), Transformer: t})
	}
	return out, nil
}

func sizesText(sizes []int) string {
	var b bytes.Buffer
	for i, s := range sizes {
		if i > 0 {
			b.WriteString(" or ")
		}
		fmt.Fprint(&b, s)
	}
	return b.String()
}

// TransformerFor returns the transformer of gr: its own entry, else its
// group's "*.<group>", else "*.*"; nil when gr is stored as it is.
func (c *Config) TransformerFor(gr schema.GroupResource) value.Transformer {
	if c == nil {
		return nil
	}
	for _, k := range []schema.GroupResource{gr, {Group: gr.Group, Resource: "*"}, {Group: "*", Resource: "*"}} {
		if t, ok := c.byResource[k]; ok {
			return t
		}
	}
	return nil
}

// Resources lists the configured resource entries, in file order.
func (c *Config) Resources() []string { return append([]string(nil), c.resources...) }
