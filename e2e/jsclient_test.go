package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// jsclientDir holds the JavaScript client's program and its locked
// dependencies: @kubernetes/client-node 1.4.0 (2.x needs Node 22).
const jsclientDir = "testdata/jsclient"

// TestJSClient drives the server with the official JavaScript client,
// @kubernetes/client-node, through testdata/jsclient/client.mjs: on
// Shipments through CustomObjectsApi create, get, a list by label, replace
// with the resourceVersion read, a stale replace (409 Conflict), an invalid
// create (422 Invalid with causes), a get of a missing name (404 NotFound),
// merge and JSON patches, get, replace and merge-patch of the status
// subresource, a watch with the Watch class from a list's resourceVersion
// (ADDED, MODIFIED, DELETED and a BOOKMARK) and one replaying past events
// (of its namespace only), a list paginated by limit and continue, deletes
// with Foreground and Background propagation; and the typed CoreV1Api and
// CoordinationV1Api on a ConfigMap and a Lease. The script records every
// answer; the assertions are here, each saying what kube-apiserver answers.
//
// node (>= 20.3) and npm must be installed (as root with apt-get they are
// installed here); the test fails, never skips, without them. npm ci runs
// once per package-lock.json into the user cache directory.
func TestJSClient(t *testing.T) {
	node, npm := nodeAndNPM(t)
	modules := jsclientModules(t, npm)
	s := sharedServer(t)
	namespace := "jsclient-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	s.ensureNamespaces(t, namespace, namespace+"-other")
	out := runJSClient(t, node, modules, s, namespace)
	checkJSClient(t, out, namespace)
	checkJSClientReplay(t, out, namespace)
}

// checkJSClientReplay asserts that the watch from a past resourceVersion
// replayed the events of its namespace only: ADDED and MODIFIED js-r, not
// js-other created between them in the other namespace (kube-apiserver's
// watch cache and etcd watch both filter by namespace).
func checkJSClientReplay(t testing.TB, out *jsOutput, namespace string) {
	if out.Replay.ClosedEarly != nil {
		t.Errorf("replaying watch: ended before the script stopped it: %s", *out.Replay.ClosedEarly)
	}
	var got []string
	for _, e := range out.Replay.Events {
		got = append(got, e.Type+" "+e.Namespace+"/"+e.Name)
	}
	if want := []string{"ADDED " + namespace + "/js-r", "MODIFIED " + namespace + "/js-r"}; !reflect.DeepEqual(got, want) {
		t.Errorf("watch of namespace %s from resourceVersion %s (before js-r; %s/js-other created since): events %q, want %q",
			namespace, out.Replay.ListResourceVersion, namespace+"-other", got, want)
	}
}

