package svc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// What the SDK adds to a request, served and made over real loopback HTTP (httptest), beside the
// same request without it. The traced variants include everything the SDK does for a request:
// the span, its context, the traceparent, and the export of the span (batched, signed, posted to a
// stand-in core), amortized over the batch. `pnpm bench` runs them alternately and reports the
// difference in ns/op and allocs/op.

func benchTracer(b *testing.B) *Tracer {
	b.Helper()
	core := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	b.Cleanup(core.Close)
	tracer, err := NewTracer(Config{
		Service: "bench",
		DSN:     "http://key_b:secret@" + core.Listener.Addr().String() + "/prj_b",
		// A queue deep enough for a benchmark's burst: nothing is dropped, everything is encoded and sent.
		Exporter: ExporterConfig{MaxQueue: 1 << 20},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tracer.Shutdown(context.Background()) })
	return tracer
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	_, _ = io.WriteString(w, "ok")
})

// benchRequests sends req b.N times and reads each answer to its end.
func benchRequests(b *testing.B, client *http.Client, req *http.Request) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
	b.StopTimer()
}

// benchServer sends the same request, a traceparent included (the caller sends it whether or not
// this service is traced), to handler.
func benchServer(b *testing.B, handler http.Handler) {
	server := httptest.NewServer(handler)
	defer server.Close()
	req, _ := http.NewRequest("GET", server.URL+"/v1/orders/12345", nil)
	req.Header.Set("traceparent", "00-"+tpTrace+"-"+tpSpan+"-01")
	benchRequests(b, server.Client(), req)
}

// BenchmarkServerBare is a request to a plain handler.
func BenchmarkServerBare(b *testing.B) { benchServer(b, okHandler) }

// BenchmarkServerTraced is the same request through Middleware.
func BenchmarkServerTraced(b *testing.B) {
	tracer := benchTracer(b)
	benchServer(b, tracer.Middleware(okHandler))
	_ = tracer.Flush(context.Background())
}

func benchClient(b *testing.B, traced bool) {
	server := httptest.NewServer(okHandler)
	defer server.Close()
	client := server.Client()
	ctx := context.Background()
	if traced {
		tracer := benchTracer(b)
		client = &http.Client{Transport: tracer.Transport(server.Client().Transport)}
		var span *Span
		ctx, span = tracer.Start(ctx, "caller")
		defer span.End()
		defer func() { _ = tracer.Flush(context.Background()) }()
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", server.URL+"/v1/prices/12345", nil)
	benchRequests(b, client, req)
}

// BenchmarkClientBare is an outbound request through the plain transport.
func BenchmarkClientBare(b *testing.B) { benchClient(b, false) }

// BenchmarkClientTraced is the same request through Transport, inside an active span.
func BenchmarkClientTraced(b *testing.B) { benchClient(b, true) }
