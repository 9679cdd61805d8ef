package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// everydayKind is one kind the everyday kubectl verbs run on.
type everydayKind struct {
	resource string // as kubectl names it
	explain  string // a field path and a phrase of its doc
	doc      string
	// manifest(name, value) is the object with one changeable value.
	manifest func(name, value string) string
	// patch sets the value with kubectl patch's default (strategic) type.
	patch func(value string) string
	// jsonpath reads the value back.
	jsonpath string
	// editFrom/editTo: the line the editor changes.
	editLine func(value string) string
}

var everydayKinds = []everydayKind{
	{
		resource: "shipments.shipping.kubeforge.dev",
		explain:  "shipments.spec.parcels.count", doc: "Count of identical parcels",
		manifest: func(name, city string) string { return shipmentManifest(name, city) },
		patch:    func(city string) string { return fmt.Sprintf(`{"spec":{"origin":{"city":%q}}}`, city) },
		jsonpath: "{.spec.origin.city}",
		editLine: func(city string) string { return "    city: " + city },
	},
	{
		resource: "leases.coordination.k8s.io",
		explain:  "leases.spec.holderIdentity", doc: "holderIdentity contains the identity of the holder",
		manifest: func(name, holder string) string {
			return fmt.Sprintf("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: %s\n  namespace: default\nspec:\n  holderIdentity: %s\n  leaseDurationSeconds: 15\n", name, holder)
		},
		patch:    func(holder string) string { return fmt.Sprintf(`{"spec":{"holderIdentity":%q}}`, holder) },
		jsonpath: "{.spec.holderIdentity}",
		editLine: func(holder string) string { return "  holderIdentity: " + holder },
	},
}

// TestKubectlEverydayVerbs runs the verbs people use every day, with the
// current kubectl and with the oldest one that still builds (1.20, which
// reads OpenAPI v2 as protobuf and sends strategic merge patches from it),
// on one of our kinds and on a built-in kind: api-resources, explain,
// create, apply twice (client-side: a strategic merge patch), edit, diff,
// the default patch (strategic), get -w and delete.
func TestKubectlEverydayVerbs(t *testing.T) {
	s := sharedServer(t)
	for _, v := range []struct{ name, version string }{{"current", ""}, {"legacy-" + LegacyKubectlVersion, LegacyKubectlVersion}} {
		t.Run(v.name, func(t *testing.T) {
			bin := kubectlPath(t)
			if v.version != "" {
				bin = kubectlVersionPath(t, v.version)
			}
			k := newKubectlBin(t, s, bin)
			out := k.ok(t, "", "api-resources")
			for _, want := range []string{`(?m)^shipments\s+shp\s+shipping\.kubeforge\.dev/v1\s+true\s+Shipment`, `(?m)^leases\s+.*coordination\.k8s\.io/v1\s+true\s+Lease`} {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("api-resources does not match %s:\n%s", want, out)
				}
			}
			for i, kind := range everydayKinds {
				t.Run(strings.SplitN(kind.resource, ".", 2)[0], func(t *testing.T) {
					everydayVerbs(t, k, kind, fmt.Sprintf("every-%s-%d", strings.TrimPrefix(v.name, "legacy-v0."), i))
				})
			}
		})
	}
}

func everydayVerbs(t *testing.T, k *kubectl, kind everydayKind, name string) {
	name = strings.ReplaceAll(name, ".", "-")
	dir := kubectlTempDir(t)
	get := func() string {
		t.Helper()
		return k.ok(t, "", "get", kind.resource, name, "-o", "jsonpath="+kind.jsonpath)
	}
	t.Cleanup(func() { k.run(t, "", "delete", kind.resource, name, "--ignore-not-found", "--wait=false") })

	if out := k.ok(t, "", "explain", kind.explain); !strings.Contains(out, kind.doc) {
		t.Errorf("explain %s lacks %q:\n%s", kind.explain, kind.doc, out)
	}
	// apply creates, apply again configures (a strategic merge patch
	// computed from the last-applied annotation and the OpenAPI schema).
	first := writeFile(t, dir, "first.yaml", kind.manifest(name, "one"), 0o644)
	if out := k.ok(t, "", "apply", "-f", first); !strings.Contains(out, " created") {
		t.Errorf("first apply: %q", out)
	}
	second := writeFile(t, dir, "second.yaml", kind.manifest(name, "two"), 0o644)
	if out := k.ok(t, "", "apply", "-f", second); !strings.Contains(out, " configured") {
		t.Errorf("second apply: %q", out)
	}
	if got := get(); got != "two" {
		t.Errorf("after the second apply: %q, want two", got)
	}
	// diff shows a pending change (exit 1) and changes nothing.
	third := writeFile(t, dir, "third.yaml", kind.manifest(name, "three"), 0o644)
	if r := k.run(t, "", "diff", "-f", third); r.code != 1 || !strings.Contains(r.stdout, "three") {
		t.Errorf("diff: want exit 1 showing the change:\n%s", r)
	}
	if got := get(); got != "two" {
		t.Errorf("after diff: %q, want two", got)
	}
	// edit through an editor that changes one line.
	editor := writeFile(t, dir, "editor.sh", fmt.Sprintf("#!/bin/sh\nset -e\ngrep -q '^%s$' \"$1\"\nsed -i 's/^%s$/%s/' \"$1\"\n",
		kind.editLine("two"), kind.editLine("two"), kind.editLine("edited")), 0o755)
	if r := k.withEnv("KUBE_EDITOR="+editor).run(t, "", "edit", kind.resource, name); r.code != 0 || !strings.Contains(r.stdout, " edited") {
		t.Errorf("edit:\n%s", r)
	}
	if got := get(); got != "edited" {
		t.Errorf("after edit: %q, want edited", got)
	}
	// get -w sees the default (strategic) patch.
	watch := k.start(t, "get", kind.resource, name, "-w", "--request-timeout=8s", "-o", "jsonpath="+kind.jsonpath+"{\"\\n\"}")
	time.Sleep(1500 * time.Millisecond)
	if out := k.ok(t, "", "patch", kind.resource, name, "-p", kind.patch("patched")); !strings.Contains(out, " patched") {
		t.Errorf("patch: %q", out)
	}
	if got := get(); got != "patched" {
		t.Errorf("after patch: %q, want patched", got)
	}
	r := await(t, watch, 30*time.Second, "get -w")
	if !strings.Contains(r.stdout, "patched") {
		t.Errorf("get -w did not show the patch:\n%s", r)
	}
	if out := k.ok(t, "", "delete", kind.resource, name); !strings.Contains(out, " deleted") {
		t.Errorf("delete: %q", out)
	}
	if r := k.run(t, "", "get", kind.resource, name); r.code == 0 || !strings.Contains(r.stderr, "NotFound") && !strings.Contains(r.stderr, "not found") {
		t.Errorf("get after delete:\n%s", r)
	}
}