// checkJSClient asserts on what client.mjs printed.
func checkJSClient(t testing.TB, out *jsOutput, namespace string) {
	const (
		group      = "shipping.kubeforge.dev"
		apiVersion = group + "/v1"
	)

	// Every answer is JSON, as kube-apiserver's are for a client that
	// accepts application/json.
	for _, name := range slices.Sorted(maps.Keys(out.Steps)) {
		if ct := out.Steps[name].ContentType; ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", name, ct)
		}
	}

	// create: 201 with the object, server fields set and defaults applied.
	created := out.step(t, "create").want(t, 201).object(t)
	if created.GetKind() != "Shipment" || created.GetAPIVersion() != apiVersion {
		t.Errorf("create: kind %q apiVersion %q, want Shipment %s", created.GetKind(), created.GetAPIVersion(), apiVersion)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetCreationTimestamp().Time.IsZero() || created.GetGeneration() != 1 {
		t.Errorf("create: uid %q resourceVersion %q creationTimestamp %v generation %d, want all set and generation 1",
			created.GetUID(), created.GetResourceVersion(), created.GetCreationTimestamp(), created.GetGeneration())
	}
	createdFields := map[string]any{
		"spec.priority":             "Normal",
		"spec.origin.country":       "DE",
		"spec.destination.country":  "FR",
		"spec.handlingTime":         "24h0m0s",
		"spec.delayTolerance":       "10%",
		"spec.intervalMinutes":      int64(15),
		"spec.parcels[0].count":     int64(1),
		"spec.parcels[0].weight":    "2500",
		"metadata.labels.app":       "jsclient",
		"metadata.labels.tier":      "gold",
		"metadata.namespace":        namespace,
		"metadata.name":             "js-a",
		"metadata.managedFields[0]": "present",
	}
	for _, path := range slices.Sorted(maps.Keys(createdFields)) {
		expectField(t, "create", created, path, createdFields[path])
	}
	out.step(t, "createSecond").want(t, 201)

	// get: the object as created.
	got := out.step(t, "get").want(t, 200).object(t)
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("get: uid %q resourceVersion %q, want the created %q %q", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}

	// list with labelSelector app=jsclient,tier=gold: js-a only.
	gold := out.step(t, "listGold").want(t, 200).object(t)
	if gold.GetKind() != "ShipmentList" || gold.GetResourceVersion() == "" {
		t.Errorf("listGold: kind %q resourceVersion %q, want ShipmentList with a resourceVersion", gold.GetKind(), gold.GetResourceVersion())
	}
	if names := itemNames(t, gold); !reflect.DeepEqual(names, []string{"js-a"}) {
		t.Errorf("listGold: labelSelector tier=gold listed %v, want [js-a]", names)
	}

	// replace with the resourceVersion read: the spec changes, generation
	// 2; the status it carried is ignored (status subresource).
	replaced := out.step(t, "replace").want(t, 200).object(t)
	if replaced.GetGeneration() != 2 || replaced.GetResourceVersion() == got.GetResourceVersion() {
		t.Errorf("replace: generation %d resourceVersion %q, want generation 2 and a resourceVersion other than %q", replaced.GetGeneration(), replaced.GetResourceVersion(), got.GetResourceVersion())
	}
	expectField(t, "replace", replaced, "spec.tags", []any{"replaced"})
	expectField(t, "replace", replaced, "status.phase", nil)

	// A replace with the resourceVersion already replaced is kube's 409.
	conflict := out.step(t, "replaceStale").failure(t, 409, metav1.StatusReasonConflict)
	wantMessage(t, "replaceStale", conflict, `Operation cannot be fulfilled on shipments.shipping.kubeforge.dev "js-a": the object has been modified; please apply your changes to the latest version and try again`)
	wantDetails(t, "replaceStale", conflict, "js-a", group, "shipments")

	// An invalid create is kube's 422 with a cause per field.
	invalid := out.step(t, "createInvalid").failure(t, 422, metav1.StatusReasonInvalid)
	if prefix := `Shipment.shipping.kubeforge.dev "js-invalid" is invalid: `; !strings.HasPrefix(invalid.Message, prefix) {
		t.Errorf("createInvalid: message %q, want it to start with %q", invalid.Message, prefix)
	}
	wantDetails(t, "createInvalid", invalid, "js-invalid", group, "Shipment")
	wantCauses := map[string]metav1.CauseType{
		"spec.priority":         metav1.CauseTypeFieldValueNotSupported,
		"spec.parcels[0].count": metav1.CauseTypeFieldValueInvalid,
	}
	if invalid.Details != nil {
		gotCauses := map[string]metav1.CauseType{}
		for _, c := range invalid.Details.Causes {
			gotCauses[c.Field] = c.Type
		}
		if !reflect.DeepEqual(gotCauses, wantCauses) {
			t.Errorf("createInvalid: causes (field: reason) %v, want %v", gotCauses, wantCauses)
		}
	}

	// A missing name is kube's 404.
	missing := out.step(t, "getMissing").failure(t, 404, metav1.StatusReasonNotFound)
	wantMessage(t, "getMissing", missing, `shipments.shipping.kubeforge.dev "js-missing" not found`)
	wantDetails(t, "getMissing", missing, "js-missing", group, "shipments")

	// merge patch (sent with PatchStrategy.MergePatch): labels and spec
	// fields merged, the rest kept.
	merged := out.step(t, "patchMerge").want(t, 200).object(t)
	expectField(t, "patchMerge", merged, "metadata.labels.patched", "merge")
	expectField(t, "patchMerge", merged, "metadata.labels.tier", "gold")
	expectField(t, "patchMerge", merged, "spec.carrier", "dhl")
	expectField(t, "patchMerge", merged, "spec.instructions.door", "back")
	expectField(t, "patchMerge", merged, "spec.tags", []any{"replaced"})
	if merged.GetGeneration() != 3 {
		t.Errorf("patchMerge: generation %d, want 3", merged.GetGeneration())
	}

	// JSON patch (the client's default patch content type): test, add to
	// a list, replace, remove.
	patched := out.step(t, "patchJSON").want(t, 200).object(t)
	expectField(t, "patchJSON", patched, "spec.priority", "Urgent")
	expectField(t, "patchJSON", patched, "spec.tags", []any{"replaced", "express"})
	expectField(t, "patchJSON", patched, "spec.instructions", nil)
	expectField(t, "patchJSON", patched, "spec.carrier", "dhl")
	if patched.GetGeneration() != 4 {
		t.Errorf("patchJSON: generation %d, want 4", patched.GetGeneration())
	}

	// The status subresource: get is the whole object; a replace changes
	// the status only (its spec change is ignored, generation stays); a
	// merge patch of status merges into it.
	statusGot := out.step(t, "statusGet").want(t, 200).object(t)
	if statusGot.GetKind() != "Shipment" || statusGot.GetResourceVersion() != patched.GetResourceVersion() {
		t.Errorf("statusGet: kind %q resourceVersion %q, want the Shipment at %q", statusGot.GetKind(), statusGot.GetResourceVersion(), patched.GetResourceVersion())
	}
	statusReplaced := out.step(t, "statusReplace").want(t, 200).object(t)
	expectField(t, "statusReplace", statusReplaced, "status.phase", "InTransit")
	expectField(t, "statusReplace", statusReplaced, "status.observedGeneration", int64(4))
	expectField(t, "statusReplace", statusReplaced, "spec.carrier", "dhl")
	if statusReplaced.GetGeneration() != 4 || statusReplaced.GetResourceVersion() == statusGot.GetResourceVersion() {
		t.Errorf("statusReplace: generation %d resourceVersion %q, want generation 4 (a status write leaves it) and a resourceVersion other than %q",
			statusReplaced.GetGeneration(), statusReplaced.GetResourceVersion(), statusGot.GetResourceVersion())
	}
	statusPatched := out.step(t, "statusPatch").want(t, 200).object(t)
	expectField(t, "statusPatch", statusPatched, "status.attempts", int64(2))
	expectField(t, "statusPatch", statusPatched, "status.phase", "InTransit")
	if statusPatched.GetGeneration() != 4 {
		t.Errorf("statusPatch: generation %d, want 4", statusPatched.GetGeneration())
	}

	// The watch from the list's resourceVersion: exactly ADDED, MODIFIED,
	// DELETED for js-w with the resourceVersions the writes returned, and a
	// BOOKMARK (allowWatchBookmarks).
	out.step(t, "watchList").want(t, 200)
	watchCreated := out.step(t, "watchCreate").want(t, 201).object(t)
	watchPatched := out.step(t, "watchPatch").want(t, 200).object(t)
	deleted := out.step(t, "watchDelete").want(t, 200).status(t)
	if deleted.Status != metav1.StatusSuccess {
		t.Errorf("watchDelete: status %q, want Success (kube answers a delete done at once with a Status for custom resources)", deleted.Status)
	}
	wantDetails(t, "watchDelete", deleted, "js-w", group, "shipments")
	if deleted.Details != nil && deleted.Details.UID != watchCreated.GetUID() {
		t.Errorf("watchDelete: details.uid %q, want the object's %q", deleted.Details.UID, watchCreated.GetUID())
	}
	if out.Watch.ClosedEarly != nil {
		t.Errorf("watch: ended before the script stopped it: %s", *out.Watch.ClosedEarly)
	}
	var changes, changeRVs []string
	var bookmarks int
	last := int64(0)
	for i, e := range out.Watch.Events {
		if e.Kind != "Shipment" || e.APIVersion != apiVersion {
			t.Errorf("watch: event %d (%s) object kind %q apiVersion %q, want Shipment %s", i, e.Type, e.Kind, e.APIVersion, apiVersion)
		}
		if e.Type != "BOOKMARK" && e.Namespace != namespace {
			t.Errorf("watch of namespace %s: event %d (%s %s) of namespace %q", namespace, i, e.Type, e.Name, e.Namespace)
		}
		rv, err := strconv.ParseInt(e.ResourceVersion, 10, 64)
		if err != nil || rv < last {
			t.Errorf("watch: event %d (%s) resourceVersion %q after %d, want an etcd revision not below the last", i, e.Type, e.ResourceVersion, last)
		}
		last = rv
		if e.Type == "BOOKMARK" {
			bookmarks++
			continue
		}
		changes = append(changes, e.Type+" "+e.Name)
		changeRVs = append(changeRVs, e.ResourceVersion)
	}
	if want := []string{"ADDED js-w", "MODIFIED js-w", "DELETED js-w"}; !reflect.DeepEqual(changes, want) {
		t.Errorf("watch from resourceVersion %s: events %q, want %q", out.Watch.ListResourceVersion, changes, want)
	} else if want := []string{watchCreated.GetResourceVersion(), watchPatched.GetResourceVersion()}; !reflect.DeepEqual(changeRVs[:2], want) || changeRVs[2] == changeRVs[1] {
		t.Errorf("watch: resourceVersions of ADDED, MODIFIED, DELETED %q, want the create's and the patch's %q, then the deletion's own", changeRVs, want)
	}
	if bookmarks == 0 {
		t.Errorf("watch with allowWatchBookmarks: no BOOKMARK within %d ms after the DELETED event, want one (the server sends one every %s, runtime/storage.DefaultBookmarkInterval; kube-apiserver every minute)", out.Watch.BookmarkWaitMs, storage.DefaultBookmarkInterval)
	}

	// The writes the replaying watch is to replay (checkJSClientReplay).
	for _, name := range []string{"replayList", "replayPatch"} {
		out.step(t, name).want(t, 200)
	}
	for _, name := range []string{"replayCreate", "replayCreateOther"} {
		out.step(t, name).want(t, 201)
	}

	// The paginated list: limit 3 over 7 objects is 3 pages, every object
	// once, all pages at the first page's resourceVersion, so js-p-late
	// (created after the first page) is not in them.
	out.step(t, "pageCreateLate").want(t, 201)
	var sizes []int
	var listed []string
	for i, p := range out.Pages {
		sizes = append(sizes, len(p.Names))
		listed = append(listed, p.Names...)
		if p.ResourceVersion != out.Pages[0].ResourceVersion {
			t.Errorf("page %d: resourceVersion %q, want the first page's %q (a continued list is one snapshot)", i, p.ResourceVersion, out.Pages[0].ResourceVersion)
		}
		if lastPage := i == len(out.Pages)-1; (p.Continue == "") != lastPage {
			t.Errorf("page %d of %d: continue %q, want one on every page but the last", i, len(out.Pages), p.Continue)
		}
	}
	if !reflect.DeepEqual(sizes, []int{3, 3, 1}) {
		t.Errorf("paginated list (limit 3): page sizes %v, want [3 3 1]", sizes)
	}
	if want := []string{"js-p-0", "js-p-1", "js-p-2", "js-p-3", "js-p-4", "js-p-5", "js-p-6"}; !reflect.DeepEqual(listed, want) {
		t.Errorf("paginated list: %v, want each of %v once, in name order", listed, want)
	}

	// Foreground deletion: 200 with the object, now with a deletionTimestamp
	// and the foregroundDeletion finalizer, then gone once the garbage
	// collector finds no dependents.
	fg := out.step(t, "deleteForeground").want(t, 200).object(t)
	if fg.GetKind() != "Shipment" || fg.GetDeletionTimestamp() == nil || !slices.Contains(fg.GetFinalizers(), metav1.FinalizerDeleteDependents) {
		t.Errorf("deleteForeground: kind %q deletionTimestamp %v finalizers %v, want the Shipment with a deletionTimestamp and the %s finalizer",
			fg.GetKind(), fg.GetDeletionTimestamp(), fg.GetFinalizers(), metav1.FinalizerDeleteDependents)
	}
	if !out.ForegroundGone.Gone {
		t.Errorf("deleteForeground: js-a still there %d ms later, want it gone (no dependents)", out.ForegroundGone.Ms)
	}
	bg := out.step(t, "deleteBackground").want(t, 200).status(t)
	if bg.Status != metav1.StatusSuccess {
		t.Errorf("deleteBackground: status %q, want Success", bg.Status)
	}
	wantDetails(t, "deleteBackground", bg, "js-b", group, "shipments")

	// The typed CoreV1Api on a ConfigMap.
	out.step(t, "configMapCreate").want(t, 201)
	cm := out.step(t, "configMapGet").want(t, 200).object(t)
	expectField(t, "configMapGet", cm, "data.greeting", "hello")
	if !out.Typed.ConfigMapCreationTimestampIsDate {
		t.Errorf("configMapGet: the typed client did not parse metadata.creationTimestamp into a Date")
	}
	if names := itemNames(t, out.step(t, "configMapList").want(t, 200).object(t)); !reflect.DeepEqual(names, []string{"js-cm"}) {
		t.Errorf("configMapList: labelSelector app=jsclient listed %v, want [js-cm]", names)
	}
	cmDeleted := out.step(t, "configMapDelete").want(t, 200).status(t)
	if cmDeleted.Status != metav1.StatusSuccess {
		t.Errorf("configMapDelete: status %q, want Success", cmDeleted.Status)
	}
	wantDetails(t, "configMapDelete", cmDeleted, "js-cm", "", "configmaps")
	cmMissing := out.step(t, "configMapGetDeleted").failure(t, 404, metav1.StatusReasonNotFound)
	wantMessage(t, "configMapGetDeleted", cmMissing, `configmaps "js-cm" not found`)

	// The typed CoordinationV1Api on a Lease: MicroTime fields round-trip
	// with their microseconds.
	out.step(t, "leaseCreate").want(t, 201)
	lease := out.step(t, "leaseGet").want(t, 200).object(t)
	expectField(t, "leaseGet", lease, "spec.holderIdentity", "js")
	expectField(t, "leaseGet", lease, "spec.renewTime", out.Typed.LeaseRenewTimeSent)
	expectField(t, "leaseGet", lease, "spec.acquireTime", out.Typed.LeaseRenewTimeSent)
	renewed := out.step(t, "leaseReplace").want(t, 200).object(t)
	expectField(t, "leaseReplace", renewed, "spec.holderIdentity", "js-2")
	expectField(t, "leaseReplace", renewed, "spec.leaseTransitions", int64(1))
	if renewed.GetResourceVersion() == lease.GetResourceVersion() {
		t.Errorf("leaseReplace: resourceVersion %q unchanged", renewed.GetResourceVersion())
	}
	out.step(t, "leaseDelete").want(t, 200)
}

