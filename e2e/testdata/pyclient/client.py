"""client.py drives the apiserver with the official Python client (the
kubernetes package, as Debian 12 ships it: python3-kubernetes 22.6), as a
program written against kube-apiserver would. e2e/pyclient_test.go runs it and
asserts on what it prints.

The Python client differs from client-go and the JavaScript client where a
server can go wrong: it speaks HTTP/1.1 through urllib3, writes booleans in
queries as "True", parses every typed answer into its generated models
(datetimes included), sends server-side apply as JSON under
application/apply-patch+yaml, picks a patch's content type from the body's
shape, and its dynamic client discovers resources from /apis first.

Environment: KUBECONFIG (the admin kubeconfig), PYCLIENT_NAMESPACE (an
existing namespace of the script's own), PYCLIENT_BOOKMARK_WAIT_S (how long to
wait for a watch BOOKMARK), PYCLIENT_CACHE (a directory for the dynamic
client's discovery cache).

It prints one JSON document on standard output:

  {"clientVersion", "steps": {NAME: {"code", "contentType", "body"}},
   "watch": {"listResourceVersion", "events": [{"type", "kind", "apiVersion",
             "namespace", "name", "resourceVersion"}], "error"},
   "typedWatch": {"events": [...], "error"},
   "pages": [{"resourceVersion", "continue", "names"}],
   "discovery": {"shipment": {...}, "warehouse": {...}},
   "typed": {"leaseRenewTimeSent", "leaseRenewTimeRead",
             "configMapCreationTimestampType"}}

A step records what the server answered, a failure included (the body is then
the Status the server sent). The script exits non-zero only when something is
not an HTTP answer it can record: a connection or TLS error, a body the client
cannot parse into its model, a step a later step needs that failed.
Assertions live in the Go test.
"""

import datetime
import json
import os
import sys
import threading
import time

import kubernetes
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import DynamicApiError

namespace = os.environ["PYCLIENT_NAMESPACE"]
bookmark_wait = float(os.environ.get("PYCLIENT_BOOKMARK_WAIT_S", "30"))

config.load_kube_config(config_file=os.environ["KUBECONFIG"])
api = client.ApiClient()
custom = client.CustomObjectsApi(api)
core = client.CoreV1Api(api)
coordination = client.CoordinationV1Api(api)

GROUP, VERSION, PLURAL = "shipping.kubeforge.dev", "v1", "shipments"
out = {"clientVersion": kubernetes.__version__, "steps": {}, "watch": {}, "typedWatch": {}, "pages": [], "discovery": {}, "typed": {}}


def record(name, code, headers, body):
    content_type = headers.get("Content-Type") if headers is not None else None
    if isinstance(body, (bytes, str)):
        text = body.decode("utf-8") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except ValueError:
            body = text
    rec = {"code": code, "contentType": content_type, "body": body}
    out["steps"][name] = rec
    return rec


def step(name, call):
    """Runs a *_with_http_info call (data, status, headers) and records it;
    the model the client parsed is recorded as the JSON it writes back."""
    try:
        data, code, headers = call()
    except ApiException as e:
        return record(name, e.status, e.headers, e.body)
    return record(name, code, headers, api.sanitize_for_serialization(data))


def dyn_step(name, call):
    """Runs a dynamic client call made with serialize=False (the urllib3
    response) and records it."""
    try:
        resp = call()
    except DynamicApiError as e:
        return record(name, e.status, e.headers, e.body)
    return record(name, resp.status, resp.headers, resp.data)


def ok(name):
    rec = out["steps"][name]
    if rec["code"] >= 300:
        raise SystemExit("%s is needed by later steps and failed: HTTP %s: %s" % (name, rec["code"], json.dumps(rec["body"])))
    return rec["body"]


def shipment(name, labels, **spec):
    body = {
        "apiVersion": GROUP + "/" + VERSION,
        "kind": "Shipment",
        "metadata": {"name": name, "labels": dict({"app": "pyclient"}, **labels)},
        "spec": {
            "origin": {"street": "Hauptstr. 1", "city": "Berlin"},
            "destination": {"street": "Rue de Rivoli 2", "city": "Paris", "country": "FR"},
            "parcels": [{"name": "box", "weight": "2500"}],
        },
    }
    body["spec"].update(spec)
    return body


