// Package v1beta1 is the docs test API, version v1beta1.
// +groupName=docs.example.dev
package v1beta1
