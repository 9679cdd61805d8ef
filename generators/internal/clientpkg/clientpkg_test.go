package clientpkg

import (
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/generators/model"
)

func group(name, file string, kinds ...string) *model.Group {
	g := &model.Group{Name: name}
	v := &model.Version{Group: g, Name: "v1", Pos: markers.Position{File: file, Line: 1, Column: 1}}
	for _, k := range kinds {
		v.Kinds = append(v.Kinds, &model.Kind{Version: v, Name: k, Served: true})
	}
	g.Versions = []*model.Version{v}
	return g
}

func TestGroups(t *testing.T) {
	api := &model.API{Groups: []*model.Group{
		group("fleet.example.dev", "types/fleet/v1/doc.go", "Truck"),
		group("empty.example.dev", "types/empty/v1/doc.go"),
		group("my-apps.example.dev", "types/apps/v1/doc.go", "App"),
	}}
	groups, err := Groups(api)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, g.Pkg+"/"+g.GoName+"/"+g.Versions[0].Prefix())
	}
	if strings.Join(got, " ") != "fleet/Fleet/FleetV1 myapps/Myapps/MyappsV1" {
		t.Errorf("groups = %v", got)
	}
	api.Groups = append(api.Groups, group("fleet.other.io", "types/fleet2/v1/doc.go", "Ship"))
	_, err = Groups(api)
	if err == nil || !strings.Contains(err.Error(), "types/fleet2/v1/doc.go:1:1: group fleet.other.io and group fleet.example.dev") {
		t.Errorf("colliding groups: %v", err)
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{"Shipment": "Shipments", "Policy": "Policies", "Gateway": "Gateways", "Address": "Addresses", "Box": "Boxes", "Patch": "Patches"} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%s) = %s, want %s", kind, got, want)
		}
	}
}
