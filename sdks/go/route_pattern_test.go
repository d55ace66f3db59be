//go:build go1.22

// The module's go.mod names go 1.19, so its own tests would get the Go 1.21 ServeMux; an app whose
// go.mod names go 1.22 or later gets the pattern router, as here.
//go:debug httpmuxgo121=0

package svc

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMiddlewareNamesTheSpanByTheServeMuxPattern(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/orders/{id}", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	if span := serveOne(t, tracer, core, mux, httptest.NewRequest("GET", "/v1/orders/ab12", nil)); span["operation"] != "GET /v1/orders/{id}" {
		t.Errorf("operation %v", span["operation"])
	}
	// The catch-all names no route: the path with its ids templated does.
	if span := serveOne(t, tracer, core, mux, httptest.NewRequest("GET", "/v2/things/123", nil)); span["operation"] != "GET /v2/things/:id" {
		t.Errorf("operation %v", span["operation"])
	}
}
