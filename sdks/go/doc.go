// Package svc traces Go services for the observability stack: a server span per request that
// continues the caller's W3C traceparent, client spans for outbound requests that carry it on,
// spans of your own in context.Context, and log lines that carry the trace id. Everything goes to
// the stack's core in signed batches with the project's ingest key (or as OTLP/HTTP), from a
// bounded queue that never blocks a request and never panics into the app.
//
// The smallest working service:
//
//	tracer, err := svc.NewTracer(svc.Config{Service: "orders", DSN: os.Getenv("SVC_DSN")})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer tracer.Shutdown(context.Background())
//
//	client := &http.Client{Transport: tracer.Transport(nil)}
//	mux := http.NewServeMux()
//	mux.HandleFunc("/v1/orders/", func(w http.ResponseWriter, r *http.Request) {
//		tracer.Log(r.Context(), svc.Info, "order read", nil)
//		ctx, span := svc.Start(r.Context(), "db.select order")
//		defer span.End()
//		...
//	})
//	http.ListenAndServe(":3000", tracer.Middleware(mux))
//
// Head sampling is the one rule every SDK of the stack shares: a trace is kept when the rate is 0
// or at least 1, or when FNV-1a (32 bits) of its id written as 32 lowercase hex characters, over
// 2^32, is below the rate. Every service decides alike from the trace id alone, so a trace is kept
// or dropped whole. A span that ends with status error is sent even when its trace was dropped.
//
// The package uses the standard library only and builds with Go 1.19 and later. Built with Go
// 1.21 or later it adds an slog.Handler (SlogHandler); built with Go 1.22 or later the server span
// is named by the ServeMux pattern that matched the request.
package svc
