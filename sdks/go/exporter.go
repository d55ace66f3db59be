package svc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Protocol is how the exporter sends.
type Protocol int

const (
	// ProtocolBatch posts signed batches to the core's /ingest/v1/batch (the default): each body
	// signed with the key's secret, one Idempotency-Key per batch kept across its retries, so a
	// retried batch is stored once.
	ProtocolBatch Protocol = iota
	// ProtocolOTLP posts OTLP/HTTP JSON to the core's /v1/traces and /v1/logs with the key in the
	// X-Svc-Ingest-Key header (for a collector or gateway that speaks OTLP in between).
	ProtocolOTLP
)

// ExporterConfig tunes the exporter; a zero field takes its default.
type ExporterConfig struct {
	// MaxQueue bounds the records held (waiting or being sent); beyond it new ones are dropped
	// and counted. Default 10,000.
	MaxQueue int
	// BatchSize is the records per request. Default 500.
	BatchSize int
	// FlushInterval is how long a partial batch waits at most. Default 1 s.
	FlushInterval time.Duration
	// MaxAttempts is the tries per request on 409, 429, 5xx or a network error. Default 5.
	MaxAttempts int
	// RetryBase is the first retry's delay, doubled each attempt (full jitter), unless the answer
	// names a Retry-After (at most a minute). Default 200 ms.
	RetryBase time.Duration
	// Concurrency is the requests in flight at most. Default 4.
	Concurrency int
	// Timeout is per request. Default 10 s.
	Timeout time.Duration
	// Protocol: ProtocolBatch (default) or ProtocolOTLP.
	Protocol Protocol
	// OnError is told of what could not be delivered, from the exporter's goroutines; never
	// called on a request's path. Default: nothing.
	OnError func(ExportError)
	// Client sends the requests. Default: a client with a transport of its own, so an app that
	// instruments http.DefaultTransport does not trace the exporter.
	Client *http.Client
}

// ExportError is what could not be delivered.
type ExportError struct {
	// Reason: "queue_full", "rejected" (the core refused the records: 4xx), or "gave_up" (retries
	// ran out, or Shutdown cancelled them). Records made after Shutdown are only counted.
	Reason  string
	Records int
	// Status is the last answer's HTTP status (0 for a network error or none).
	Status int
}

func (e ExportError) Error() string {
	return fmt.Sprintf("svc: %d records not delivered (%s, status %d)", e.Records, e.Reason, e.Status)
}

// ExporterStats counts records.
type ExporterStats struct {
	// Sent were answered 2xx (a repeat the core had stored already included).
	Sent int64
	// Dropped: the queue was full, the core refused them, retries ran out, or after Shutdown.
	Dropped int64
	// Queued are held now: waiting for a batch, or in one not yet delivered.
	Queued int64
}

type logRecord struct {
	at      time.Time
	level   Level
	message string
	traceID TraceID
	spanID  SpanID
	attrs   []attribute
}

type exporter struct {
	// service names the resource of OTLP requests (every span and log line of a tracer has it).
	service string
	cfg     ExporterConfig
	target  Target
	host    string
	scheme  string
	client  *http.Client
	// ctx is cancelled when Shutdown's own context ends first: requests in flight stop.
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	clock  clockOffset

	mu         sync.Mutex
	spans      []*Span
	logs       []logRecord
	held       int
	timerArmed bool
	closed     bool
	pending    map[*batch]struct{}
	// Records dropped for a full queue and not reported yet: told to OnError off the request path.
	unreportedFull int

	sent    atomic.Int64
	dropped atomic.Int64
}

type batch struct {
	spans   []*Span
	logs    []logRecord
	records int
	key     string
	done    chan struct{}
}

