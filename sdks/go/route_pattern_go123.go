//go:build go1.23

package svc

import "net/http"

// servedPattern is the pattern the ServeMux matched: Go 1.23 records it on the request it routed,
// the one the middleware handed down.
func servedPattern(_ http.Handler, r *http.Request) string {
	return routeFromPattern(r.Pattern)
}
