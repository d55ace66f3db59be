package svc

import (
	"strconv"
	"unicode/utf8"
)

// The batch body is written by hand into one buffer: encoding/json would spend several
// allocations a record on reflection and maps, paid by the app's process.

// batchBody is {"spans":[...],"logs":[...]} as the core's batch endpoint takes it.
func batchBody(b *batch, e *exporter) []byte {
	out := make([]byte, 0, 256*b.records+32)
	out = append(out, '{')
	if len(b.spans) > 0 {
		out = append(out, `"spans":[`...)
		for i, s := range b.spans {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendSpan(out, s, e)
		}
		out = append(out, ']')
	}
	if len(b.logs) > 0 {
		if len(b.spans) > 0 {
			out = append(out, ',')
		}
		out = append(out, `"logs":[`...)
		for i := range b.logs {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendLog(out, &b.logs[i])
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

func appendSpan(out []byte, s *Span, e *exporter) []byte {
	out = append(out, `{"trace_id":"`...)
	out = appendHex(out, s.sc.TraceID[:])
	out = append(out, `","span_id":"`...)
	out = appendHex(out, s.sc.SpanID[:])
	out = append(out, '"')
	if s.parent.IsValid() {
		out = append(out, `,"parent_span_id":"`...)
		out = appendHex(out, s.parent[:])
		out = append(out, '"')
	}
	out = appendField(out, "kind", string(s.kind))
	out = appendField(out, "status", string(s.status))
	out = appendField(out, "operation", cut(s.operation, maxOperation))
	out = appendField(out, "service", s.tracer.service)
	out = append(out, `,"start_time":`...)
	out = strconv.AppendInt(out, s.start.UnixMilli(), 10)
	out = append(out, `,"duration_ms":`...)
	out = strconv.AppendFloat(out, float64(s.duration.Microseconds())/1000, 'f', -1, 64)
	if s.method != "" || len(s.attrs) > 0 {
		out = append(out, `,"attributes":{`...)
		if s.method != "" {
			out = appendHTTPAttributes(out, s.method, s.statusCode)
		}
		out = appendAttributes(out, s.method != "", s.attrs)
		out = append(out, '}')
	}
	if s.userID != "" {
		out = appendField(out, "user_id", s.userID)
	}
	if s.sessionID != "" {
		out = appendField(out, "session_id", s.sessionID)
	}
	if r := s.tracer.sampleRate; r > 0 && r < 1 {
		out = append(out, `,"sample_rate":`...)
		out = strconv.AppendFloat(out, r, 'f', -1, 64)
	}
	return append(out, '}')
}

// httpAttributes are the HTTP facts a server or client span keeps as fields.
func (s *Span) httpAttributes() []attribute {
	if s.method == "" {
		return nil
	}
	attrs := []attribute{{"http.method", s.method}}
	if s.statusCode > 0 {
		attrs = append(attrs, attribute{"http.status_code", strconv.Itoa(s.statusCode)})
	}
	return attrs
}

// appendHTTPAttributes writes the HTTP facts as the first members of an attributes object.
func appendHTTPAttributes(out []byte, method string, status int) []byte {
	out = append(out, `"http.method":`...)
	out = appendString(out, method)
	if status > 0 {
		out = append(out, `,"http.status_code":"`...)
		out = strconv.AppendInt(out, int64(status), 10)
		out = append(out, '"')
	}
	return out
}

// isHTTPKey names the attributes the SDK writes itself on HTTP spans: the app's own of these names
// are left out there.
func isHTTPKey(key string) bool { return key == "http.method" || key == "http.status_code" }

func appendLog(out []byte, r *logRecord) []byte {
	out = append(out, `{"timestamp":`...)
	out = strconv.AppendInt(out, r.at.UnixMilli(), 10)
	out = appendField(out, "level", string(r.level))
	out = appendField(out, "message", cut(r.message, maxLogMessage))
	out = appendField(out, "source", "backend")
	if r.traceID.IsValid() {
		out = append(out, `,"trace_id":"`...)
		out = appendHex(out, r.traceID[:])
		out = append(out, `","span_id":"`...)
		out = appendHex(out, r.spanID[:])
		out = append(out, '"')
	}
	if len(r.attrs) > 0 {
		out = append(out, `,"attributes":{`...)
		out = appendAttributes(out, false, r.attrs)
		out = append(out, '}')
	}
	return append(out, '}')
}

// appendAttributes writes attrs as members of an object, after the HTTP facts when the span has
// them (an attribute of the same name as one of those is left out: the SDK's own facts win).
func appendAttributes(out []byte, afterHTTP bool, attrs []attribute) []byte {
	n := 0
	if afterHTTP {
		n = 2
	}
	for _, a := range attrs {
		if afterHTTP && isHTTPKey(a.key) {
			continue
		}
		if n >= maxAttributes {
			break
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = appendString(out, a.key)
		out = append(out, ':')
		out = appendString(out, a.value)
		n++
	}
	return out
}

func appendField(out []byte, name, value string) []byte {
	out = append(out, ',', '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	return appendString(out, value)
}

func appendHex(out []byte, b []byte) []byte {
	for _, v := range b {
		out = append(out, hexDigits[v>>4], hexDigits[v&15])
	}
	return out
}

// cut shortens s to at most n bytes without splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// appendString writes s as a JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced by U+FFFD (the core would refuse the whole batch for one bad byte).
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, s[start:i]...)
			out = append(out, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
