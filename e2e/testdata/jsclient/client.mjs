// client.mjs drives the apiserver with the official JavaScript client,
// @kubernetes/client-node, as a program written against kube-apiserver would.
// e2e/jsclient_test.go runs it and asserts on what it prints.
//
// Environment: KUBECONFIG (the admin kubeconfig), JSCLIENT_NAMESPACE and
// JSCLIENT_OTHER_NAMESPACE (existing namespaces of the script's own; the other
// one only holds an object a watch of the first must not see),
// JSCLIENT_BOOKMARK_WAIT_MS (how long to wait for a watch BOOKMARK; default
// 30000).
//
// It prints one JSON document on standard output:
//
//	{"steps": {NAME: {"code", "contentType", "body"}},
//	 "watch": {"listResourceVersion", "events": [{"type", "kind", "apiVersion",
//	           "namespace", "name", "resourceVersion"}], "bookmarkWaitMs",
//	           "closedEarly"},
//	 "replay": {"listResourceVersion", "events": [...], "closedEarly"},
//	 "pages": [{"resourceVersion", "continue", "names"}],
//	 "foregroundGone": {"gone", "ms"},
//	 "typed": {"configMapCreationTimestampIsDate", "leaseRenewTimeSent"}}
//
// A step records what the server answered, a failure included (the body is
// then the Status the client parsed). The script exits non-zero only when
// something is not an HTTP answer it can record: a connection or TLS error, a
// response body the client cannot parse, a step whose result a later step
// needs missing. Assertions live in the Go test.

import * as k8s from '@kubernetes/client-node';

const namespace = process.env.JSCLIENT_NAMESPACE;
const otherNamespace = process.env.JSCLIENT_OTHER_NAMESPACE;
if (!namespace || !otherNamespace) {
  throw new Error('JSCLIENT_NAMESPACE or JSCLIENT_OTHER_NAMESPACE is not set');
}
const bookmarkWaitMs = Number(process.env.JSCLIENT_BOOKMARK_WAIT_MS || 30000);

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.env.KUBECONFIG);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const core = kc.makeApiClient(k8s.CoreV1Api);
const coordination = kc.makeApiClient(k8s.CoordinationV1Api);

const shipments = {
  group: 'shipping.kubeforge.dev',
  version: 'v1',
  namespace,
  plural: 'shipments',
};
const shipmentsPath = `/apis/shipping.kubeforge.dev/v1/namespaces/${namespace}/shipments`;
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

const out = { steps: {}, watch: {}, replay: {}, pages: [], typed: {} };

// step runs one request (a *WithHttpInfo call) and records the answer under
// name: the status code, the content type and the body the client parsed, or,
// for an error answer, the body parsed as JSON (a Status). It returns the
// record.
async function step(name, request) {
  let rec;
  try {
    const info = await request();
    rec = { code: info.httpStatusCode, contentType: info.headers['content-type'], body: info.data };
  } catch (err) {
    if (!(err instanceof k8s.ApiException)) {
      throw new Error(`${name}: ${err && err.stack ? err.stack : err}`);
    }
    let body = err.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: recorded as the text it is
      }
    }
    rec = { code: err.code, contentType: err.headers && err.headers['content-type'], body, error: true };
  }
  out.steps[name] = rec;
  return rec;
}

// ok returns the body of a step that must have succeeded for the script to go
// on.
function ok(rec, name) {
  if (rec.error) {
    throw new Error(`${name} is needed by later steps and failed: HTTP ${rec.code}: ${JSON.stringify(rec.body)}`);
  }
  return rec.body;
}

