package svc

import (
	"context"
	"fmt"
	"time"
)

// Level is a log line's severity, as the ingest format spells it.
type Level string

// The levels the ingest format knows.
const (
	Debug Level = "DEBUG"
	Info  Level = "INFO"
	Warn  Level = "WARN"
	Error Level = "ERROR"
	Fatal Level = "FATAL"
)

// The core keeps a message of at most this many characters.
const maxLogMessage = 65536

// Log sends a log line (source backend) that carries the trace id and span id of the active span
// of ctx, with attrs (at most 64; values cut at 4,096 characters). It never blocks: a full queue
// drops the line and counts it.
func (t *Tracer) Log(ctx context.Context, level Level, message string, attrs map[string]string) {
	record := logRecord{at: time.Now(), level: level, message: message}
	if span := SpanFromContext(ctx); span != nil {
		record.traceID, record.spanID = span.sc.TraceID, span.sc.SpanID
	}
	for key, value := range attrs {
		if len(record.attrs) == maxAttributes {
			break
		}
		if key != "" && len(key) <= maxAttributeKey {
			record.attrs = append(record.attrs, attribute{key, cut(value, maxAttributeValue)})
		}
	}
	t.exporter.addLog(record)
}

// Logf is Log with a message formatted as fmt.Sprintf does, and no attributes.
func (t *Tracer) Logf(ctx context.Context, level Level, format string, args ...interface{}) {
	t.Log(ctx, level, fmt.Sprintf(format, args...), nil)
}

// TraceFields are the trace id and span id of the active span of ctx as hex, for a logger of
// your own (empty outside a span).
func TraceFields(ctx context.Context) (traceID, spanID string) {
	span := SpanFromContext(ctx)
	if span == nil {
		return "", ""
	}
	return span.sc.TraceID.String(), span.sc.SpanID.String()
}
