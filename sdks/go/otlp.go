package svc

import "strconv"

// OTLP/HTTP JSON (the protobuf messages' JSON mapping): ids as hex, times as decimal strings of
// nanoseconds, enums as numbers.

const scopeName = "svc.dev/sdk-go"

var otlpKinds = map[Kind]int{KindInternal: 1, KindServer: 2, KindClient: 3, KindProducer: 4, KindConsumer: 5}

var otlpStatus = map[Status]int{StatusUnset: 0, StatusOK: 1, StatusError: 2}

var otlpSeverity = map[Level]int{Debug: 5, Info: 9, Warn: 13, Error: 17, Fatal: 21}

func otlpResource(out []byte, service, signal string) []byte {
	out = append(out, `{"resource`...)
	out = append(out, signal...)
	out = append(out, `":[{"resource":{"attributes":[`...)
	out = appendKeyValue(out, "service.name", service)
	out = append(out, `]},"scope`...)
	out = append(out, signal...)
	out = append(out, `":[{"scope":{"name":"`+scopeName+`"},`...)
	return out
}

// otlpTraces is an ExportTraceServiceRequest of the spans.
func otlpTraces(spans []*Span, e *exporter) []byte {
	out := make([]byte, 0, 320*len(spans)+160)
	out = otlpResource(out, e.service, "Spans")
	out = append(out, `"spans":[`...)
	for i, s := range spans {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"traceId":"`...)
		out = appendHex(out, s.sc.TraceID[:])
		out = append(out, `","spanId":"`...)
		out = appendHex(out, s.sc.SpanID[:])
		out = append(out, '"')
		if s.parent.IsValid() {
			out = append(out, `,"parentSpanId":"`...)
			out = appendHex(out, s.parent[:])
			out = append(out, '"')
		}
		out = appendField(out, "name", cut(s.operation, maxOperation))
		out = append(out, `,"kind":`...)
		out = strconv.AppendInt(out, int64(otlpKinds[s.kind]), 10)
		out = appendNanos(out, "startTimeUnixNano", s.start.UnixNano())
		out = appendNanos(out, "endTimeUnixNano", s.start.Add(s.duration).UnixNano())
		out = append(out, `,"attributes":[`...)
		attrs := s.httpAttributes()
		for _, a := range s.attrs {
			// The SDK's own HTTP facts win, as in the batch format.
			if s.method == "" || !isHTTPKey(a.key) {
				attrs = append(attrs, a)
			}
		}
		if s.userID != "" {
			attrs = append(attrs, attribute{"enduser.id", s.userID})
		}
		if s.sessionID != "" {
			attrs = append(attrs, attribute{"session.id", s.sessionID})
		}
		if r := s.tracer.sampleRate; r > 0 && r < 1 {
			attrs = append(attrs, attribute{"sampling.rate", strconv.FormatFloat(r, 'f', -1, 64)})
		}
		for j, a := range attrs {
			if j > 0 {
				out = append(out, ',')
			}
			out = appendKeyValue(out, a.key, a.value)
		}
		out = append(out, `],"status":{"code":`...)
		out = strconv.AppendInt(out, int64(otlpStatus[s.status]), 10)
		out = append(out, `}}`...)
	}
	return append(out, `]}]}]}`...)
}

// otlpLogs is an ExportLogsServiceRequest of the log lines.
func otlpLogs(logs []logRecord, e *exporter) []byte {
	out := make([]byte, 0, 256*len(logs)+160)
	out = otlpResource(out, e.service, "Logs")
	out = append(out, `"logRecords":[`...)
	for i := range logs {
		r := &logs[i]
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"timeUnixNano":"`...)
		out = strconv.AppendInt(out, r.at.UnixNano(), 10)
		out = append(out, '"')
		out = append(out, `,"severityNumber":`...)
		out = strconv.AppendInt(out, int64(otlpSeverity[r.level]), 10)
		out = appendField(out, "severityText", string(r.level))
		out = append(out, `,"body":{"stringValue":`...)
		out = appendString(out, cut(r.message, maxLogMessage))
		out = append(out, '}')
		if r.traceID.IsValid() {
			out = append(out, `,"traceId":"`...)
			out = appendHex(out, r.traceID[:])
			out = append(out, `","spanId":"`...)
			out = appendHex(out, r.spanID[:])
			out = append(out, '"')
		}
		out = append(out, `,"attributes":[`...)
		for j, a := range r.attrs {
			if j > 0 {
				out = append(out, ',')
			}
			out = appendKeyValue(out, a.key, a.value)
		}
		out = append(out, `]}`...)
	}
	return append(out, `]}]}]}`...)
}

func appendKeyValue(out []byte, key, value string) []byte {
	out = append(out, `{"key":`...)
	out = appendString(out, key)
	out = append(out, `,"value":{"stringValue":`...)
	out = appendString(out, value)
	return append(out, `}}`...)
}

func appendNanos(out []byte, name string, nanos int64) []byte {
	out = append(out, ',', '"')
	out = append(out, name...)
	out = append(out, `":"`...)
	out = strconv.AppendInt(out, nanos, 10)
	return append(out, '"')
}