function shipment(name, labels, extra = {}) {
  return {
    apiVersion: 'shipping.kubeforge.dev/v1',
    kind: 'Shipment',
    metadata: { name, namespace, labels: { app: 'jsclient', ...labels } },
    spec: {
      origin: { street: 'Hauptstr. 1', city: 'Berlin' },
      destination: { street: 'Rue de Rivoli 2', city: 'Paris', country: 'FR' },
      parcels: [{ name: 'box', weight: '2500' }],
      ...extra,
    },
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// watch starts a watch of the namespace's Shipments with the Watch class and
// records its events into rec.events; rec.closedEarly is set when it ends
// before the function it returns stops it.
async function watch(rec, query) {
  rec.events = [];
  rec.closedEarly = null;
  let stopped = false;
  const controller = await new k8s.Watch(kc).watch(
    shipmentsPath,
    query,
    (type, obj) => {
      const meta = (obj && obj.metadata) || {};
      rec.events.push({
        type,
        kind: obj && obj.kind,
        apiVersion: obj && obj.apiVersion,
        namespace: meta.namespace,
        name: meta.name,
        resourceVersion: meta.resourceVersion,
      });
    },
    (err) => {
      if (!stopped) {
        rec.closedEarly = err ? String(err) : 'closed';
      }
    },
  );
  return () => {
    stopped = true;
    controller.abort();
  };
}

async function until(ms, cond) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) {
      return false;
    }
    await sleep(20);
  }
  return true;
}

