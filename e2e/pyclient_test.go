package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// pyclientScript drives the server with the official Python client.
const pyclientScript = "testdata/pyclient/client.py"

// TestPythonClient drives the server with the official Python client (the
// kubernetes package 22.6, Debian 12's python3-kubernetes) through
// testdata/pyclient/client.py: HTTP/1.1 through urllib3, booleans in
// queries written "True", every typed answer parsed into the client's
// models. On Shipments through CustomObjectsApi: create (and a dry run),
// get, a list by label, replace and a stale replace (409), an invalid
// create (422), an existing name (409), a missing one (404), a merge patch
// and a list sent as a merge patch (400), the status subresource, a watch
// from a list's resourceVersion with a BOOKMARK, a list paginated by limit
// and continue, deletes with DeleteOptions in the body and the query. On
// ConfigMaps through the typed CoreV1Api: create, get, a strategic merge
// patch, replace and a stale one, JSON patches (one whose test fails), list,
// delete and a watch parsed into V1ConfigMap models; a Lease whose MicroTime
// fields round-trip as datetimes. Through the dynamic client: discovery of
// a namespaced and a cluster-scoped kind, server-side apply (create, no-op,
// conflict, force=True, dry run), patches of every content type, a list,
// deletes with a body and a stale uid precondition, a collection delete.
// The script records every answer; the assertions are here, each saying
// what kube-apiserver answers.
//
// A python3 that imports kubernetes must be installed (as root with apt-get
// the test installs python3-kubernetes); the test fails, never skips,
// without one.
func TestPythonClient(t *testing.T) {
	python := pythonWithClient(t)
	s := sharedServer(t)
	namespace := "pyclient-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	s.ensureNamespaces(t, namespace)
	out := runPyClient(t, python, s, namespace)
	if !strings.HasPrefix(out.ClientVersion, "2") {
		t.Logf("Python client %s (the script is written against 22.6)", out.ClientVersion)
	}
	checkPyCustomObjects(t, out, namespace)
	checkPyWatchAndPages(t, out, namespace)
	checkPyTyped(t, out)
	checkPyDynamic(t, out, namespace)
}

// pythonWithClient finds a python3 that imports the kubernetes package:
// python3 on PATH, then Debian's /usr/bin/python3 (a pyenv or venv python3
// on PATH does not see Debian's packages), installing python3-kubernetes
// with apt-get when none does and the test runs as root.
func pythonWithClient(t *testing.T) string {
	t.Helper()
	find := func() (string, []string) {
		var tried []string
		candidates := []string{"/usr/bin/python3"}
		if p, err := exec.LookPath("python3"); err == nil {
			candidates = append([]string{p}, candidates...)
		}
		for _, p := range candidates {
			out, err := exec.Command(p, "-c", "import kubernetes; print(kubernetes.__version__)").CombinedOutput()
			if err == nil {
				t.Logf("%s: kubernetes %s", p, strings.TrimSpace(string(out)))
				return p, nil
			}
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
		}
		return "", tried
	}
	python, tried := find()
	if python != "" {
		return python
	}
	t.Logf("no python3 imports kubernetes (%s)", strings.Join(tried, "; "))
	if aptInstall(t, "python3-kubernetes") {
		if python, tried = find(); python != "" {
			return python
		}
	}
	t.Fatalf("TestPythonClient needs a python3 that imports the kubernetes package (%s); install it (apt-get install python3-kubernetes, or pip install kubernetes)", strings.Join(tried, "; "))
	return ""
}

// runPyClient runs client.py with python against s in namespace and
// decodes what it prints.
func runPyClient(t *testing.T, python string, s *apiserver, namespace string) *pyOutput {
	t.Helper()
	script, err := filepath.Abs(pyclientScript)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out pyOutput
	runClientProgram(t, dir, []string{
		"KUBECONFIG=" + filepath.Join(s.dataDir, "admin.kubeconfig"),
		"PYCLIENT_NAMESPACE=" + namespace,
		"PYCLIENT_CACHE=" + dir,
		// Two of the server's bookmark periods and a margin.
		"PYCLIENT_BOOKMARK_WAIT_S=" + strconv.Itoa(int((2*storage.DefaultBookmarkInterval+5*time.Second)/time.Second)),
		"PYTHONDONTWRITEBYTECODE=1",
	}, &out, python, script)
	for _, name := range slices.Sorted(maps.Keys(out.Steps)) {
		if ct := out.Steps[name].ContentType; ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", name, ct)
		}
	}
	return &out
}

