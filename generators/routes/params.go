package routes

// param is one path or query parameter of a route.
type param struct {
	name     string
	path     bool
	dataType string // "string", "integer", "boolean"
	desc     string
}

// Descriptions follow kube-apiserver's OpenAPI so that kubectl explain and
// generated clients read the same text.
var (
	pNamespace = param{name: "namespace", path: true, dataType: "string",
		desc: "object name and auth scope, such as for teams and projects"}
	pPretty = param{name: "pretty", dataType: "string",
		desc: "If 'true', then the output is pretty printed."}
	pDryRun = param{name: "dryRun", dataType: "string",
		desc: "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed"}
	pFieldManager = param{name: "fieldManager", dataType: "string",
		desc: "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."}
	pFieldValidation = param{name: "fieldValidation", dataType: "string",
		desc: "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: unknown fields are dropped silently. - Warn: unknown fields are dropped and a warning is sent in the Warning response header (the default). - Strict: the request fails with a BadRequest error naming the unknown fields."}
	pForce = param{name: "force", dataType: "boolean",
		desc: "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests."}
	pLabelSelector = param{name: "labelSelector", dataType: "string",
		desc: "A selector to restrict the list of returned objects by their labels. Defaults to everything."}
	pFieldSelector = param{name: "fieldSelector", dataType: "string",
		desc: "A selector to restrict the list of returned objects by their fields. Defaults to everything."}
	pLimit = param{name: "limit", dataType: "integer",
		desc: "limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Every page is read at the revision of the first one."}
	pContinue = param{name: "continue", dataType: "string",
		desc: "The continue option should be set when retrieving more results from the server. Its value is the opaque token returned in the previous page's metadata.continue; the other query parameters must be the same as in the first request."}
	pResourceVersion = param{name: "resourceVersion", dataType: "string",
		desc: "resourceVersion sets a constraint on what resource versions a request may be served from: unset means the most recent (a quorum read), \"0\" means any, N with resourceVersionMatch."}
	pResourceVersionMatch = param{name: "resourceVersionMatch", dataType: "string",
		desc: "resourceVersionMatch determines how resourceVersion is applied to list calls: NotOlderThan or Exact. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set."}
	pTimeoutSeconds = param{name: "timeoutSeconds", dataType: "integer",
		desc: "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity."}
	pWatch = param{name: "watch", dataType: "boolean",
		desc: "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion."}
	pAllowWatchBookmarks = param{name: "allowWatchBookmarks", dataType: "boolean",
		desc: "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server's discretion."}
	pSendInitialEvents = param{name: "sendInitialEvents", dataType: "boolean",
		desc: "`sendInitialEvents=true` may be set together with `watch=true`. The watch stream then begins with synthetic ADDED events for the current state, followed by a BOOKMARK annotated \"k8s.io/initial-events-end\": \"true\". resourceVersionMatch must be NotOlderThan."}
	pGracePeriodSeconds = param{name: "gracePeriodSeconds", dataType: "integer",
		desc: "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately."}
	pPropagationPolicy = param{name: "propagationPolicy", dataType: "string",
		desc: "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'."}
)

// Parameter sets per action, in kube-apiserver's order (alphabetical after pretty).
var (
	listParams = []param{pPretty, pAllowWatchBookmarks, pContinue, pFieldSelector, pLabelSelector, pLimit,
		pResourceVersion, pResourceVersionMatch, pSendInitialEvents, pTimeoutSeconds, pWatch}
	createParams           = []param{pPretty, pDryRun, pFieldManager, pFieldValidation}
	deleteCollectionParams = []param{pPretty, pContinue, pDryRun, pFieldSelector, pGracePeriodSeconds, pLabelSelector,
		pLimit, pPropagationPolicy, pResourceVersion, pResourceVersionMatch, pSendInitialEvents, pTimeoutSeconds}
	readParams    = []param{pPretty}
	replaceParams = []param{pPretty, pDryRun, pFieldManager, pFieldValidation}
	patchParams   = []param{pPretty, pDryRun, pFieldManager, pFieldValidation, pForce}
	deleteParams  = []param{pPretty, pDryRun, pGracePeriodSeconds, pPropagationPolicy}
)
