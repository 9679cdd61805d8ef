package endpoints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

const (
	tableV1      = "application/json;as=Table;v=v1;g=meta.k8s.io"
	tableV1beta1 = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
	kubectlGet   = tableV1 + "," + tableV1beta1 + ",application/json"
)

func TestTable(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "t1", `{"size":"small","replicas":3,"owner":"o@example.dev"}`)
	ts.createWidget(t, "default", "t2", `{}`)
	ready := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	readyJSON, _ := json.Marshal(map[string]any{"status": map[string]any{"readyAt": ready}})
	if r := ts.do(t, "PATCH", widgetsPath("default")+"/t1/status", "application/merge-patch+json", string(readyJSON)); r.code != http.StatusOK {
		t.Fatalf("set readyAt: %s", r)
	}

	r := ts.do(t, "GET", widgetsPath("default")+"?limit=1", "", "", "Accept", kubectlGet)
	if r.code != http.StatusOK || r.header.Get("Content-Type") != jsonType {
		t.Fatalf("table list: %s %v", r, r.header)
	}
	var table metav1.Table
	if err := json.Unmarshal(r.body, &table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
		t.Errorf("table type meta %+v", table.TypeMeta)
	}
	if table.ResourceVersion == "" || table.Continue == "" {
		t.Errorf("list table must keep resourceVersion and continue: %+v", table.ListMeta)
	}
	cols := table.ColumnDefinitions
	wantCols := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Size", Type: "string", Description: "How big."},
		{Name: "Replicas", Type: "integer"},
		{Name: "Ready At", Type: "date"},
		{Name: "Owner", Type: "string", Priority: 1},
	}
	if len(cols) != len(wantCols) {
		t.Fatalf("columns %+v", cols)
	}
	for i, c := range cols {
		w := wantCols[i]
		if c.Name != w.Name || c.Type != w.Type || c.Format != w.Format || c.Priority != w.Priority || (w.Description != "" && c.Description != w.Description) {
			t.Errorf("column %d = %+v, want %+v", i, c, w)
		}
	}
	if !strings.Contains(cols[0].Description, "Name must be unique") {
		t.Errorf("Name column description %q", cols[0].Description)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("rows %+v", table.Rows)
	}
	cells, _ := json.Marshal(table.Rows[0].Cells)
	// A date column shows the age, as kube-apiserver renders custom resources.
	age := duration.HumanDuration(time.Since(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	if string(cells) != `["t1","small",3,"`+age+`","o@example.dev"]` {
		t.Errorf("cells %s", cells)
	}
	var partial metav1.PartialObjectMetadata
	if err := json.Unmarshal(table.Rows[0].Object.Raw, &partial); err != nil {
		t.Fatal(err)
	}
	if partial.Kind != "PartialObjectMetadata" || partial.APIVersion != "meta.k8s.io/v1" || partial.Name != "t1" || partial.UID == "" {
		t.Errorf("row object %s", table.Rows[0].Object.Raw)
	}

	// Nil pointers are nil cells; v1beta1; a single object; includeObject.
	r = ts.do(t, "GET", widgetsPath("default")+"/t2?includeObject=Object", "", "", "Accept", tableV1beta1)
	table = metav1.Table{}
	_ = json.Unmarshal(r.body, &table)
	if table.APIVersion != "meta.k8s.io/v1beta1" || len(table.Rows) != 1 || table.ResourceVersion == "" {
		t.Fatalf("single-object table: %s", r.body)
	}
	cells, _ = json.Marshal(table.Rows[0].Cells)
	if string(cells) != `["t2","medium",1,null,""]` {
		t.Errorf("cells %s", cells)
	}
	var full Widget
	_ = json.Unmarshal(table.Rows[0].Object.Raw, &full)
	if full.Kind != "Widget" || full.APIVersion != testGroup+"/v1" || full.Spec.Size != "medium" {
		t.Errorf("includeObject=Object row: %s", table.Rows[0].Object.Raw)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"?includeObject=None", "", "", "Accept", tableV1)
	m := mustJSON(t, r.body)
	rows, _ := m["rows"].([]any)
	if len(rows) != 2 {
		t.Fatalf("rows: %s", r.body)
	}
	if obj, ok := rows[0].(map[string]any)["object"]; ok && obj != nil {
		t.Errorf("includeObject=None row carries %v", obj)
	}

	// Default columns for a kind without printer columns; YAML Tables.
	if r := ts.do(t, "POST", apiPath+"/gizmos", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Gizmo","metadata":{"name":"g1"},"spec":{}}`); r.code != http.StatusCreated {
		t.Fatal(r)
	}
	r = ts.do(t, "GET", apiPath+"/gizmos", "", "", "Accept", kubectlGet)
	table = metav1.Table{}
	_ = json.Unmarshal(r.body, &table)
	if len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[0].Name != "Name" || table.ColumnDefinitions[1].Name != "Created At" ||
		table.ColumnDefinitions[1].Type != "date" {
		t.Errorf("default columns %+v", table.ColumnDefinitions)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 2 {
		t.Fatalf("default rows: %s", r.body)
	}
	if ts, ok := table.Rows[0].Cells[1].(string); !ok || !strings.HasSuffix(ts, "Z") {
		t.Errorf("Created At cell %v", table.Rows[0].Cells[1])
	}
	r = ts.do(t, "GET", apiPath+"/gizmos", "", "", "Accept", "application/yaml;as=Table;v=v1;g=meta.k8s.io")
	if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/yaml" || !strings.Contains(string(r.body), "kind: Table") {
		t.Errorf("yaml table: %s", r)
	}

	// Empty list table: rows [] and the column definitions.
	r = ts.do(t, "GET", widgetsPath("nothing-here"), "", "", "Accept", kubectlGet)
	m = mustJSON(t, r.body)
	if rows, ok := m["rows"].([]any); !ok || len(rows) != 0 || m["columnDefinitions"] == nil {
		t.Errorf("empty table %s", r.body)
	}

	// An Accept without a known conversion falls through to the next clause.
	r = ts.do(t, "GET", widgetsPath("default")+"/t1", "", "", "Accept", "application/json;as=Unknown;v=v1;g=meta.k8s.io, application/json")
	if r.code != http.StatusOK || decodeWidget(t, r).Kind != "Widget" {
		t.Errorf("fallback to json: %s", r)
	}
}

func TestPartialObjectMetadata(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "p1", `{}`)
	r := ts.do(t, "GET", widgetsPath("default"), "", "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	var pl metav1.PartialObjectMetadataList
	if err := json.Unmarshal(r.body, &pl); err != nil || r.code != http.StatusOK {
		t.Fatalf("partial list: %v %s", err, r)
	}
	if pl.Kind != "PartialObjectMetadataList" || pl.APIVersion != "meta.k8s.io/v1" || len(pl.Items) != 1 ||
		pl.Items[0].Kind != "PartialObjectMetadata" || pl.Items[0].Name != "p1" || pl.ResourceVersion == "" {
		t.Errorf("partial list %s", r.body)
	}
	if strings.Contains(string(r.body), `"spec"`) {
		t.Errorf("partial list carries the spec: %s", r.body)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"/p1", "", "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	var p metav1.PartialObjectMetadata
	_ = json.Unmarshal(r.body, &p)
	if p.Kind != "PartialObjectMetadata" || p.Name != "p1" {
		t.Errorf("partial object %s", r.body)
	}
}

// TestTableColumnsWithName: printer columns that include the name column
// (built-in kinds, printed as kube-apiserver prints them) are the whole
// table: no Name column is added first and the cells are the strategy's.
func TestTableColumnsWithName(t *testing.T) {
	info := widgetInfo
	info.PrinterColumns = []resource.PrinterColumn{
		{Name: "Size", Type: "string"},
		{Name: "Note", Type: "string"},
		{Name: "Name", Type: "string", Format: "name", Priority: 1},
	}
	info.PrinterColumnsWithName = true
	s := newStrategy(&info)
	s.PrinterCells = func(w *Widget) []any { return []any{w.Spec.Size, "  kept as given ", w.Name} }
	ts := &testServer{prefix: "/" + t.Name(), stop: make(chan struct{})}
	ws := new(restful.WebService).Path(apiPath).Produces(endpoints.Produces...)
	install(ws, storage.NewBackend(etcdClient, ts.prefix, storage.BackendOptions{WatchCache: os.Getenv("KUBEFORGE_WATCH_CACHE") != "off"}), s, endpoints.Options{Stop: ts.stop, MaxRequestBodyBytes: 64 * 1024})
	c := restful.NewContainer()
	c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
	c.Add(ws)
	ts.Server = httptest.NewServer(c)
	t.Cleanup(func() {
		close(ts.stop)
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, ts.prefix+"/", clientv3.WithPrefix())
	})
	ts.createWidget(t, "default", "w1", `{"size":"large"}`)

	for _, path := range []string{widgetsPath("default"), widgetsPath("default") + "/w1"} {
		r := ts.do(t, "GET", path, "", "", "Accept", kubectlGet)
		var table metav1.Table
		if err := json.Unmarshal(r.body, &table); err != nil || r.code != http.StatusOK {
			t.Fatalf("GET %s as Table: %v %s", path, err, r)
		}
		var names []string
		for _, c := range table.ColumnDefinitions {
			names = append(names, fmt.Sprintf("%s/%s/%d", c.Name, c.Format, c.Priority))
		}
		if got := strings.Join(names, ","); got != "Size//0,Note//0,Name/name/1" {
			t.Errorf("GET %s: columns %s", path, got)
		}
		if len(table.Rows) != 1 {
			t.Fatalf("GET %s: rows %s", path, r.body)
		}
		if cells, _ := json.Marshal(table.Rows[0].Cells); string(cells) != `["large","  kept as given ","w1"]` {
			t.Errorf("GET %s: cells %s", path, cells)
		}
	}
}
