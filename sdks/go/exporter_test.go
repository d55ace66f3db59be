package svc

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBatchesAreSignedAndCarryTheRecords(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{SampleRate: 0})
	ctx, span := tracer.Start(context.Background(), "checkout.pay", WithKind(KindInternal))
	span.SetAttribute("cart.items", 3)
	span.SetAttribute("quote", "a \"b\"\n\x01 \xff")
	span.SetUser("u1", "s1")
	tracer.Log(ctx, Warn, "card declined", map[string]string{"card": "visa"})
	span.End()
	flush(t, tracer)

	reqs := core.received()
	if len(reqs) != 1 || reqs[0].Path != "/ingest/v1/batch" || reqs[0].Key != testKeyID || reqs[0].IdempotencyKey == "" {
		t.Fatalf("requests: %+v", reqs)
	}
	spans, logs := core.spans(), core.logs()
	if len(spans) != 1 || len(logs) != 1 {
		t.Fatalf("spans %v logs %v", spans, logs)
	}
	s := spans[0]
	sc := span.Context()
	want := map[string]interface{}{
		"trace_id": sc.TraceID.String(), "span_id": sc.SpanID.String(), "kind": "internal", "status": "unset",
		"operation": "checkout.pay", "service": "checkout", "user_id": "u1", "session_id": "s1",
	}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("span %s = %v, want %v", k, s[k], v)
		}
	}
	attrs := s["attributes"].(map[string]interface{})
	if attrs["cart.items"] != "3" || attrs["quote"] != "a \"b\"\n\x01 \ufffd" {
		t.Errorf("attributes %v", attrs)
	}
	if _, has := s["parent_span_id"]; has {
		t.Error("a root span has no parent")
	}
	if _, has := s["sample_rate"]; has {
		t.Error("sample_rate is stated only when traces are sampled")
	}
	l := logs[0]
	if l["trace_id"] != sc.TraceID.String() || l["span_id"] != sc.SpanID.String() || l["level"] != "WARN" ||
		l["source"] != "backend" || l["message"] != "card declined" {
		t.Errorf("log %v", l)
	}
	if st := tracer.Stats(); st.Sent != 2 || st.Dropped != 0 || st.Queued != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestARetryKeepsItsIdempotencyKeyAndIsSignedAnew(t *testing.T) {
	core := newFakeCore(t)
	core.answer(503, http.Header{"Retry-After": {"0"}})
	core.answer(429, nil)
	tracer := newTestTracer(t, core, Config{})
	_, span := tracer.Start(context.Background(), "op")
	span.End()
	flush(t, tracer)
	reqs := core.received()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (two refused, one accepted)", len(reqs))
	}
	for _, r := range reqs[1:] {
		if r.IdempotencyKey != reqs[0].IdempotencyKey || string(r.Body) != string(reqs[0].Body) {
			t.Fatal("a retry must send the same body under the same Idempotency-Key")
		}
	}
	if st := tracer.Stats(); st.Sent != 1 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestRefusedAndGivenUpBatchesAreCountedAndReported(t *testing.T) {
	core := newFakeCore(t)
	var mu sync.Mutex
	var reported []ExportError
	onError := func(e ExportError) {
		mu.Lock()
		reported = append(reported, e)
		mu.Unlock()
	}
	core.answer(400, nil)
	tracer := newTestTracer(t, core, Config{Exporter: ExporterConfig{OnError: onError, MaxAttempts: 2}})
	_, span := tracer.Start(context.Background(), "refused")
	span.End()
	flush(t, tracer)
	core.answer(503, nil)
	core.answer(503, nil)
	_, span = tracer.Start(context.Background(), "given up")
	span.End()
	flush(t, tracer)

	if len(core.received()) != 3 {
		t.Fatalf("%d requests: a 400 is not retried, a 503 is retried up to MaxAttempts", len(core.received()))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 2 || reported[0] != (ExportError{"rejected", 1, 400}) || reported[1] != (ExportError{"gave_up", 1, 503}) {
		t.Errorf("reported %+v", reported)
	}
	if st := tracer.Stats(); st.Dropped != 2 || st.Sent != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestAClockOffByHoursIsCorrectedFromTheCoresDate(t *testing.T) {
	core := newFakeCore(t)
	core.clock = 3 * time.Hour
	tracer := newTestTracer(t, core, Config{})
	_, span := tracer.Start(context.Background(), "op")
	span.End()
	flush(t, tracer)
	reqs := core.received()
	if len(reqs) != 2 || tracer.Stats().Sent != 1 {
		t.Fatalf("%d requests, stats %+v: a 401 with a far Date is retried once at the core's time", len(reqs), tracer.Stats())
	}
	if skew := reqs[1].Timestamp - reqs[0].Timestamp; skew < 3*3600-60 || skew > 3*3600+60 {
		t.Errorf("the retry was signed %d s after the first try, want about 3 h", skew)
	}
}

func TestTheQueueIsBoundedAndNeverBlocks(t *testing.T) {
	core := newFakeCore(t)
	core.hold = make(chan struct{})
	var mu sync.Mutex
	full := 0
	tracer := newTestTracer(t, core, Config{Exporter: ExporterConfig{
		MaxQueue: 10, BatchSize: 5,
		OnError: func(e ExportError) {
			if e.Reason == "queue_full" {
				mu.Lock()
				full += e.Records
				mu.Unlock()
			}
		},
	}})
	for i := 0; i < 25; i++ {
		tracer.Log(context.Background(), Info, "line", nil)
	}
	if st := tracer.Stats(); st.Queued != 10 || st.Dropped != 15 {
		t.Fatalf("stats %+v: 10 held (two batches on the wire), 15 dropped", st)
	}
	close(core.hold)
	flush(t, tracer)
	if st := tracer.Stats(); st.Sent != 10 || st.Dropped != 15 || st.Queued != 0 {
		t.Errorf("stats %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if full != 15 {
		t.Errorf("queue_full reported %d records, want 15", full)
	}
}

func TestAPartialBatchGoesAfterTheFlushInterval(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{Exporter: ExporterConfig{FlushInterval: 10 * time.Millisecond}})
	tracer.Log(context.Background(), Info, "alone", nil)
	deadline := time.Now().Add(2 * time.Minute)
	for len(core.logs()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if len(core.logs()) != 1 {
		t.Fatal("the partial batch was never sent")
	}
}

func TestShutdownFlushesThenDropsLaterRecords(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	_, span := tracer.Start(context.Background(), "before")
	span.End()
	if err := tracer.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(core.spans()) != 1 {
		t.Fatal("Shutdown did not flush")
	}
	_, span = tracer.Start(context.Background(), "after")
	span.End()
	if st := tracer.Stats(); st.Dropped != 1 || st.Queued != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestShutdownWhoseContextEndsCancelsTheRequestsInFlight(t *testing.T) {
	core := newFakeCore(t)
	core.hold = make(chan struct{})
	defer close(core.hold)
	tracer := newTestTracer(t, core, Config{})
	tracer.Log(context.Background(), Info, "stuck", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tracer.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Shutdown = %v, want the context's error", err)
	}
	wait, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	defer stop()
	for tracer.Stats().Queued != 0 && wait.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if st := tracer.Stats(); st.Dropped != 1 || st.Queued != 0 {
		t.Errorf("stats %+v: the cancelled request's record is dropped", st)
	}
}

func TestOTLPSendsTracesAndLogsWithTheKeyHeader(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{SampleRate: 0.999999, Exporter: ExporterConfig{Protocol: ProtocolOTLP}})
	ctx, span := tracer.Start(context.Background(), "GET /x", WithKind(KindServer))
	tracer.Log(ctx, Error, "boom", nil)
	span.SetStatus(StatusError)
	span.End()
	flush(t, tracer)
	paths := map[string][]byte{}
	for _, r := range core.received() {
		if r.IngestKey != testKeyID+":"+testSecret {
			t.Errorf("%s without the ingest key header", r.Path)
		}
		paths[r.Path] = r.Body
	}
	var traces struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []struct {
					Key   string
					Value struct{ StringValue string }
				}
			}
			ScopeSpans []struct {
				Spans []struct {
					TraceID           string `json:"traceId"`
					Name              string
					Kind              int
					StartTimeUnixNano string
					EndTimeUnixNano   string
					Status            struct{ Code int }
				}
			}
		}
	}
	if err := json.Unmarshal(paths["/v1/traces"], &traces); err != nil {
		t.Fatalf("traces body %s: %v", paths["/v1/traces"], err)
	}
	got := traces.ResourceSpans[0].ScopeSpans[0].Spans[0]
	if got.TraceID != span.Context().TraceID.String() || got.Name != "GET /x" || got.Kind != 2 || got.Status.Code != 2 ||
		traces.ResourceSpans[0].Resource.Attributes[0].Value.StringValue != "checkout" {
		t.Errorf("OTLP span %+v", got)
	}
	if !strings.Contains(string(paths["/v1/logs"]), `"severityNumber":17`) ||
		!strings.Contains(string(paths["/v1/logs"]), span.Context().TraceID.String()) {
		t.Errorf("OTLP logs %s", paths["/v1/logs"])
	}
}

func TestAPanickingOnErrorDoesNotStopTheExporter(t *testing.T) {
	core := newFakeCore(t)
	core.answer(400, nil)
	tracer := newTestTracer(t, core, Config{Exporter: ExporterConfig{OnError: func(ExportError) { panic("app bug") }}})
	tracer.Log(context.Background(), Info, "one", nil)
	flush(t, tracer)
	tracer.Log(context.Background(), Info, "two", nil)
	flush(t, tracer)
	if st := tracer.Stats(); st.Sent != 1 || st.Dropped != 1 {
		t.Errorf("stats %+v", st)
	}
}
