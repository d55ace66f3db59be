package svc

import (
	"net/http"
)

// Transport wraps base (http.DefaultTransport when nil) so that every outbound request gets a
// client span, "<METHOD> <host><path with ids templated>", a child of the active span of the
// request's context (the root of a new trace without one), and carries that span's traceparent to
// the callee. The span ends when the answer's headers arrive; a transport error or a 5xx answer
// makes it status error. Requests to the tracer's own ingest endpoint are neither traced nor given
// a traceparent. The request passed in is not modified.
func (t *Tracer) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &clientTracing{tracer: t, base: base}
}

type outboundCall struct {
	span        Span
	traceparent [1]string
}

type clientTracing struct {
	tracer *Tracer
	base   http.RoundTripper
}

func (c *clientTracing) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.tracer.isIngest(req) {
		return c.base.RoundTrip(req)
	}
	// The span and the header's value list in one allocation.
	call := &outboundCall{}
	span := &call.span
	c.tracer.initSpan(span, req.Context(), operationOf(req.URL.Path, req.Method, " ", req.URL.Host),
		spanStart{kind: KindClient})
	span.method = req.Method
	out := *req
	out.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		out.Header[k] = v
	}
	var header [55]byte
	writeTraceparent(header[:], span.sc)
	call.traceparent[0] = string(header[:])
	out.Header["Traceparent"] = call.traceparent[:]
	res, err := c.base.RoundTrip(&out)
	if err != nil {
		span.RecordError(err)
	} else {
		span.mu.Lock()
		span.statusCode = res.StatusCode
		span.mu.Unlock()
		if res.StatusCode >= 500 {
			span.SetStatus(StatusError)
		} else {
			span.settle(StatusOK)
		}
	}
	span.End()
	return res, err
}
