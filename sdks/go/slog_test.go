//go:build go1.21

package svc

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestSlogHandlerSendsRecordsWithTheTraceAndPassesThemOn(t *testing.T) {
	core := newFakeCore(t)
	tracer := newTestTracer(t, core, Config{})
	var printed bytes.Buffer
	logger := slog.New(tracer.SlogHandler(slog.NewJSONHandler(&printed, &slog.HandlerOptions{Level: slog.LevelDebug}), nil))
	ctx, span := tracer.Start(context.Background(), "op")
	logger.With("order", 7).WithGroup("pay").InfoContext(ctx, "paid", "amount", 12.5, slog.Group("card", "brand", "visa"))
	logger.DebugContext(ctx, "below the default level")
	logger.Log(ctx, slog.LevelError+4, "fatal")
	span.End()
	flush(t, tracer)

	logs := core.logs()
	if len(logs) != 2 {
		t.Fatalf("logs %v: debug is not sent by default", logs)
	}
	attrs := logs[0]["attributes"].(map[string]interface{})
	if logs[0]["message"] != "paid" || logs[0]["level"] != "INFO" || logs[0]["trace_id"] != span.Context().TraceID.String() ||
		attrs["order"] != "7" || attrs["pay.amount"] != "12.5" || attrs["pay.card.brand"] != "visa" {
		t.Errorf("log %v", logs[0])
	}
	if logs[1]["level"] != "FATAL" {
		t.Errorf("level %v", logs[1]["level"])
	}
	lines := strings.Split(strings.TrimSpace(printed.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], span.Context().TraceID.String()) {
		t.Errorf("printed %q: every line passed on, with trace_id", printed.String())
	}
}
