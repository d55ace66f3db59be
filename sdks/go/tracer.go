package svc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Config configures a Tracer.
type Config struct {
	// Service is the name every span carries (required).
	Service string
	// DSN is the ingest key's DSN, http(s)://<key_id>:<secret>@<host>:<port>/<project_id>.
	// Target may be given instead.
	DSN    string
	Target Target
	// SampleRate is the head-sampling rate in [0, 1]; 0 keeps every trace. Use the same rate in
	// every service: a trace is kept or dropped whole.
	SampleRate float64
	// Exporter tunes the queue, the batches and the retries.
	Exporter ExporterConfig
}

// Tracer makes spans for one service and sends them, with log lines, to the core.
type Tracer struct {
	service    string
	sampleRate float64
	exporter   *exporter
}

// NewTracer checks cfg and starts the exporter. A malformed DSN, a missing service name or a
// rate outside [0, 1] is an error at once.
func NewTracer(cfg Config) (*Tracer, error) {
	if cfg.Service == "" {
		return nil, errors.New("svc: Config.Service is required")
	}
	if err := checkSampleRate(cfg.SampleRate); err != nil {
		return nil, err
	}
	target := cfg.Target
	if cfg.DSN != "" {
		parsed, err := ParseDSN(cfg.DSN)
		if err != nil {
			return nil, err
		}
		target = parsed
	}
	if target.Endpoint == "" || target.KeyID == "" || target.Secret == "" || target.ProjectID == "" {
		return nil, fmt.Errorf("svc: Config.DSN (or every field of Config.Target) is required")
	}
	exp, err := newExporter(cfg.Service, target, cfg.Exporter)
	if err != nil {
		return nil, err
	}
	return &Tracer{service: cfg.Service, sampleRate: cfg.SampleRate, exporter: exp}, nil
}

// Start starts a span under the active span of ctx (a new trace without one) and returns ctx
// with the new span active. End the span when the work is done.
func (t *Tracer) Start(ctx context.Context, operation string, opts ...SpanOption) (context.Context, *Span) {
	if ctx == nil {
		ctx = context.Background()
	}
	var start spanStart
	for _, opt := range opts {
		opt(&start)
	}
	span := t.newSpan(ctx, operation, start)
	return ContextWithSpan(ctx, span), span
}

func (t *Tracer) newSpan(ctx context.Context, operation string, start spanStart) *Span {
	span := &Span{}
	t.initSpan(span, ctx, operation, start)
	return span
}

// initSpan starts span in place (the middleware allocates it with the writer's wrapper).
func (t *Tracer) initSpan(span *Span, ctx context.Context, operation string, start spanStart) {
	span.tracer, span.kind, span.operation, span.start, span.status = t, start.kind, operation, time.Now(), StatusUnset
	if span.kind == "" {
		span.kind = KindInternal
	}
	switch parent := SpanFromContext(ctx); {
	case start.remote != nil:
		span.sc.TraceID, span.parent = start.remote.TraceID, start.remote.SpanID
		newIDs(nil, &span.sc.SpanID)
	case parent != nil && !start.root:
		span.sc.TraceID, span.parent = parent.sc.TraceID, parent.sc.SpanID
		newIDs(nil, &span.sc.SpanID)
	default:
		newIDs(&span.sc.TraceID, &span.sc.SpanID)
	}
	// The decision is made again from the trace id, not taken from the caller's flag: every
	// service computes the same one, whichever SDK the caller used.
	span.sc.Sampled = isSampledID(span.sc.TraceID, t.sampleRate)
}

// Flush sends everything queued now and waits until it is delivered or given up, or ctx ends.
func (t *Tracer) Flush(ctx context.Context) error { return t.exporter.flush(ctx) }

// Shutdown flushes, then stops the exporter: records made later are dropped (and counted). When
// ctx ends first, requests in flight are cancelled and ctx's error returned.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.exporter.shutdown(ctx) }

// Stats counts what the exporter delivered, dropped and holds.
func (t *Tracer) Stats() ExporterStats { return t.exporter.stats() }

// Endpoint is the core's base URL: the client transport leaves requests to it alone.
func (t *Tracer) Endpoint() string { return t.exporter.target.Endpoint }

// isIngest reports whether req goes to the exporter (never traced, never given a traceparent).
func (t *Tracer) isIngest(req *http.Request) bool {
	return req.Header.Get(exporterHeader) != "" || (req.URL != nil && req.URL.Host == t.exporter.host &&
		req.URL.Scheme == t.exporter.scheme)
}
