package openapi

// AcceptanceAPI exposes the hand-built fixture to the external tests.
var AcceptanceAPI = acceptanceAPI