// nodeAndNPM finds node (>= 20.3) and npm, installing them with apt-get when
// they are missing and the test runs as root.
func nodeAndNPM(t *testing.T) (node, npm string) {
	t.Helper()
	find := func() error {
		var errs []error
		var err error
		if node, err = exec.LookPath("node"); err != nil {
			errs = append(errs, err)
		}
		if npm, err = exec.LookPath("npm"); err != nil {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	err := find()
	if err != nil {
		t.Logf("node or npm missing: %v", err)
		if aptInstall(t, "nodejs", "npm") {
			err = find()
		}
	}
	if err != nil {
		t.Fatalf("TestJSClient needs node (>= 20.3) and npm on PATH to run @kubernetes/client-node: %v; install them (apt-get install nodejs npm, or from nodejs.org)", err)
	}
	version, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	v := strings.TrimSpace(string(version))
	var major, minor int
	if _, err := fmt.Sscanf(v, "v%d.%d.", &major, &minor); err != nil || major < 20 || major == 20 && minor < 3 {
		t.Fatalf("%s is %s: @kubernetes/client-node 1.x (its Watch uses AbortSignal.any) needs Node 20.3 or newer; install it from nodejs.org or NodeSource (Debian 12 and Ubuntu 24.04 ship Node 18)", node, v)
	}
	return node, npm
}

// jsclientModules returns the node_modules directory of testdata/jsclient's
// package-lock.json, installed by npm ci into
// <user cache>/kubeforge/jsclient/<sha256 of the lock> once per lock file:
// into a temporary directory first, renamed into place when complete, so an
// interrupted install leaves no half cache.
func jsclientModules(t *testing.T, npm string) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join(jsclientDir, "package-lock.json"))
	if err != nil {
		t.Fatalf("read package-lock.json: %v", err)
	}
	pkg, err := os.ReadFile(filepath.Join(jsclientDir, "package.json"))
	if err != nil {
		t.Fatalf("read package.json: %v", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("user cache directory for the npm install: %v", err)
	}
	sum := sha256.Sum256(lock)
	parent := filepath.Join(cache, "kubeforge", "jsclient")
	dir := filepath.Join(parent, hex.EncodeToString(sum[:]))
	modules := filepath.Join(dir, "node_modules")
	// A killed install leaves its temporary directory: remove those of
	// installs long over (not one running beside this one).
	if stale, err := filepath.Glob(filepath.Join(parent, ".install-*")); err == nil {
		for _, d := range stale {
			if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > time.Hour {
				_ = os.RemoveAll(d)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(modules, "@kubernetes", "client-node", "package.json")); err == nil {
		t.Logf("npm: the install of this package-lock.json in %s", dir)
		return modules
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatalf("create npm cache directory: %v", err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-")
	if err != nil {
		t.Fatalf("create npm install directory: %v", err)
	}
	// Gone after the rename; what is left of a failed install otherwise.
	defer os.RemoveAll(tmp)
	// MkdirTemp's 0700 would stay on the cache.
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatalf("chmod npm install directory: %v", err)
	}
	for name, content := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), content, 0o644); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(c, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	t.Logf("npm ci of %s: %s", filepath.Join(jsclientDir, "package-lock.json"), time.Since(start).Round(100*time.Millisecond))
	if err := os.Rename(tmp, dir); err != nil {
		// Another run may have installed the same lock meanwhile.
		if _, statErr := os.Stat(filepath.Join(modules, "@kubernetes", "client-node", "package.json")); statErr != nil {
			t.Fatalf("move npm install into place: %v", err)
		}
	}
	return modules
}

// runJSClient runs client.mjs with node against s in namespace and decodes
// what it prints. The script is copied beside a node_modules link to the
// cached install: ES modules resolve packages from the importing file's
// directory up, not from NODE_PATH.
func runJSClient(t *testing.T, node, modules string, s *apiserver, namespace string) *jsOutput {
	t.Helper()
	work := t.TempDir()
	script, err := os.ReadFile(filepath.Join(jsclientDir, "client.mjs"))
	if err != nil {
		t.Fatalf("read client.mjs: %v", err)
	}
	if err := os.WriteFile(filepath.Join(work, "client.mjs"), script, 0o644); err != nil {
		t.Fatalf("copy client.mjs: %v", err)
	}
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatalf("link node_modules: %v", err)
	}
	var out jsOutput
	runClientProgram(t, work, []string{
		"KUBECONFIG=" + filepath.Join(s.dataDir, "admin.kubeconfig"),
		"JSCLIENT_NAMESPACE=" + namespace,
		"JSCLIENT_OTHER_NAMESPACE=" + namespace + "-other",
		// Two of the server's bookmark periods and a margin.
		"JSCLIENT_BOOKMARK_WAIT_MS=" + strconv.FormatInt((2*storage.DefaultBookmarkInterval+5*time.Second).Milliseconds(), 10),
	}, &out, node, "client.mjs")
	return &out
}

// jsOutput is the document client.mjs prints.
type jsOutput struct {
	Steps map[string]jsStep `json:"steps"`
	Watch struct {
		ListResourceVersion string    `json:"listResourceVersion"`
		Events              []jsEvent `json:"events"`
		BookmarkWaitMs      int64     `json:"bookmarkWaitMs"`
		ClosedEarly         *string   `json:"closedEarly"`
	} `json:"watch"`
	Replay struct {
		ListResourceVersion string    `json:"listResourceVersion"`
		Events              []jsEvent `json:"events"`
		ClosedEarly         *string   `json:"closedEarly"`
	} `json:"replay"`
	Pages []struct {
		ResourceVersion string   `json:"resourceVersion"`
		Continue        string   `json:"continue"`
		Names           []string `json:"names"`
	} `json:"pages"`
	ForegroundGone struct {
		Gone bool  `json:"gone"`
		Ms   int64 `json:"ms"`
	} `json:"foregroundGone"`
	Typed struct {
		ConfigMapCreationTimestampIsDate bool   `json:"configMapCreationTimestampIsDate"`
		LeaseRenewTimeSent               string `json:"leaseRenewTimeSent"`
	} `json:"typed"`
}

// jsStep is one answer as the client saw it.
type jsStep struct {
	name        string
	Code        int             `json:"code"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
}

// jsEvent is one watch event the Watch class delivered.
type jsEvent struct {
	Type            string `json:"type"`
	Kind            string `json:"kind"`
	APIVersion      string `json:"apiVersion"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	ResourceVersion string `json:"resourceVersion"`
}

func (o *jsOutput) step(t testing.TB, name string) jsStep {
	t.Helper()
	s, ok := o.Steps[name]
	if !ok {
		t.Fatalf("client.mjs recorded no step %q", name)
	}
	s.name = name
	return s
}

// want checks the status code of a successful answer.
func (s jsStep) want(t testing.TB, code int) jsStep {
	t.Helper()
	if s.Code != code {
		t.Errorf("%s: HTTP %d, want %d as kube-apiserver answers; body: %s", s.name, s.Code, code, s.short())
	}
	return s
}

// short is the body for a message: compact, at most 2000 bytes.
func (s jsStep) short() string {
	var b bytes.Buffer
	if err := json.Compact(&b, s.Body); err != nil {
		b.Reset()
		b.Write(s.Body)
	}
	if b.Len() > 2000 {
		return b.String()[:2000] + "..."
	}
	return b.String()
}

func (s jsStep) object(t testing.TB) *unstructured.Unstructured {
	t.Helper()
	var u unstructured.Unstructured
	// utiljson decodes whole numbers as int64, as unstructured expects.
	if err := utiljson.Unmarshal(s.Body, &u.Object); err != nil {
		t.Fatalf("%s: decode body: %v\n%s", s.name, err, s.Body)
	}
	return &u
}

func (s jsStep) status(t testing.TB) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(s.Body, &st); err != nil {
		t.Fatalf("%s: decode body as a Status: %v\n%s", s.name, err, s.Body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Errorf("%s: body kind %q apiVersion %q, want a v1 Status: %s", s.name, st.Kind, st.APIVersion, s.short())
	}
	return st
}

// failure checks an error answer: the code, and a Failure Status body
// with that code and reason, as kube-apiserver sends.
func (s jsStep) failure(t testing.TB, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	if s.Code != code {
		t.Errorf("%s: HTTP %d, want %d %s as kube-apiserver answers; body: %s", s.name, s.Code, code, reason, s.short())
	}
	st := s.status(t)
	if st.Status != metav1.StatusFailure || int(st.Code) != code || st.Reason != reason {
		t.Errorf("%s: Status status %q code %d reason %q, want Failure %d %s", s.name, st.Status, st.Code, st.Reason, code, reason)
	}
	return st
}

func wantMessage(t testing.TB, step string, st metav1.Status, want string) {
	t.Helper()
	if st.Message != want {
		t.Errorf("%s: message %q, want kube's %q", step, st.Message, want)
	}
}

// wantDetails checks a Status's details; kind is the resource for
// NotFound, Conflict and delete answers, the kind for Invalid, as in kube.
func wantDetails(t testing.TB, step string, st metav1.Status, name, group, kind string) {
	t.Helper()
	if st.Details == nil {
		t.Errorf("%s: Status without details, want name %q group %q kind %q", step, name, group, kind)
		return
	}
	if d := st.Details; d.Name != name || d.Group != group || d.Kind != kind {
		t.Errorf("%s: details name %q group %q kind %q, want %q %q %q", step, d.Name, d.Group, d.Kind, name, group, kind)
	}
}

// expectField checks the value at a dotted path (with [i] for list items)
// in obj: want nil means absent, "present" any value.
func expectField(t testing.TB, step string, obj *unstructured.Unstructured, path string, want any) {
	t.Helper()
	got, found := lookup(obj.Object, path)
	switch {
	case want == nil:
		if found {
			t.Errorf("%s: %s is %v, want it absent", step, path, got)
		}
	case want == "present":
		if !found {
			t.Errorf("%s: %s absent, want it set", step, path)
		}
	case !found:
		t.Errorf("%s: %s absent, want %v", step, path, want)
	default:
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s is %#v, want %#v", step, path, got, want)
		}
	}
}

func lookup(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		name, index, hasIndex := strings.Cut(part, "[")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
		if hasIndex {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			l, ok := v.([]any)
			if err != nil || !ok || i >= len(l) {
				return nil, false
			}
			v = l[i]
		}
	}
	return v, true
}

func itemNames(t testing.TB, list *unstructured.Unstructured) []string {
	t.Helper()
	items, _ := list.Object["items"].([]any)
	names := []string{}
	for _, item := range items {
		m, _ := item.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		names = append(names, name)
	}
	return names
}
