package svc

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Kind is what a span stands for: a request served, a call made, or work inside a service.
type Kind string

// The kinds the ingest format knows.
const (
	KindInternal Kind = "internal"
	KindServer   Kind = "server"
	KindClient   Kind = "client"
	KindProducer Kind = "producer"
	KindConsumer Kind = "consumer"
)

// Status is how a span ended. A span with StatusError is sent even when its trace is not sampled.
type Status string

// The statuses the ingest format knows.
const (
	StatusUnset Status = "unset"
	StatusOK    Status = "ok"
	StatusError Status = "error"
)

// Bounds of what a span holds; the core caps stored values the same way.
const (
	maxAttributes     = 64
	maxAttributeKey   = 200
	maxAttributeValue = 4096
	maxOperation      = 500
)

type attribute struct{ key, value string }

// Span is an operation being timed. Its methods are safe for concurrent use, and safe on a nil
// *Span (they do nothing): Start without a tracer in the context answers nil. After End a span
// no longer changes.
type Span struct {
	tracer *Tracer
	sc     SpanContext
	parent SpanID
	kind   Kind
	start  time.Time

	mu        sync.Mutex
	operation string
	// HTTP facts kept as fields and written as attributes on export: no map and no text per request.
	method     string
	statusCode int
	attrs      []attribute
	status     Status
	userID     string
	sessionID  string
	ended      bool
	// duration is set by End; the exporter reads the span only after that, when nothing changes it.
	duration time.Duration
}

type spanKey struct{}

// ContextWithSpan is ctx with span as the active one: spans started from it are its children, and
// log lines written with it carry its trace.
func ContextWithSpan(ctx context.Context, span *Span) context.Context {
	return context.WithValue(ctx, spanKey{}, span)
}

// SpanFromContext is the active span of ctx, or nil.
func SpanFromContext(ctx context.Context) *Span {
	if ctx == nil {
		return nil
	}
	span, _ := ctx.Value(spanKey{}).(*Span)
	return span
}

// SpanOption sets how a span starts.
type SpanOption func(*spanStart)

type spanStart struct {
	kind   Kind
	remote *SpanContext
	root   bool
}

// WithKind sets the span's kind (default KindInternal).
func WithKind(kind Kind) SpanOption { return func(s *spanStart) { s.kind = kind } }

// WithRemoteParent makes the span a child of a span in another process (an inbound traceparent).
func WithRemoteParent(parent SpanContext) SpanOption {
	return func(s *spanStart) { s.remote = &parent }
}

// AsRoot starts a new trace even when ctx holds an active span.
func AsRoot() SpanOption { return func(s *spanStart) { s.root = true } }

// Start starts a span under the active span of ctx, with the tracer that span came from, and
// returns ctx with the new span active. Without an active span it returns ctx and a nil span
// (whose methods do nothing): library code can trace without being handed a tracer.
func Start(ctx context.Context, operation string, opts ...SpanOption) (context.Context, *Span) {
	parent := SpanFromContext(ctx)
	if parent == nil || parent.tracer == nil {
		return ctx, nil
	}
	return parent.tracer.Start(ctx, operation, opts...)
}

// Context is the span's trace id, span id and sampling decision (zero for a nil span).
func (s *Span) Context() SpanContext {
	if s == nil {
		return SpanContext{}
	}
	return s.sc
}

// SetOperation renames the span (a server span learns its route after the handler ran).
func (s *Span) SetOperation(operation string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if !s.ended {
		s.operation = operation
	}
	s.mu.Unlock()
}

// SetAttribute sets key to value, written as text (strings, integers, floats, booleans, errors and
// fmt.Stringers; anything else as fmt writes it). At most 64 attributes; a value is cut at 4,096
// characters.
func (s *Span) SetAttribute(key string, value interface{}) {
	if s == nil || key == "" || len(key) > maxAttributeKey {
		return
	}
	text := attributeText(value)
	if len(text) > maxAttributeValue {
		text = text[:maxAttributeValue]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	for i := range s.attrs {
		if s.attrs[i].key == key {
			s.attrs[i].value = text
			return
		}
	}
	if len(s.attrs) < maxAttributes {
		s.attrs = append(s.attrs, attribute{key, text})
	}
}

func attributeText(value interface{}) string {
	switch v := value.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(value)
}

// SetStatus sets how the span ended; StatusError makes it sent whatever the sampling decided.
func (s *Span) SetStatus(status Status) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if !s.ended {
		s.status = status
	}
	s.mu.Unlock()
}

// settle sets status unless the span was already marked failed (a handler's own verdict wins
// over an HTTP status that looked fine).
func (s *Span) settle(status Status) {
	s.mu.Lock()
	if !s.ended && s.status != StatusError {
		s.status = status
	}
	s.mu.Unlock()
}

// RecordError marks the span failed (status error) with the error's type and message.
func (s *Span) RecordError(err error) {
	if s == nil || err == nil {
		return
	}
	s.SetAttribute("error.type", fmt.Sprintf("%T", err))
	s.SetAttribute("error.message", err.Error())
	s.SetStatus(StatusError)
}

// SetUser names the user (and session) the span served.
func (s *Span) SetUser(userID, sessionID string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if !s.ended {
		s.userID, s.sessionID = userID, sessionID
	}
	s.mu.Unlock()
}

// End times the span and hands it to the exporter (once; later calls do nothing). A span of a
// dropped trace is not sent unless its status is error.
func (s *Span) End() {
	if s == nil {
		return
	}
	duration := time.Since(s.start)
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	keep := s.sc.Sampled || s.status == StatusError
	s.mu.Unlock()
	if keep && s.tracer != nil {
		s.tracer.exporter.addSpan(s, duration)
	}
}