// pyOutput is the document client.py prints.
type pyOutput struct {
	ClientVersion string            `json:"clientVersion"`
	Steps         map[string]jsStep `json:"steps"`
	Pages         []struct {
		ResourceVersion string   `json:"resourceVersion"`
		Continue        string   `json:"continue"`
		Names           []string `json:"names"`
	} `json:"pages"`
	Watch struct {
		ListResourceVersion string    `json:"listResourceVersion"`
		Events              []jsEvent `json:"events"`
		Error               string    `json:"error"`
	} `json:"watch"`
	TypedWatch struct {
		Events []jsEvent `json:"events"`
		Error  string    `json:"error"`
	} `json:"typedWatch"`
	Discovery map[string]struct {
		Name         string   `json:"name"`
		Namespaced   bool     `json:"namespaced"`
		ShortNames   []string `json:"shortNames"`
		Verbs        []string `json:"verbs"`
		Subresources []string `json:"subresources"`
		Path         string   `json:"path"`
	} `json:"discovery"`
	Typed struct {
		LeaseRenewTimeSent             string `json:"leaseRenewTimeSent"`
		LeaseRenewTimeRead             string `json:"leaseRenewTimeRead"`
		ConfigMapCreationTimestampType string `json:"configMapCreationTimestampType"`
	} `json:"typed"`
}

// step is the answer recorded under name, as for the JavaScript client.
func (o *pyOutput) step(t testing.TB, name string) jsStep {
	t.Helper()
	return (&jsOutput{Steps: o.Steps}).step(t, name)
}

