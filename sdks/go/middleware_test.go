package svc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serve runs one request through the traced handler and returns the exported server span.
func serveOne(t *testing.T, tracer *Tracer, core *fakeCore, h http.Handler, req *http.Request, opts ...MiddlewareOption) map[string]interface{} {
	t.Helper()
	before := len(core.spans())
	tracer.Middleware(h, opts...).ServeHTTP(httptest.NewRecorder(), req)
	flush(t, tracer)
	spans := core.spans()
	if len(spans) != before+1 {
		t.Fatalf("%d spans exported, want 1", len(spans)-before)
	}
	return spans[len(spans)-1]
}

func TestMiddlewareContinuesTheCallersTrace(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	var seen SpanContext
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = SpanFromContext(r.Context()).Context()
		w.WriteHeader(http.StatusCreated)
	})
	req := httptest.NewRequest("POST", "/v1/orders/12345/items", nil)
	req.Header.Set("traceparent", "00-"+tpTrace+"-"+tpSpan+"-01")
	span := serveOne(t, tracer, core, h, req)
	if span["trace_id"] != tpTrace || span["parent_span_id"] != tpSpan || span["span_id"] != seen.SpanID.String() {
		t.Errorf("span %v, handler saw %+v", span, seen)
	}
	attrs := span["attributes"].(map[string]interface{})
	if span["kind"] != "server" || span["operation"] != "POST /v1/orders/:id/items" || span["status"] != "ok" ||
		attrs["http.method"] != "POST" || attrs["http.status_code"] != "201" {
		t.Errorf("span %v", span)
	}
}

func TestMiddlewareStartsARootTraceWithoutAValidHeader(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	for _, headers := range [][]string{nil, {"garbage"}, {"00-" + tpTrace + "-" + tpSpan + "-01", "00-" + tpTrace + "-" + tpSpan + "-01"}} {
		req := httptest.NewRequest("GET", "/health", nil)
		for _, h := range headers {
			req.Header.Add("Traceparent", h)
		}
		span := serveOne(t, tracer, core, http.NotFoundHandler(), req)
		if span["trace_id"] == tpTrace || span["parent_span_id"] != nil {
			t.Errorf("headers %q: span %v must be a new root", headers, span)
		}
	}
}

func TestMiddlewareMarks5xxAndPanicsAsErrorsAndRepanics(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	span := serveOne(t, tracer, core, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}), httptest.NewRequest("GET", "/a", nil))
	if span["status"] != "error" {
		t.Errorf("a 502 answer: status %v", span["status"])
	}

	panicking := tracer.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("nil map") }))
	func() {
		defer func() {
			if p := recover(); p != "nil map" {
				t.Errorf("the panic must go on up unchanged, got %v", p)
			}
		}()
		panicking.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/p", nil))
	}()
	flush(t, tracer)
	spans := core.spans()
	last := spans[len(spans)-1]
	attrs := last["attributes"].(map[string]interface{})
	if last["status"] != "error" || attrs["error.message"] != "nil map" || attrs["http.status_code"] != "500" {
		t.Errorf("panic span %v", last)
	}
}

func TestAHandlersOwnErrorVerdictWins(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	span := serveOne(t, tracer, core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SpanFromContext(r.Context()).RecordError(io.ErrUnexpectedEOF)
		w.WriteHeader(http.StatusOK)
	}), httptest.NewRequest("GET", "/soft-failure", nil))
	if span["status"] != "error" {
		t.Errorf("status %v: the handler marked its span failed", span["status"])
	}
}

func TestMiddlewareNamesTheRouteAndIgnoresWhatItIsTold(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	route := WithRoute(func(*http.Request) string { return "/v1/carts/{cart}" })
	span := serveOne(t, tracer, core, http.NotFoundHandler(), httptest.NewRequest("GET", "/v1/carts/abc", nil), route)
	if span["operation"] != "GET /v1/carts/{cart}" {
		t.Errorf("operation %v", span["operation"])
	}
	ignored := tracer.Middleware(http.NotFoundHandler(), WithIgnore(func(r *http.Request) bool { return r.URL.Path == "/healthz" }))
	ignored.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
	flush(t, tracer)
	if len(core.spans()) != 1 {
		t.Error("an ignored request was traced")
	}
}

func TestADroppedTraceSendsOnlyItsErrorSpans(t *testing.T) {
	core := newFakeCore(t)
	// 00000000000000000000000000000001 is dropped at 0.5 (the shared vectors).
	tracer := newTestTracer(t, core, Config{SampleRate: 0.5})
	req := httptest.NewRequest("GET", "/ok", nil)
	req.Header.Set("traceparent", "00-00000000000000000000000000000001-"+tpSpan+"-01")
	var inner *Span
	tracer.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, ok := Start(r.Context(), "kept? no")
		ok.End()
		_, inner = Start(r.Context(), "failing step")
		inner.RecordError(io.ErrUnexpectedEOF)
		inner.End()
	})).ServeHTTP(httptest.NewRecorder(), req)
	flush(t, tracer)
	spans := core.spans()
	if len(spans) != 1 || spans[0]["operation"] != "failing step" || spans[0]["sample_rate"] != 0.5 {
		t.Fatalf("spans %v: only the error span of a dropped trace is sent, with its rate", spans)
	}
	if inner.Context().Sampled {
		t.Error("the trace should have been dropped at 0.5")
	}
}

func TestStatusRecorderPassesFlushThrough(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	rec := httptest.NewRecorder()
	tracer.Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "part")
		w.(http.Flusher).Flush()
	})).ServeHTTP(rec, httptest.NewRequest("GET", "/stream", nil))
	if !rec.Flushed || !strings.Contains(rec.Body.String(), "part") {
		t.Error("Flush did not reach the writer")
	}
}

func TestSpansInContext(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	if ctx, span := Start(context.Background(), "no tracer"); span != nil || ctx != context.Background() {
		t.Fatal("Start without an active span must answer a nil span")
	}
	var nilSpan *Span
	nilSpan.SetAttribute("k", "v")
	nilSpan.RecordError(io.EOF)
	nilSpan.End()

	ctx, parent := tracer.Start(context.Background(), "parent")
	_, child := Start(ctx, "child", WithKind(KindClient))
	child.End()
	child.SetAttribute("late", "ignored")
	_, root := tracer.Start(ctx, "other", AsRoot())
	root.End()
	parent.End()
	parent.End()
	flush(t, tracer)
	spans := core.spans()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (End twice sends once)", len(spans))
	}
	byName := map[string]map[string]interface{}{}
	for _, s := range spans {
		byName[s["operation"].(string)] = s
	}
	if byName["child"]["parent_span_id"] != parent.Context().SpanID.String() ||
		byName["child"]["trace_id"] != parent.Context().TraceID.String() || byName["child"]["kind"] != "client" {
		t.Errorf("child %v", byName["child"])
	}
	if byName["child"]["attributes"] != nil {
		t.Error("an attribute set after End was kept")
	}
	if byName["other"]["trace_id"] == parent.Context().TraceID.String() {
		t.Error("AsRoot must start a new trace")
	}
}