def event_record(ev):
    obj = ev["raw_object"]
    meta = obj.get("metadata") or {}
    return {
        "type": ev["type"],
        "kind": obj.get("kind"),
        "apiVersion": obj.get("apiVersion"),
        "namespace": meta.get("namespace"),
        "name": meta.get("name"),
        "resourceVersion": meta.get("resourceVersion"),
    }


def start_watch(rec, func, *args, until=None, **kwargs):
    """Watches in a thread with the Watch class, recording every event into
    rec["events"]; until(events) says when to stop."""
    rec["events"] = []
    w = watch.Watch()
    done = threading.Event()

    def run():
        try:
            for ev in w.stream(func, *args, **kwargs):
                rec["events"].append(event_record(ev))
                if until is not None and until(rec["events"]):
                    w.stop()
                    break
        except Exception as e:  # recorded: the test says what it means
            rec["error"] = "%s: %s" % (type(e).__name__, e)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def custom_args(**kwargs):
    return dict(group=GROUP, version=VERSION, namespace=namespace, plural=PLURAL, **kwargs)


# CustomObjectsApi: create, get, list, replace, conflicts and errors.
step("create", lambda: custom.create_namespaced_custom_object_with_http_info(body=shipment("py-a", {"tier": "gold"}), **custom_args()))
created = ok("create")
step("createDryRun", lambda: custom.create_namespaced_custom_object_with_http_info(body=shipment("py-dry", {}), dry_run="All", **custom_args()))
step("getDryRun", lambda: custom.get_namespaced_custom_object_with_http_info(name="py-dry", **custom_args()))
step("get", lambda: custom.get_namespaced_custom_object_with_http_info(name="py-a", **custom_args()))
got = ok("get")
step("createSecond", lambda: custom.create_namespaced_custom_object_with_http_info(body=shipment("py-b", {"tier": "silver"}), **custom_args()))
step("listGold", lambda: custom.list_namespaced_custom_object_with_http_info(label_selector="app=pyclient,tier=gold", **custom_args()))

replacement = json.loads(json.dumps(got))
replacement["spec"]["tags"] = ["replaced"]
step("replace", lambda: custom.replace_namespaced_custom_object_with_http_info(name="py-a", body=replacement, **custom_args()))
ok("replace")
stale = json.loads(json.dumps(got))
stale["spec"]["tags"] = ["stale"]
step("replaceStale", lambda: custom.replace_namespaced_custom_object_with_http_info(name="py-a", body=stale, **custom_args()))
step("createInvalid", lambda: custom.create_namespaced_custom_object_with_http_info(
    body=shipment("py-invalid", {}, priority="Whenever", parcels=[{"name": "box", "count": 2000}]), **custom_args()))
# Python writes 6 / 2 as 3.0: a custom resource's integer field takes it
# (kube-apiserver's schema check counts an integral float as an integer); a
# built-in kind's typed decoding refuses it.
step("createIntegralFloat", lambda: custom.create_namespaced_custom_object_with_http_info(
    body=shipment("py-float", {}, parcels=[{"name": "box", "count": 6 / 2}]), **custom_args()))
step("leaseIntegralFloat", lambda: coordination.create_namespaced_lease_with_http_info(
    namespace, {"metadata": {"name": "py-lease-float"}, "spec": {"leaseDurationSeconds": 30 / 2}}))
step("createWrongType", lambda: custom.create_namespaced_custom_object_with_http_info(
    body=shipment("py-wrong", {}, parcels=[{"name": "box", "count": "five"}]), **custom_args()))
step("createBadQuantity", lambda: custom.create_namespaced_custom_object_with_http_info(
    body=shipment("py-heavy", {}, parcels=[{"name": "box", "weight": "heavy"}]), **custom_args()))
step("createExists", lambda: custom.create_namespaced_custom_object_with_http_info(body=shipment("py-a", {}), **custom_args()))
step("getMissing", lambda: custom.get_namespaced_custom_object_with_http_info(name="py-missing", **custom_args()))

# Patches: the client sends every custom object patch as a merge patch; a
# list body is then not a merge patch (kube's 400). JSON patches go through
# the dynamic client below.
step("patchMerge", lambda: custom.patch_namespaced_custom_object_with_http_info(
    name="py-a", body={"metadata": {"labels": {"patched": "merge"}}, "spec": {"carrier": "dhl"}}, **custom_args()))