func checkPyCustomObjects(t *testing.T, out *pyOutput, namespace string) {
	const group = "shipping.kubeforge.dev"
	created := out.step(t, "create").want(t, 201).object(t)
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 {
		t.Errorf("create: uid %q resourceVersion %q generation %d, want both set and generation 1", created.GetUID(), created.GetResourceVersion(), created.GetGeneration())
	}
	for path, want := range map[string]any{
		"metadata.namespace": namespace, "spec.priority": "Normal", "spec.origin.country": "DE",
		"spec.parcels[0].count": int64(1), "metadata.managedFields[0]": "present",
	} {
		expectField(t, "create", created, path, want)
	}
	dry := out.step(t, "createDryRun").want(t, 201).object(t)
	expectField(t, "createDryRun", dry, "metadata.resourceVersion", nil)
	out.step(t, "getDryRun").failure(t, 404, metav1.StatusReasonNotFound)

	got := out.step(t, "get").want(t, 200).object(t)
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("get: uid %q resourceVersion %q, want the created %q %q", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}
	out.step(t, "createSecond").want(t, 201)
	if names := itemNames(t, out.step(t, "listGold").want(t, 200).object(t)); !reflect.DeepEqual(names, []string{"py-a"}) {
		t.Errorf("listGold: labelSelector app=pyclient,tier=gold listed %v, want [py-a]", names)
	}

	replaced := out.step(t, "replace").want(t, 200).object(t)
	expectField(t, "replace", replaced, "spec.tags", []any{"replaced"})
	if replaced.GetGeneration() != 2 {
		t.Errorf("replace: generation %d, want 2", replaced.GetGeneration())
	}
	conflict := out.step(t, "replaceStale").failure(t, 409, metav1.StatusReasonConflict)
	wantMessage(t, "replaceStale", conflict, `Operation cannot be fulfilled on shipments.shipping.kubeforge.dev "py-a": the object has been modified; please apply your changes to the latest version and try again`)
	invalid := out.step(t, "createInvalid").failure(t, 422, metav1.StatusReasonInvalid)
	wantDetails(t, "createInvalid", invalid, "py-invalid", group, "Shipment")
	float := out.step(t, "createIntegralFloat").want(t, 201).object(t)
	expectField(t, "createIntegralFloat", float, "spec.parcels[0].count", int64(3))
	leaseFloat := out.step(t, "leaseIntegralFloat").failure(t, 400, metav1.StatusReasonBadRequest)
	if !strings.Contains(leaseFloat.Message, "cannot unmarshal number 15.0") {
		t.Errorf("leaseIntegralFloat: message %q, want kube's typed decoder's refusal of 15.0", leaseFloat.Message)
	}
	// A value of the wrong type: kube's 422 for a custom resource, with
	// the schema's message and a cause naming the field.
	wrong := out.step(t, "createWrongType").failure(t, 422, metav1.StatusReasonInvalid)
	wantMessage(t, "createWrongType", wrong, `Shipment.shipping.kubeforge.dev "py-wrong" is invalid: spec.parcels[0].count: Invalid value: "string": spec.parcels[0].count in body must be of type integer: "string"`)
	heavy := out.step(t, "createBadQuantity").failure(t, 422, metav1.StatusReasonInvalid)
	if !strings.HasPrefix(heavy.Message, `Shipment.shipping.kubeforge.dev "py-heavy" is invalid: spec.parcels[0].weight: Invalid value: "heavy": spec.parcels[0].weight in body should match '^(\+|-)?`) {
		t.Errorf("createBadQuantity: message %q, want the quantity pattern's 422", heavy.Message)
	}
	exists := out.step(t, "createExists").failure(t, 409, metav1.StatusReasonAlreadyExists)
	wantMessage(t, "createExists", exists, `shipments.shipping.kubeforge.dev "py-a" already exists`)
	missing := out.step(t, "getMissing").failure(t, 404, metav1.StatusReasonNotFound)
	wantDetails(t, "getMissing", missing, "py-missing", group, "shipments")

	merged := out.step(t, "patchMerge").want(t, 200).object(t)
	expectField(t, "patchMerge", merged, "metadata.labels.patched", "merge")
	expectField(t, "patchMerge", merged, "spec.carrier", "dhl")
	expectField(t, "patchMerge", merged, "spec.tags", []any{"replaced"})
	// The client sends a list as a merge patch too: kube answers 400
	// ("error decoding patch: ...") and changes nothing.
	notMerge := out.step(t, "patchListAsMerge").failure(t, 400, metav1.StatusReasonBadRequest)
	if !strings.HasPrefix(notMerge.Message, "error decoding patch: ") {
		t.Errorf("patchListAsMerge: message %q, want kube's prefix %q", notMerge.Message, "error decoding patch: ")
	}

	out.step(t, "statusGet").want(t, 200)
	statusReplaced := out.step(t, "statusReplace").want(t, 200).object(t)
	expectField(t, "statusReplace", statusReplaced, "status.phase", "InTransit")
	expectField(t, "statusReplace", statusReplaced, "spec.carrier", "dhl")
	statusPatched := out.step(t, "statusPatch").want(t, 200).object(t)
	expectField(t, "statusPatch", statusPatched, "status.attempts", int64(2))
	expectField(t, "statusPatch", statusPatched, "status.phase", "InTransit")
	if statusPatched.GetGeneration() != 3 {
		t.Errorf("statusPatch: generation %d, want 3 (replace and merge patch of the spec; status writes leave it)", statusPatched.GetGeneration())
	}

	// Foreground: 200 with the object, marked; Background and a bare
	// delete: a Success Status.
	fg := out.step(t, "deleteForeground").want(t, 200).object(t)
	if fg.GetKind() != "Shipment" || fg.GetDeletionTimestamp() == nil || !slices.Contains(fg.GetFinalizers(), metav1.FinalizerDeleteDependents) {
		t.Errorf("deleteForeground (DeleteOptions in the body): kind %q deletionTimestamp %v finalizers %v, want the Shipment with a deletionTimestamp and the %s finalizer",
			fg.GetKind(), fg.GetDeletionTimestamp(), fg.GetFinalizers(), metav1.FinalizerDeleteDependents)
	}
	bg := out.step(t, "deleteBackground").want(t, 200).status(t)
	if bg.Status != metav1.StatusSuccess {
		t.Errorf("deleteBackground: status %q, want Success", bg.Status)
	}
	wantDetails(t, "deleteBackground", bg, "py-b", group, "shipments")
	out.step(t, "deleteMissing").failure(t, 404, metav1.StatusReasonNotFound)
}

