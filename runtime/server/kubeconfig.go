package server

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

type kubeconfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	Clusters       []namedCluster `json:"clusters"`
	Contexts       []namedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
	Users          []namedUser    `json:"users"`
	Preferences    struct{}       `json:"preferences"`
}

type namedCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                   string `json:"server"`
		CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	} `json:"cluster"`
}

type namedContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

type namedUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
		ClientKeyData         []byte `json:"client-key-data,omitempty"`
	} `json:"user"`
}

// writeKubeconfig writes a kubeconfig reaching url with the generated CA
// and the admin client certificate (none with plain HTTP), atomically
// (temporary file, then rename) so that readers never see a partial file;
// it is readable by the server's user only.
func writeKubeconfig(path, url string, sec *security) error {
	const name = "kubeforge"
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: name}
	var c namedCluster
	c.Name, c.Cluster.Server = name, url
	var x namedContext
	x.Name, x.Context.Cluster, x.Context.User = name, name, "admin"
	u := namedUser{Name: "admin"}
	if sec != nil {
		c.Cluster.CertificateAuthorityData = sec.caPEM
		u.User.ClientCertificateData, u.User.ClientKeyData = sec.admin.CertPEM, sec.admin.KeyPEM
	}
	kc.Clusters = []namedCluster{c}
	kc.Contexts = []namedContext{x}
	kc.Users = []namedUser{u}
	data, err := yaml.Marshal(kc)
	if err != nil {
		return fmt.Errorf("encode kubeconfig: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}
