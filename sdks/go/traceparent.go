package svc

import "strings"

// SpanContext is what a traceparent header carries: the trace, the span it points at, and whether
// the caller kept the trace.
type SpanContext struct {
	TraceID TraceID
	SpanID  SpanID
	Sampled bool
}

// ParseTraceparent reads a W3C traceparent header
// (<version>-<trace id>-<parent id>-<flags>, lowercase hex). A header that does not parse is
// reported as absent (ok false), never repaired: uppercase hex, all-zero ids, wrong lengths,
// version ff, and version 00 with anything after the flags. A later version may append fields.
func ParseTraceparent(header string) (sc SpanContext, ok bool) {
	h := strings.TrimSpace(header)
	if len(h) < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-' {
		return sc, false
	}
	version, okVersion := hexByte(h[0:2])
	if !okVersion || version == 0xff || (version == 0 && len(h) != 55) || (len(h) > 55 && h[55] != '-') {
		return sc, false
	}
	flags, okFlags := hexByte(h[53:55])
	if !okFlags || !decodeHex(sc.TraceID[:], h[3:35]) || !decodeHex(sc.SpanID[:], h[36:52]) {
		return SpanContext{}, false
	}
	if !sc.TraceID.IsValid() || !sc.SpanID.IsValid() {
		return SpanContext{}, false
	}
	sc.Sampled = flags&1 == 1
	return sc, true
}

// FormatTraceparent is the header for a call made inside sc (always version 00).
func FormatTraceparent(sc SpanContext) string {
	var b [55]byte
	writeTraceparent(b[:], sc)
	return string(b[:])
}

func writeTraceparent(b []byte, sc SpanContext) {
	b[0], b[1], b[2] = '0', '0', '-'
	encodeHex(b[3:35], sc.TraceID[:])
	b[35] = '-'
	encodeHex(b[36:52], sc.SpanID[:])
	b[52], b[53], b[54] = '-', '0', '0'
	if sc.Sampled {
		b[54] = '1'
	}
}

func encodeHex(dst, src []byte) {
	for i, v := range src {
		dst[2*i] = hexDigits[v>>4]
		dst[2*i+1] = hexDigits[v&15]
	}
}

// decodeHex reads lowercase hex only (the header's form).
func decodeHex(dst []byte, s string) bool {
	for i := range dst {
		hi, lo := lowerHexValue(s[2*i]), lowerHexValue(s[2*i+1])
		if hi < 0 || lo < 0 {
			return false
		}
		dst[i] = byte(hi<<4 | lo)
	}
	return true
}

func hexByte(s string) (byte, bool) {
	var b [1]byte
	ok := decodeHex(b[:], s)
	return b[0], ok
}

func lowerHexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