func checkPyWatchAndPages(t *testing.T, out *pyOutput, namespace string) {
	created := out.step(t, "watchCreate").want(t, 201).object(t)
	patched := out.step(t, "watchPatch").want(t, 200).object(t)
	out.step(t, "watchDelete").want(t, 200).status(t)
	if out.Watch.Error != "" {
		t.Errorf("watch: %s", out.Watch.Error)
	}
	var changes, rvs []string
	bookmarks := 0
	for i, e := range out.Watch.Events {
		if e.Kind != "Shipment" || e.APIVersion != "shipping.kubeforge.dev/v1" {
			t.Errorf("watch: event %d (%s) kind %q apiVersion %q, want Shipment shipping.kubeforge.dev/v1", i, e.Type, e.Kind, e.APIVersion)
		}
		if e.Type == "BOOKMARK" {
			bookmarks++
			continue
		}
		if e.Namespace != namespace {
			t.Errorf("watch of namespace %s: event %d (%s %s) of namespace %q", namespace, i, e.Type, e.Name, e.Namespace)
		}
		changes = append(changes, e.Type+" "+e.Name)
		rvs = append(rvs, e.ResourceVersion)
	}
	if want := []string{"ADDED py-w", "MODIFIED py-w", "DELETED py-w"}; !reflect.DeepEqual(changes, want) {
		t.Errorf("watch from resourceVersion %s: events %q, want %q", out.Watch.ListResourceVersion, changes, want)
	} else if want := []string{created.GetResourceVersion(), patched.GetResourceVersion()}; !reflect.DeepEqual(rvs[:2], want) {
		t.Errorf("watch: resourceVersions of ADDED and MODIFIED %q, want the create's and the patch's %q", rvs[:2], want)
	}
	if bookmarks == 0 {
		t.Errorf("watch with allow_watch_bookmarks: no BOOKMARK after the DELETED event (the server sends one every %s)", storage.DefaultBookmarkInterval)
	}

	out.step(t, "pageCreateLate").want(t, 201)
	var sizes []int
	var listed []string
	for i, p := range out.Pages {
		sizes = append(sizes, len(p.Names))
		listed = append(listed, p.Names...)
		if p.ResourceVersion != out.Pages[0].ResourceVersion {
			t.Errorf("page %d: resourceVersion %q, want the first page's %q", i, p.ResourceVersion, out.Pages[0].ResourceVersion)
		}
	}
	if !reflect.DeepEqual(sizes, []int{3, 3, 1}) {
		t.Errorf("paginated list (limit 3, continue): page sizes %v, want [3 3 1]", sizes)
	}
	if want := []string{"py-p-0", "py-p-1", "py-p-2", "py-p-3", "py-p-4", "py-p-5", "py-p-6"}; !reflect.DeepEqual(listed, want) {
		t.Errorf("paginated list: %v, want each of %v once, in name order (py-p-late came after the first page)", listed, want)
	}
}