async function main() {
  // --- create, get, list, replace, conflicts, errors -------------------------

  await step('create', () =>
    custom.createNamespacedCustomObjectWithHttpInfo({ ...shipments, body: shipment('js-a', { tier: 'gold' }) }),
  );
  await step('createSecond', () =>
    custom.createNamespacedCustomObjectWithHttpInfo({ ...shipments, body: shipment('js-b', { tier: 'silver' }) }),
  );
  const got = ok(
    await step('get', () => custom.getNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-a' })),
    'get',
  );
  await step('listGold', () =>
    custom.listNamespacedCustomObjectWithHttpInfo({ ...shipments, labelSelector: 'app=jsclient,tier=gold' }),
  );

  // A replace carries the resourceVersion it read; its status is ignored
  // (Shipment has a status subresource).
  const replacement = structuredClone(got);
  replacement.spec.tags = ['replaced'];
  replacement.status = { phase: 'Lost' };
  ok(
    await step('replace', () =>
      custom.replaceNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-a', body: replacement }),
    ),
    'replace',
  );
  // The same resourceVersion again is stale now.
  const stale = structuredClone(got);
  stale.spec.tags = ['stale'];
  await step('replaceStale', () =>
    custom.replaceNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-a', body: stale }),
  );

  await step('createInvalid', () =>
    custom.createNamespacedCustomObjectWithHttpInfo({
      ...shipments,
      body: shipment('js-invalid', {}, { priority: 'Whenever', parcels: [{ name: 'box', count: 2000 }] }),
    }),
  );
  await step('getMissing', () => custom.getNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-missing' }));

  // --- patches ---------------------------------------------------------------

  await step('patchMerge', () =>
    custom.patchNamespacedCustomObjectWithHttpInfo(
      {
        ...shipments,
        name: 'js-a',
        body: { metadata: { labels: { patched: 'merge' } }, spec: { carrier: 'dhl', instructions: { door: 'back' } } },
      },
      mergePatch,
    ),
  );
  // Without options the client sends application/json-patch+json, the first
  // content type the OpenAPI operation lists.
  await step('patchJSON', () =>
    custom.patchNamespacedCustomObjectWithHttpInfo({
      ...shipments,
      name: 'js-a',
      body: [
        { op: 'test', path: '/spec/carrier', value: 'dhl' },
        { op: 'add', path: '/spec/tags/-', value: 'express' },
        { op: 'replace', path: '/spec/priority', value: 'Urgent' },
        { op: 'remove', path: '/spec/instructions' },
      ],
    }),
  );

  // --- the status subresource ------------------------------------------------

  const statusGot = ok(
    await step('statusGet', () => custom.getNamespacedCustomObjectStatusWithHttpInfo({ ...shipments, name: 'js-a' })),
    'statusGet',
  );
  const statusBody = structuredClone(statusGot);
  statusBody.status = { phase: 'InTransit', observedGeneration: statusGot.metadata.generation };
  statusBody.spec.carrier = 'ignored-by-status';
  await step('statusReplace', () =>
    custom.replaceNamespacedCustomObjectStatusWithHttpInfo({ ...shipments, name: 'js-a', body: statusBody }),
  );
  await step('statusPatch', () =>
    custom.patchNamespacedCustomObjectStatusWithHttpInfo(
      { ...shipments, name: 'js-a', body: { status: { attempts: 2 } } },
      mergePatch,
    ),
  );

  // --- watch -----------------------------------------------------------------

  const listed = ok(
    await step('watchList', () => custom.listNamespacedCustomObjectWithHttpInfo({ ...shipments })),
    'watchList',
  );
  out.watch.listResourceVersion = listed.metadata.resourceVersion;
  const stopWatch = await watch(out.watch, {
    resourceVersion: listed.metadata.resourceVersion,
    allowWatchBookmarks: true,
  });
  await step('watchCreate', () =>
    custom.createNamespacedCustomObjectWithHttpInfo({ ...shipments, body: shipment('js-w', { watched: 'yes' }) }),
  );
  await step('watchPatch', () =>
    custom.patchNamespacedCustomObjectWithHttpInfo(
      { ...shipments, name: 'js-w', body: { spec: { carrier: 'ups' } } },
      mergePatch,
    ),
  );
  await step('watchDelete', () =>
    custom.deleteNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-w', propagationPolicy: 'Background' }),
  );
  const events = out.watch.events;
  await until(10000, () => events.some((e) => e.type === 'DELETED') || out.watch.closedEarly !== null);
  const start = Date.now();
  const seen = events.length;
  await until(
    bookmarkWaitMs,
    () => events.slice(seen).some((e) => e.type === 'BOOKMARK') || out.watch.closedEarly !== null,
  );
  out.watch.bookmarkWaitMs = Date.now() - start;
  stopWatch();

  // A watch from a resourceVersion in the past (as the client's informer
  // resumes after a dropped connection) replays what happened since: of its
  // own namespace only. The object created in the other namespace comes
  // between the two changes of js-r, so once MODIFIED js-r has arrived
  // anything else replayed has too.
  const before = ok(
    await step('replayList', () => custom.listNamespacedCustomObjectWithHttpInfo({ ...shipments })),
    'replayList',
  );
  out.replay.listResourceVersion = before.metadata.resourceVersion;
  ok(
    await step('replayCreate', () =>
      custom.createNamespacedCustomObjectWithHttpInfo({ ...shipments, body: shipment('js-r', {}) }),
    ),
    'replayCreate',
  );
  ok(
    await step('replayCreateOther', () =>
      custom.createNamespacedCustomObjectWithHttpInfo({
        ...shipments,
        namespace: otherNamespace,
        body: { ...shipment('js-other', {}), metadata: { name: 'js-other', namespace: otherNamespace } },
      }),
    ),
    'replayCreateOther',
  );
  ok(
    await step('replayPatch', () =>
      custom.patchNamespacedCustomObjectWithHttpInfo(
        { ...shipments, name: 'js-r', body: { spec: { carrier: 'dhl' } } },
        mergePatch,
      ),
    ),
    'replayPatch',
  );
  const stopReplay = await watch(out.replay, { resourceVersion: before.metadata.resourceVersion });
  await until(
    10000,
    () => out.replay.events.some((e) => e.type === 'MODIFIED' && e.name === 'js-r') || out.replay.closedEarly !== null,
  );
  stopReplay();

  // --- paginated list --------------------------------------------------------

  for (let i = 0; i < 7; i++) {
    ok(
      await step(`pageCreate${i}`, () =>
        custom.createNamespacedCustomObjectWithHttpInfo({ ...shipments, body: shipment(`js-p-${i}`, { page: 'yes' }) }),
      ),
      `pageCreate${i}`,
    );
  }
  let cont;
  for (let i = 0; i < 10; i++) {
    const page = ok(
      await step(`page${i}`, () =>
        custom.listNamespacedCustomObjectWithHttpInfo({
          ...shipments,
          labelSelector: 'page=yes',
          limit: 3,
          _continue: cont,
        }),
      ),
      `page${i}`,
    );
    out.pages.push({
      resourceVersion: page.metadata.resourceVersion,
      continue: page.metadata.continue,
      names: page.items.map((o) => o.metadata.name),
    });
    if (i === 0) {
      // Created after the first page: a continued list reads the first page's
      // snapshot and must not show it.
      ok(
        await step('pageCreateLate', () =>
          custom.createNamespacedCustomObjectWithHttpInfo({
            ...shipments,
            body: shipment('js-p-late', { page: 'yes' }),
          }),
        ),
        'pageCreateLate',
      );
    }
    cont = page.metadata.continue;
    if (!cont) {
      break;
    }
  }
  for (const name of ['page0', 'page1', 'page2', 'page3']) {
    delete out.steps[name]; // recorded in out.pages; the bodies are long
  }

  // --- delete with a propagation policy --------------------------------------

  // DeleteOptions in the body, as kubectl sends them.
  await step('deleteForeground', () =>
    custom.deleteNamespacedCustomObjectWithHttpInfo({
      ...shipments,
      name: 'js-a',
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
    }),
  );
  const deleteStart = Date.now();
  let gone = false;
  while (Date.now() - deleteStart < 30000) {
    const r = await step('getForegroundDeleted', () =>
      custom.getNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-a' }),
    );
    if (r.code === 404) {
      gone = true;
      break;
    }
    await sleep(100);
  }
  out.foregroundGone = { gone, ms: Date.now() - deleteStart };
  await step('deleteBackground', () =>
    custom.deleteNamespacedCustomObjectWithHttpInfo({ ...shipments, name: 'js-b', propagationPolicy: 'Background' }),
  );

  // --- typed clients: ConfigMap and Lease ------------------------------------

  await step('configMapCreate', () =>
    core.createNamespacedConfigMapWithHttpInfo({
      namespace,
      body: { metadata: { name: 'js-cm', labels: { app: 'jsclient' } }, data: { greeting: 'hello' } },
    }),
  );
  const cm = await step('configMapGet', () => core.readNamespacedConfigMapWithHttpInfo({ namespace, name: 'js-cm' }));
  // The typed client turns date-time fields into Dates.
  out.typed.configMapCreationTimestampIsDate = !cm.error && cm.body.metadata.creationTimestamp instanceof Date;
  await step('configMapList', () =>
    core.listNamespacedConfigMapWithHttpInfo({ namespace, labelSelector: 'app=jsclient' }),
  );
  await step('configMapDelete', () => core.deleteNamespacedConfigMapWithHttpInfo({ namespace, name: 'js-cm' }));
  await step('configMapGetDeleted', () => core.readNamespacedConfigMapWithHttpInfo({ namespace, name: 'js-cm' }));

  // V1MicroTime serializes with six fractional digits, as metav1.MicroTime
  // requires.
  const renew = new k8s.V1MicroTime('2026-01-02T03:04:05.678Z');
  out.typed.leaseRenewTimeSent = renew.toISOString();
  await step('leaseCreate', () =>
    coordination.createNamespacedLeaseWithHttpInfo({
      namespace,
      body: {
        metadata: { name: 'js-lease' },
        spec: { holderIdentity: 'js', leaseDurationSeconds: 15, renewTime: renew, acquireTime: renew },
      },
    }),
  );
  const lease = structuredClone(
    ok(
      await step('leaseGet', () => coordination.readNamespacedLeaseWithHttpInfo({ namespace, name: 'js-lease' })),
      'leaseGet',
    ),
  );
  lease.spec.holderIdentity = 'js-2';
  lease.spec.leaseTransitions = 1;
  await step('leaseReplace', () =>
    coordination.replaceNamespacedLeaseWithHttpInfo({ namespace, name: 'js-lease', body: lease }),
  );
  await step('leaseDelete', () => coordination.deleteNamespacedLeaseWithHttpInfo({ namespace, name: 'js-lease' }));
}

try {
  await main();
} catch (err) {
  process.stderr.write(`${err && err.stack ? err.stack : err}\nresults so far: ${JSON.stringify(out)}\n`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + '\n');
