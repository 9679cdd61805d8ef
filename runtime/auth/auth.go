// Package auth is the seam between authentication and authorization: who
// made a request (User, put in the request context by the authentication
// filter) and what they asked to do (Attributes, judged by an Authorizer).
// It mirrors the shapes of kube-apiserver's user.Info and
// authorizer.Attributes without importing k8s.io/apiserver.
package auth

import (
	"context"
	"slices"

	"github.com/kubeforge/kubeforge/runtime/request"
)

// Well-known user and group names, as kube-apiserver names them.
const (
	// Anonymous is the user of a request that carries no credentials.
	Anonymous = "system:anonymous"
	// AllUnauthenticated is the group of anonymous requests.
	AllUnauthenticated = "system:unauthenticated"
	// AllAuthenticated is added to every authenticated user's groups.
	AllAuthenticated = "system:authenticated"
	// SystemPrivilegedGroup is always allowed everything (system:masters).
	SystemPrivilegedGroup = "system:masters"
	// ServiceAccountUsernamePrefix precedes "<namespace>:<name>".
	ServiceAccountUsernamePrefix = "system:serviceaccount:"
	// ServiceAccountGroup is the group of every ServiceAccount.
	ServiceAccountGroup = "system:serviceaccounts"
	// ServiceAccountGroupPrefix precedes the namespace in the group of the
	// ServiceAccounts of one namespace.
	ServiceAccountGroupPrefix = "system:serviceaccounts:"
)

// User is an authenticated identity (kube's user.Info). Once a request
// has it, it is read-only: the authenticator shares one User among the
// requests of a client certificate, so a changed user is a new User.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// InGroup reports whether u is a member of group.
func (u *User) InGroup(group string) bool {
	return u != nil && slices.Contains(u.Groups, group)
}

// WithUser returns a context that carries u.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, request.SlotUser, u)
}

// SetUser makes u the user of ctx: in place in the request's
// request.State when ctx has one (the filter chain), else as WithUser.
func SetUser(ctx context.Context, u *User) context.Context {
	return request.SetIn(ctx, request.SlotUser, u)
}

// UserFrom returns the user the authentication filter stored, if any.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(request.SlotUser).(*User)
	return u, ok && u != nil
}

// Attributes describe one request to authorize (kube's
// authorizer.Attributes). For resource requests Verb is get, list, watch,
// create, update, patch, delete or deletecollection (or escalate, bind,
// impersonate for the checks that ask for those); for non-resource requests
// it is the lowercase HTTP method and Path is set. The request fields are
// the embedded request.Info, so the filters hand over what they parsed;
// the audit policy is evaluated with the same attributes.
type Attributes struct {
	User *User
	request.Info
}

// Decision is an authorizer's answer.
type Decision int

const (
	// DecisionNoOpinion lets the next authorizer decide; the last one's
	// no opinion is a denial.
	DecisionNoOpinion Decision = iota
	// DecisionAllow allows the request.
	DecisionAllow
	// DecisionDeny denies it, whatever later authorizers say.
	DecisionDeny
)

// Authorizer decides whether a request may proceed. reason explains a
// denial (it is logged and may be shown); err means the decision could not
// be made.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// AlwaysAllow allows everything (--authorization-mode=AlwaysAllow).
var AlwaysAllow Authorizer = AuthorizerFunc(func(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
})