func checkPyTyped(t *testing.T, out *pyOutput) {
	out.step(t, "configMapCreate").want(t, 201)
	cm := out.step(t, "configMapGet").want(t, 200).object(t)
	expectField(t, "configMapGet", cm, "data.greeting", "hello")
	if out.Typed.ConfigMapCreationTimestampType != "datetime" {
		t.Errorf("configMapGet: the model's creation_timestamp is a %s, want a datetime", out.Typed.ConfigMapCreationTimestampType)
	}
	// A dict is sent as a strategic merge patch (built-in kinds take it).
	smp := out.step(t, "configMapPatch").want(t, 200).object(t)
	expectField(t, "configMapPatch", smp, "data.extra", "x")
	expectField(t, "configMapPatch", smp, "data.greeting", "hello")
	expectField(t, "configMapPatch", smp, "metadata.labels.patched", "yes")
	replaced := out.step(t, "configMapReplace").want(t, 200).object(t)
	expectField(t, "configMapReplace", replaced, "data.greeting", "hi")
	out.step(t, "configMapReplaceStale").failure(t, 409, metav1.StatusReasonConflict)
	jp := out.step(t, "configMapPatchJSON").want(t, 200).object(t)
	expectField(t, "configMapPatchJSON", jp, "data.extra", nil)
	expectField(t, "configMapPatchJSON", jp, "data.greeting", "hi")
	failed := out.step(t, "configMapPatchJSONFailedTest").failure(t, 422, metav1.StatusReasonInvalid)
	if !strings.Contains(failed.Message, "test failed") {
		t.Errorf("configMapPatchJSONFailedTest: message %q, want the failed test named", failed.Message)
	}
	if names := itemNames(t, out.step(t, "configMapList").want(t, 200).object(t)); !reflect.DeepEqual(names, []string{"py-cm"}) {
		t.Errorf("configMapList: %v, want [py-cm]", names)
	}
	del := out.step(t, "configMapDelete").want(t, 200).status(t)
	if del.Status != metav1.StatusSuccess {
		t.Errorf("configMapDelete: status %q, want Success", del.Status)
	}
	out.step(t, "configMapGetDeleted").failure(t, 404, metav1.StatusReasonNotFound)

	// The watch parsed every event into a V1ConfigMap: create, the
	// strategic merge patch, the replace, the JSON patch, the delete.
	if out.TypedWatch.Error != "" {
		t.Errorf("typed watch: %s", out.TypedWatch.Error)
	}
	var events []string
	for _, e := range out.TypedWatch.Events {
		events = append(events, e.Type+" "+e.Kind+" "+e.Name)
	}
	if want := []string{"ADDED ConfigMap py-cm", "MODIFIED ConfigMap py-cm", "MODIFIED ConfigMap py-cm", "MODIFIED ConfigMap py-cm", "DELETED ConfigMap py-cm"}; !reflect.DeepEqual(events, want) {
		t.Errorf("typed watch of ConfigMaps: %q, want %q", events, want)
	}

	out.step(t, "leaseCreate").want(t, 201)
	if out.Typed.LeaseRenewTimeRead != out.Typed.LeaseRenewTimeSent {
		t.Errorf("lease: spec.renew_time read back as %s, want the %s written (MicroTime keeps microseconds)", out.Typed.LeaseRenewTimeRead, out.Typed.LeaseRenewTimeSent)
	}
	out.step(t, "leaseDelete").want(t, 200)
}

