// Package v1 is the docs test API, version v1.
// +groupName=docs.example.dev
package v1