step("patchListAsMerge", lambda: custom.patch_namespaced_custom_object_with_http_info(name="py-a", body=[
    {"op": "add", "path": "/spec/tags/-", "value": "express"},
], **custom_args()))

# The status subresource.
step("statusGet", lambda: custom.get_namespaced_custom_object_status_with_http_info(name="py-a", **custom_args()))
status_obj = ok("statusGet")
status_obj["status"] = {"phase": "InTransit", "observedGeneration": status_obj["metadata"]["generation"]}
status_obj["spec"]["carrier"] = "ignored-by-status"
step("statusReplace", lambda: custom.replace_namespaced_custom_object_status_with_http_info(name="py-a", body=status_obj, **custom_args()))
step("statusPatch", lambda: custom.patch_namespaced_custom_object_status_with_http_info(
    name="py-a", body={"status": {"attempts": 2}}, **custom_args()))

# A watch from a list's resourceVersion: ADDED, MODIFIED, DELETED of py-w and
# a BOOKMARK after them (allow_watch_bookmarks).
step("watchList", lambda: custom.list_namespaced_custom_object_with_http_info(**custom_args()))
list_rv = ok("watchList")["metadata"]["resourceVersion"]
out["watch"]["listResourceVersion"] = list_rv


def saw_bookmark_after_delete(events):
    types = [e["type"] for e in events]
    return "DELETED" in types and "BOOKMARK" in types[types.index("DELETED"):]


watch_done = start_watch(out["watch"], custom.list_namespaced_custom_object, GROUP, VERSION, namespace, PLURAL,
                         resource_version=list_rv, allow_watch_bookmarks=True, timeout_seconds=int(bookmark_wait) + 30,
                         until=saw_bookmark_after_delete)
step("watchCreate", lambda: custom.create_namespaced_custom_object_with_http_info(body=shipment("py-w", {}), **custom_args()))
step("watchPatch", lambda: custom.patch_namespaced_custom_object_with_http_info(
    name="py-w", body={"spec": {"carrier": "ups"}}, **custom_args()))
step("watchDelete", lambda: custom.delete_namespaced_custom_object_with_http_info(name="py-w", **custom_args()))
if not watch_done.wait(bookmark_wait + 10):
    out["watch"]["error"] = "no DELETED and BOOKMARK within %ss" % (bookmark_wait + 10)

# A paginated list: limit 3 over 7 objects, every page at the first page's
# resourceVersion.
for i in range(7):
    step("pageCreate%d" % i, lambda: custom.create_namespaced_custom_object_with_http_info(
        body=shipment("py-p-%d" % i, {"page": "yes"}), **custom_args()))
    ok("pageCreate%d" % i)
token = None
while True:
    kwargs = custom_args(label_selector="page=yes", limit=3)
    if token:
        kwargs["_continue"] = token
    page, _, _ = custom.list_namespaced_custom_object_with_http_info(**kwargs)
    if not out["pages"]:
        step("pageCreateLate", lambda: custom.create_namespaced_custom_object_with_http_info(
            body=shipment("py-p-late", {"page": "yes"}), **custom_args()))
    token = page["metadata"].get("continue")
    out["pages"].append({
        "resourceVersion": page["metadata"].get("resourceVersion"),
        "continue": token or "",
        "names": [item["metadata"]["name"] for item in page["items"]],
    })
    if not token or len(out["pages"]) > 10:
        break

# Deletes with DeleteOptions in the body: Foreground answers with the object,
# Background with a Status.
step("deleteForeground", lambda: custom.delete_namespaced_custom_object_with_http_info(
    name="py-a", body=client.V1DeleteOptions(propagation_policy="Foreground"), **custom_args()))
step("deleteBackground", lambda: custom.delete_namespaced_custom_object_with_http_info(
    name="py-b", propagation_policy="Background", **custom_args()))
step("deleteMissing", lambda: custom.delete_namespaced_custom_object_with_http_info(name="py-missing", **custom_args()))

# The typed CoreV1Api: every answer parsed into V1ConfigMap, V1ConfigMapList
# and V1Status models; a watch parsed into models too.
step("configMapList0", lambda: core.list_namespaced_config_map_with_http_info(namespace, label_selector="app=pyclient"))
cm_rv = ok("configMapList0")["metadata"]["resourceVersion"]
typed_done = start_watch(out["typedWatch"], core.list_namespaced_config_map, namespace, label_selector="app=pyclient",
                         resource_version=cm_rv, timeout_seconds=30,
                         until=lambda events: any(e["type"] == "DELETED" for e in events))
cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm", labels={"app": "pyclient"}), data={"greeting": "hello"})
step("configMapCreate", lambda: core.create_namespaced_config_map_with_http_info(namespace, cm))
got_cm, _, _ = core.read_namespaced_config_map_with_http_info("py-cm", namespace)
out["typed"]["configMapCreationTimestampType"] = type(got_cm.metadata.creation_timestamp).__name__
step("configMapGet", lambda: core.read_namespaced_config_map_with_http_info("py-cm", namespace))
# A dict body goes as a strategic merge patch, which built-in kinds take.
step("configMapPatch", lambda: core.patch_namespaced_config_map_with_http_info(
    "py-cm", namespace, {"data": {"extra": "x"}, "metadata": {"labels": {"patched": "yes"}}}))
got_cm, _, _ = core.read_namespaced_config_map_with_http_info("py-cm", namespace)
got_cm.data["greeting"] = "hi"
step("configMapReplace", lambda: core.replace_namespaced_config_map_with_http_info("py-cm", namespace, got_cm))
step("configMapReplaceStale", lambda: core.replace_namespaced_config_map_with_http_info("py-cm", namespace, got_cm))
# A list body goes as a JSON patch.
step("configMapPatchJSON", lambda: core.patch_namespaced_config_map_with_http_info("py-cm", namespace, [
    {"op": "test", "path": "/data/greeting", "value": "hi"},
    {"op": "remove", "path": "/data/extra"},
]))
step("configMapPatchJSONFailedTest", lambda: core.patch_namespaced_config_map_with_http_info("py-cm", namespace, [
    {"op": "test", "path": "/data/greeting", "value": "hello"},
]))
step("configMapList", lambda: core.list_namespaced_config_map_with_http_info(namespace, label_selector="app=pyclient"))
step("configMapDelete", lambda: core.delete_namespaced_config_map_with_http_info("py-cm", namespace))
step("configMapGetDeleted", lambda: core.read_namespaced_config_map_with_http_info("py-cm", namespace))
if not typed_done.wait(30):
    out["typedWatch"]["error"] = "no DELETED within 30s"

# The typed CoordinationV1Api on a Lease: MicroTime fields as timezone-aware
# datetimes, written with microseconds, read back equal.
renew = datetime.datetime(2026, 11, 29, 12, 30, 45, 123456, tzinfo=datetime.timezone.utc)
out["typed"]["leaseRenewTimeSent"] = renew.isoformat()
lease = client.V1Lease(metadata=client.V1ObjectMeta(name="py-lease"),
                       spec=client.V1LeaseSpec(holder_identity="py", lease_duration_seconds=15, renew_time=renew, acquire_time=renew))
step("leaseCreate", lambda: coordination.create_namespaced_lease_with_http_info(namespace, lease))
got_lease, _, _ = coordination.read_namespaced_lease_with_http_info("py-lease", namespace)
out["typed"]["leaseRenewTimeRead"] = got_lease.spec.renew_time.isoformat()
step("leaseDelete", lambda: coordination.delete_namespaced_lease_with_http_info("py-lease", namespace))

# The dynamic client: discovery, server-side apply (force=True in the query),
# a patch with its default content type, a list, dry runs, a delete with a
# body, and a cluster-scoped kind.
dyn = dynamic.DynamicClient(api, cache_file=os.path.join(os.environ["PYCLIENT_CACHE"], "discovery.json"))
shp = dyn.resources.get(api_version=GROUP + "/" + VERSION, kind="Shipment")
wh = dyn.resources.get(api_version="infra.kubeforge.dev/v1", kind="Warehouse")
for key, res in (("shipment", shp), ("warehouse", wh)):
    out["discovery"][key] = {
        "name": res.name,
        "namespaced": res.namespaced,
        "shortNames": sorted(res.short_names or []),
        "verbs": sorted(res.verbs or []),
        "subresources": sorted(res.subresources.keys()),
        "path": res.path(name="x", namespace=namespace if res.namespaced else None),
    }

