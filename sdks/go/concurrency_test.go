package svc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Requests served and made from many goroutines while the exporter flushes: every span arrives
// once, in the right trace, and `go test -race` sees no data race.
func TestConcurrentRequestsEachGetTheirOwnTrace(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{Exporter: ExporterConfig{BatchSize: 7}})
	backend := httptest.NewServer(tracer.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tracer.Log(r.Context(), Info, "backend", nil)
	})))
	defer backend.Close()
	client := &http.Client{Transport: tracer.Transport(nil)}
	front := httptest.NewServer(tracer.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "GET", backend.URL+"/b", nil)
		res, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	})))
	defer front.Close()

	const workers, each = 8, 10
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res, err := http.Get(front.URL + "/f")
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				if i%3 == 0 {
					_ = tracer.Flush(context.Background())
				}
			}
		}()
	}
	wg.Wait()
	flush(t, tracer)

	traces := map[string]int{}
	ids := map[string]bool{}
	for _, s := range core.spans() {
		traces[s["trace_id"].(string)]++
		if ids[s["span_id"].(string)] {
			t.Fatalf("span %v sent twice", s["span_id"])
		}
		ids[s["span_id"].(string)] = true
	}
	if len(traces) != workers*each {
		t.Fatalf("%d traces, want %d", len(traces), workers*each)
	}
	for id, n := range traces {
		if n != 3 {
			t.Errorf("trace %s has %d spans, want 3 (front server, client, backend server)", id, n)
		}
	}
	if len(core.logs()) != workers*each {
		t.Errorf("%d log lines, want %d", len(core.logs()), workers*each)
	}
}
