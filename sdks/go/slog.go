//go:build go1.21

package svc

import (
	"context"
	"log/slog"
	"time"
)

// SlogOptions tunes SlogHandler.
type SlogOptions struct {
	// Level is the least severe record sent to the core. Default slog.LevelInfo.
	Level slog.Leveler
}

// SlogHandler is an slog.Handler that sends each record (source backend) to the core with the
// trace id and span id of the active span of the context it is logged with (use the Context
// variants: slog.InfoContext(ctx, ...)), its attributes flattened to "group.key" text. When next
// is not nil the record is also handed to next, with trace_id and span_id added, so the lines your
// process prints carry the trace too.
func (t *Tracer) SlogHandler(next slog.Handler, opts *SlogOptions) slog.Handler {
	h := &slogHandler{tracer: t, next: next, level: slog.LevelInfo}
	if opts != nil && opts.Level != nil {
		h.level = opts.Level
	}
	return h
}

type slogHandler struct {
	tracer *Tracer
	next   slog.Handler
	level  slog.Leveler
	attrs  []attribute
	group  string
}

func (h *slogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= h.level.Level() || (h.next != nil && h.next.Enabled(ctx, level))
}

func (h *slogHandler) Handle(ctx context.Context, r slog.Record) error {
	span := SpanFromContext(ctx)
	if r.Level >= h.level.Level() {
		record := logRecord{at: r.Time, level: levelOf(r.Level), message: r.Message}
		if record.at.IsZero() {
			record.at = time.Now()
		}
		if span != nil {
			record.traceID, record.spanID = span.sc.TraceID, span.sc.SpanID
		}
		record.attrs = append(record.attrs, h.attrs...)
		r.Attrs(func(a slog.Attr) bool {
			record.attrs = flatten(record.attrs, h.group, a)
			return len(record.attrs) < maxAttributes
		})
		if len(record.attrs) > maxAttributes {
			record.attrs = record.attrs[:maxAttributes]
		}
		h.tracer.exporter.addLog(record)
	}
	if h.next == nil || !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	if span != nil {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", span.sc.TraceID.String()), slog.String("span_id", span.sc.SpanID.String()))
	}
	return h.next.Handle(ctx, r)
}

func (h *slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]attribute(nil), h.attrs...)
	for _, a := range attrs {
		c.attrs = flatten(c.attrs, h.group, a)
	}
	if h.next != nil {
		c.next = h.next.WithAttrs(attrs)
	}
	return &c
}

func (h *slogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	if h.next != nil {
		c.next = h.next.WithGroup(name)
	}
	return &c
}

// flatten appends a as "prefix.key" text, a group's members one by one.
func flatten(out []attribute, prefix string, a slog.Attr) []attribute {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p = prefix + a.Key + "."
		}
		for _, member := range v.Group() {
			out = flatten(out, p, member)
		}
		return out
	}
	if a.Key == "" {
		return out
	}
	return append(out, attribute{cut(prefix+a.Key, maxAttributeKey), cut(v.String(), maxAttributeValue)})
}

func levelOf(l slog.Level) Level {
	switch {
	case l < slog.LevelInfo:
		return Debug
	case l < slog.LevelWarn:
		return Info
	case l < slog.LevelError:
		return Warn
	case l < slog.LevelError+4:
		return Error
	}
	return Fatal
}