# Server-side apply: this client version serializes only JSON content types,
# so an apply configuration goes as the YAML text it is, with the name and
# namespace as arguments.
APPLY = """apiVersion: shipping.kubeforge.dev/v1
kind: Shipment
metadata:
  name: %s
  labels:
    app: pyclient
spec:
  origin: {street: Hauptstr. 1, city: Berlin}
  destination: {street: Rue de Rivoli 2, city: Paris}
  parcels:
  - name: box
  carrier: %s
"""
dyn_step("applyCreate", lambda: dyn.server_side_apply(shp, body=APPLY % ("py-ssa", "dhl"), name="py-ssa", namespace=namespace,
                                                       field_manager="py-a", serialize=False))
dyn_step("applyAgain", lambda: dyn.server_side_apply(shp, body=APPLY % ("py-ssa", "dhl"), name="py-ssa", namespace=namespace,
                                                      field_manager="py-a", serialize=False))
dyn_step("applyConflict", lambda: dyn.server_side_apply(shp, body=APPLY % ("py-ssa", "ups"), name="py-ssa", namespace=namespace,
                                                         field_manager="py-b", serialize=False))
dyn_step("applyForce", lambda: dyn.server_side_apply(shp, body=APPLY % ("py-ssa", "ups"), name="py-ssa", namespace=namespace,
                                                      field_manager="py-b", force_conflicts=True, serialize=False))
dyn_step("applyDryRun", lambda: dyn.server_side_apply(shp, body=APPLY % ("py-ssa-dry", "dhl"), name="py-ssa-dry", namespace=namespace,
                                                       field_manager="py-a", dry_run="All", serialize=False))
dyn_step("dynamicGetDryRun", lambda: dyn.get(shp, name="py-ssa-dry", namespace=namespace, serialize=False))
dyn_step("dynamicPatchDefault", lambda: dyn.patch(shp, body={"metadata": {"name": "py-ssa", "labels": {"via": "dynamic"}}},
                                                  namespace=namespace, serialize=False))
dyn_step("dynamicPatchMerge", lambda: dyn.patch(shp, body={"metadata": {"name": "py-ssa"}, "spec": {"tags": ["merged"]}},
                                                namespace=namespace, content_type="application/merge-patch+json", serialize=False))
dyn_step("dynamicPatchJSON", lambda: dyn.patch(shp, body=[
    {"op": "test", "path": "/spec/carrier", "value": "ups"},
    {"op": "add", "path": "/spec/tags/-", "value": "express"},
    {"op": "replace", "path": "/spec/priority", "value": "Urgent"},
], name="py-ssa", namespace=namespace, content_type="application/json-patch+json", serialize=False))
dyn_step("dynamicPatchJSONFailedTest", lambda: dyn.patch(shp, body=[
    {"op": "test", "path": "/spec/carrier", "value": "dhl"},
], name="py-ssa", namespace=namespace, content_type="application/json-patch+json", serialize=False))
dyn_step("dynamicList", lambda: dyn.get(shp, namespace=namespace, label_selector="via=dynamic", serialize=False))
dyn_step("dynamicDelete", lambda: dyn.delete(shp, name="py-ssa", namespace=namespace,
                                             body={"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"},
                                             serialize=False))
dyn_step("dynamicDeleteStaleUID", lambda: dyn.delete(shp, name="py-p-late", namespace=namespace,
                                                     body={"preconditions": {"uid": "not-the-uid"}}, serialize=False))
dyn_step("dynamicDeleteCollection", lambda: dyn.delete(shp, namespace=namespace, label_selector="page=yes", serialize=False))
step("listAfterCollection", lambda: custom.list_namespaced_custom_object_with_http_info(label_selector="page=yes", **custom_args()))
warehouse = {"apiVersion": "infra.kubeforge.dev/v1", "kind": "Warehouse",
             "metadata": {"name": namespace + "-wh"}, "spec": {"region": "eu"}}
dyn_step("warehouseCreate", lambda: dyn.create(wh, body=warehouse, serialize=False))
dyn_step("warehouseGet", lambda: dyn.get(wh, name=namespace + "-wh", serialize=False))
dyn_step("warehouseDelete", lambda: dyn.delete(wh, name=namespace + "-wh", serialize=False))

json.dump(out, sys.stdout, default=str)
sys.stdout.write("\n")
