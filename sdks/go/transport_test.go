package svc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTransportCarriesTheTraceAndRecordsAClientSpan(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	var got string
	callee := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("traceparent")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer callee.Close()
	client := &http.Client{Transport: tracer.Transport(nil)}

	ctx, parent := tracer.Start(context.Background(), "handler", WithKind(KindServer))
	req, _ := http.NewRequestWithContext(ctx, "GET", callee.URL+"/v1/users/usr_k3vkzzr97hszmn14puzv", nil)
	req.Header.Set("X-Own", "kept")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if req.Header.Get("traceparent") != "" || req.Header.Get("X-Own") != "kept" {
		t.Error("the caller's request must not be modified")
	}
	sc, ok := ParseTraceparent(got)
	if !ok || sc.TraceID != parent.Context().TraceID || !sc.Sampled {
		t.Fatalf("the callee got traceparent %q", got)
	}
	failReq, _ := http.NewRequestWithContext(ctx, "POST", callee.URL+"/fail", nil)
	res, err = client.Do(failReq)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	parent.End()
	flush(t, tracer)

	byOp := map[string]map[string]interface{}{}
	for _, s := range core.spans() {
		byOp[s["operation"].(string)] = s
	}
	host := req.URL.Host
	span := byOp["GET "+host+"/v1/users/:id"]
	if span == nil || span["kind"] != "client" || span["span_id"] != sc.SpanID.String() ||
		span["parent_span_id"] != parent.Context().SpanID.String() || span["status"] != "ok" {
		t.Fatalf("client span %v (spans %v)", span, byOp)
	}
	if failed := byOp["POST "+host+"/fail"]; failed == nil || failed["status"] != "error" ||
		failed["attributes"].(map[string]interface{})["http.status_code"] != "503" {
		t.Errorf("a 503 answer: %v", failed)
	}
}

func TestTransportErrorsAreRecorded(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	broken := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("connection refused") })
	client := &http.Client{Transport: tracer.Transport(broken)}
	if _, err := client.Get("http://127.0.0.1:1/x"); err == nil {
		t.Fatal("want the transport's error")
	}
	flush(t, tracer)
	spans := core.spans()
	if len(spans) != 1 || spans[0]["status"] != "error" ||
		spans[0]["attributes"].(map[string]interface{})["error.message"] != "connection refused" {
		t.Errorf("spans %v", spans)
	}
}

func TestTransportLeavesTheIngestEndpointAlone(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	var seen []*http.Request
	spy := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r)
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})
	client := &http.Client{Transport: tracer.Transport(spy)}
	ctx, span := tracer.Start(context.Background(), "op")
	req, _ := http.NewRequestWithContext(ctx, "POST", core.URL+"/ingest/v1/batch", nil)
	if _, err := client.Do(req); err != nil {
		t.Fatal(err)
	}
	span.End()
	flush(t, tracer)
	if len(seen) != 1 || seen[0].Header.Get("traceparent") != "" {
		t.Error("a request to the ingest endpoint got a traceparent")
	}
	if len(core.spans()) != 1 {
		t.Errorf("spans %v: the ingest request must not be traced", core.spans())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