func checkPyDynamic(t *testing.T, out *pyOutput, namespace string) {
	shp, wh := out.Discovery["shipment"], out.Discovery["warehouse"]
	if shp.Name != "shipments" || !shp.Namespaced || !reflect.DeepEqual(shp.ShortNames, []string{"shp"}) || !reflect.DeepEqual(shp.Subresources, []string{"status"}) ||
		shp.Path != "/apis/shipping.kubeforge.dev/v1/namespaces/"+namespace+"/shipments/x" {
		t.Errorf("discovery of Shipment: %+v, want shipments, namespaced, short name shp, subresource status", shp)
	}
	if want := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}; !reflect.DeepEqual(shp.Verbs, want) {
		t.Errorf("discovery of Shipment: verbs %v, want %v", shp.Verbs, want)
	}
	if wh.Name != "warehouses" || wh.Namespaced || wh.Path != "/apis/infra.kubeforge.dev/v1/warehouses/x" {
		t.Errorf("discovery of Warehouse: %+v, want warehouses, cluster-scoped", wh)
	}

	// Server-side apply sent as YAML text: creates (201), a no-op apply
	// writes nothing (same resourceVersion), another manager's different
	// value conflicts (409 with a cause per field), force=True takes it.
	applied := out.step(t, "applyCreate").want(t, 201).object(t)
	expectField(t, "applyCreate", applied, "spec.carrier", "dhl")
	expectField(t, "applyCreate", applied, "spec.priority", "Normal")
	again := out.step(t, "applyAgain").want(t, 200).object(t)
	if again.GetResourceVersion() != applied.GetResourceVersion() {
		t.Errorf("applyAgain: resourceVersion %q, want %q (an apply that changes nothing is not written)", again.GetResourceVersion(), applied.GetResourceVersion())
	}
	conflict := out.step(t, "applyConflict").failure(t, 409, metav1.StatusReasonConflict)
	wantMessage(t, "applyConflict", conflict, `Apply failed with 1 conflict: conflict with "py-a": .spec.carrier`)
	if conflict.Details == nil || len(conflict.Details.Causes) != 1 || conflict.Details.Causes[0].Type != metav1.CauseTypeFieldManagerConflict || conflict.Details.Causes[0].Field != ".spec.carrier" {
		t.Errorf("applyConflict: details %+v, want one FieldManagerConflict cause for .spec.carrier", conflict.Details)
	}
	forced := out.step(t, "applyForce").want(t, 200).object(t)
	expectField(t, "applyForce", forced, "spec.carrier", "ups")
	owners := map[string]bool{}
	for _, e := range forced.GetManagedFields() {
		var set map[string]any
		if e.FieldsV1 != nil && json.Unmarshal(e.FieldsV1.Raw, &set) == nil {
			if spec, ok := set["f:spec"].(map[string]any); ok {
				if _, ok := spec["f:carrier"]; ok {
					owners[e.Manager] = true
				}
			}
		}
	}
	if !reflect.DeepEqual(owners, map[string]bool{"py-b": true}) {
		t.Errorf("applyForce (force=True): spec.carrier owned by %v, want py-b alone", owners)
	}
	dry := out.step(t, "applyDryRun").want(t, 201).object(t)
	expectField(t, "applyDryRun", dry, "metadata.resourceVersion", nil)
	out.step(t, "dynamicGetDryRun").failure(t, 404, metav1.StatusReasonNotFound)

	// The dynamic client's default patch type is a strategic merge patch:
	// kube-apiserver answers it with 415 for a custom resource, this
	// server merges it (README, "Strategic merge patch").
	smp := out.step(t, "dynamicPatchDefault").want(t, 200).object(t)
	expectField(t, "dynamicPatchDefault", smp, "metadata.labels.via", "dynamic")
	merged := out.step(t, "dynamicPatchMerge").want(t, 200).object(t)
	expectField(t, "dynamicPatchMerge", merged, "spec.tags", []any{"merged"})
	jp := out.step(t, "dynamicPatchJSON").want(t, 200).object(t)
	expectField(t, "dynamicPatchJSON", jp, "spec.tags", []any{"merged", "express"})
	expectField(t, "dynamicPatchJSON", jp, "spec.priority", "Urgent")
	out.step(t, "dynamicPatchJSONFailedTest").failure(t, 422, metav1.StatusReasonInvalid)
	if names := itemNames(t, out.step(t, "dynamicList").want(t, 200).object(t)); !reflect.DeepEqual(names, []string{"py-ssa"}) {
		t.Errorf("dynamicList: labelSelector via=dynamic listed %v, want [py-ssa]", names)
	}

	del := out.step(t, "dynamicDelete").want(t, 200).status(t)
	if del.Status != metav1.StatusSuccess {
		t.Errorf("dynamicDelete: status %q, want Success", del.Status)
	}
	stale := out.step(t, "dynamicDeleteStaleUID").failure(t, 409, metav1.StatusReasonConflict)
	if !strings.Contains(stale.Message, "the UID in the precondition (not-the-uid) does not match the UID in record") {
		t.Errorf("dynamicDeleteStaleUID: message %q, want kube's precondition message", stale.Message)
	}
	coll := out.step(t, "dynamicDeleteCollection").want(t, 200).object(t)
	if want := []string{"py-p-0", "py-p-1", "py-p-2", "py-p-3", "py-p-4", "py-p-5", "py-p-6", "py-p-late"}; coll.GetKind() != "ShipmentList" || !reflect.DeepEqual(itemNames(t, coll), want) {
		t.Errorf("dynamicDeleteCollection: %s of %v, want a ShipmentList of %v", coll.GetKind(), itemNames(t, coll), want)
	}
	if names := itemNames(t, out.step(t, "listAfterCollection").want(t, 200).object(t)); len(names) != 0 {
		t.Errorf("listAfterCollection: %v left, want none", names)
	}

	out.step(t, "warehouseCreate").want(t, 201)
	whGot := out.step(t, "warehouseGet").want(t, 200).object(t)
	expectField(t, "warehouseGet", whGot, "metadata.namespace", nil)
	out.step(t, "warehouseDelete").want(t, 200)
}
