//go:build go1.22 && !go1.23

package svc

import "net/http"

// servedPattern asks the ServeMux which pattern matches: Go 1.22 routes by method and wildcard
// patterns but does not record the match on the request.
func servedPattern(next http.Handler, r *http.Request) string {
	mux, ok := next.(*http.ServeMux)
	if !ok {
		return ""
	}
	_, pattern := mux.Handler(r)
	return routeFromPattern(pattern)
}
