// Package v1 forgot its +groupName.
package v1