func newExporter(service string, target Target, cfg ExporterConfig) (*exporter, error) {
	u, err := url.Parse(target.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("svc: the ingest endpoint must be an http(s) URL")
	}
	cfg = withDefaults(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	e := &exporter{
		service: service, cfg: cfg, target: target, host: u.Host, scheme: u.Scheme, client: cfg.Client,
		ctx: ctx, cancel: cancel, sem: make(chan struct{}, cfg.Concurrency),
		pending: map[*batch]struct{}{},
	}
	if e.client == nil {
		e.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return e, nil
}

func withDefaults(cfg ExporterConfig) ExporterConfig {
	positive := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	positive(&cfg.MaxQueue, 10000)
	positive(&cfg.BatchSize, 500)
	positive(&cfg.MaxAttempts, 5)
	positive(&cfg.Concurrency, 4)
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = time.Second
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 200 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	return cfg
}

func (e *exporter) addSpan(s *Span, duration time.Duration) {
	s.duration = duration
	e.add(func() { e.spans = append(e.spans, s) })
}

func (e *exporter) addLog(r logRecord) { e.add(func() { e.logs = append(e.logs, r) }) }

// add queues one record: a short lock, never a wait. A full batch goes out at once; the first
// record of a partial one arms the flush interval.
func (e *exporter) add(push func()) {
	e.mu.Lock()
	if e.closed || e.held >= e.cfg.MaxQueue {
		if !e.closed {
			e.unreportedFull++
		}
		e.mu.Unlock()
		e.dropped.Add(1)
		return
	}
	push()
	e.held++
	var full *batch
	if len(e.spans)+len(e.logs) >= e.cfg.BatchSize {
		full = e.cutLocked()
	} else if !e.timerArmed {
		e.timerArmed = true
		time.AfterFunc(e.cfg.FlushInterval, e.flushDue)
	}
	e.mu.Unlock()
	if full != nil {
		go e.post(full)
	}
}

// cutLocked takes up to BatchSize queued records as a batch, pending until delivered or dropped.
func (e *exporter) cutLocked() *batch {
	n := len(e.spans) + len(e.logs)
	if n == 0 {
		return nil
	}
	b := &batch{key: NewTraceID().String(), done: make(chan struct{})}
	take := e.cfg.BatchSize
	if len(e.spans) > 0 {
		k := min(take, len(e.spans))
		b.spans = append([]*Span(nil), e.spans[:k]...)
		e.spans = append(e.spans[:0], e.spans[k:]...)
		take -= k
	}
	if take > 0 && len(e.logs) > 0 {
		k := min(take, len(e.logs))
		b.logs = append([]logRecord(nil), e.logs[:k]...)
		e.logs = append(e.logs[:0], e.logs[k:]...)
	}
	b.records = len(b.spans) + len(b.logs)
	e.pending[b] = struct{}{}
	return b
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// flushDue sends what waited a whole interval.
func (e *exporter) flushDue() {
	e.mu.Lock()
	e.timerArmed = false
	batches := e.cutAllLocked()
	e.mu.Unlock()
	for _, b := range batches {
		go e.post(b)
	}
}

func (e *exporter) cutAllLocked() []*batch {
	var out []*batch
	for b := e.cutLocked(); b != nil; b = e.cutLocked() {
		out = append(out, b)
	}
	return out
}

// flush sends everything queued now and waits for it and for what was already in flight.
func (e *exporter) flush(ctx context.Context) error {
	e.mu.Lock()
	batches := e.cutAllLocked()
	waits := make([]chan struct{}, 0, len(e.pending))
	for b := range e.pending {
		waits = append(waits, b.done)
	}
	e.mu.Unlock()
	for _, b := range batches {
		go e.post(b)
	}
	for _, done := range waits {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (e *exporter) shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	err := e.flush(ctx)
	// Requests still in flight (ctx ended first) are cancelled: Shutdown returns promptly.
	e.cancel()
	return err
}

func (e *exporter) stats() ExporterStats {
	e.mu.Lock()
	held := e.held
	e.mu.Unlock()
	return ExporterStats{Sent: e.sent.Load(), Dropped: e.dropped.Load(), Queued: int64(held)}
}

// settle ends a batch: counted sent or dropped, no longer held, its waiters released.
func (e *exporter) settle(b *batch, sent int, failures []ExportError) {
	e.sent.Add(int64(sent))
	e.dropped.Add(int64(b.records - sent))
	e.mu.Lock()
	e.held -= b.records
	delete(e.pending, b)
	full := e.unreportedFull
	e.unreportedFull = 0
	e.mu.Unlock()
	// OnError hears of the batch before Flush returns: a caller that flushed sees the report.
	defer close(b.done)
	if e.cfg.OnError == nil {
		return
	}
	for _, failure := range failures {
		e.report(failure)
	}
	if full > 0 {
		e.report(ExportError{Reason: "queue_full", Records: full})
	}
}

// report calls OnError; a panic there is the app's bug, but must not kill the exporter.
func (e *exporter) report(err ExportError) {
	defer func() { _ = recover() }()
	e.cfg.OnError(err)
}
