package svc

import (
	"context"
	"strings"
	"testing"
)

func TestLogLinesCarryTheActiveSpansTrace(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	ctx, span := tracer.Start(context.Background(), "op")
	tracer.Logf(ctx, Info, "order %d read", 42)
	tracer.Log(context.Background(), Debug, "outside", nil)
	tracer.Log(ctx, Error, strings.Repeat("x", maxLogMessage+10), map[string]string{"": "no key", "k": "v"})
	traceID, spanID := TraceFields(ctx)
	span.End()
	flush(t, tracer)
	logs := core.logs()
	if len(logs) != 3 {
		t.Fatalf("logs %v", logs)
	}
	if logs[0]["message"] != "order 42 read" || logs[0]["trace_id"] != traceID || logs[0]["span_id"] != spanID {
		t.Errorf("log %v", logs[0])
	}
	if _, has := logs[1]["trace_id"]; has {
		t.Error("a line outside a span carries no trace")
	}
	if len(logs[2]["message"].(string)) != maxLogMessage || len(logs[2]["attributes"].(map[string]interface{})) != 1 {
		t.Error("a long message is cut to what the core keeps, and an empty key left out")
	}
	if a, b := TraceFields(context.Background()); a != "" || b != "" {
		t.Error("TraceFields outside a span must be empty")
	}
}
