//go:build !go1.22

package svc

import "net/http"

// servedPattern is empty before Go 1.22: a ServeMux pattern then is a path prefix, not a route
// ("/v1/orders/" matches every order), so the path with its ids templated names the span better.
func servedPattern(http.Handler, *http.Request) string { return "" }
