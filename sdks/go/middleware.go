package svc

import (
	"fmt"
	"net/http"
)

// MiddlewareOption tunes Middleware.
type MiddlewareOption func(*serverTracing)

// WithRoute names the route of a request (the span's operation after the method), e.g. the
// pattern of your router; an empty answer falls back to the ServeMux pattern or the path with its
// ids templated.
func WithRoute(route func(*http.Request) string) MiddlewareOption {
	return func(m *serverTracing) { m.route = route }
}

// WithIgnore leaves the requests it reports untraced (health checks, say).
func WithIgnore(ignore func(*http.Request) bool) MiddlewareOption {
	return func(m *serverTracing) { m.ignore = ignore }
}

// Middleware traces every request next serves: one server span named "<METHOD> <route>", a child
// of the caller's span when a valid traceparent came in (else the root of a new trace), active in
// the request's context for the handler's own spans, log lines and outbound calls. The route is
// WithRoute's answer, else the ServeMux pattern that matched (built with Go 1.23 or later: the
// pattern the mux records on the request the middleware hands down, so next is the mux or passes
// that request on; built with Go 1.22: when next is the *http.ServeMux itself), else the path with
// its ids templated. A 5xx answer or a panic makes the span status error; a panic is recorded and then
// re-panicked, as if the middleware were not there.
func (t *Tracer) Middleware(next http.Handler, opts ...MiddlewareOption) http.Handler {
	m := &serverTracing{tracer: t, next: next}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

type serverTracing struct {
	tracer *Tracer
	next   http.Handler
	route  func(*http.Request) string
	ignore func(*http.Request) bool
}

func (m *serverTracing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if (m.ignore != nil && m.ignore(r)) || r.Header.Get(exporterHeader) != "" {
		m.next.ServeHTTP(w, r)
		return
	}
	start := spanStart{kind: KindServer, root: true}
	// Several traceparent headers are ambiguous: treated as none.
	if values := r.Header["Traceparent"]; len(values) == 1 {
		if remote, ok := ParseTraceparent(values[0]); ok {
			start.remote = &remote
		}
	}
	// The span and the writer's wrapper in one allocation.
	served := &servedRequest{statusRecorder: statusRecorder{ResponseWriter: w}}
	span := &served.span
	m.tracer.initSpan(span, r.Context(), "", start)
	span.method = r.Method
	traced := r.WithContext(ContextWithSpan(r.Context(), span))
	defer m.finish(span, &served.statusRecorder, traced)
	m.next.ServeHTTP(&served.statusRecorder, traced)
}

// finish names and ends the span once the handler returned or panicked; a panic goes on up.
func (m *serverTracing) finish(span *Span, rec *statusRecorder, r *http.Request) {
	p := recover()
	status := rec.status
	if status == 0 {
		status = http.StatusOK
		if p != nil {
			status = http.StatusInternalServerError
		}
	}
	span.mu.Lock()
	span.statusCode = status
	span.mu.Unlock()
	span.SetOperation(m.operationOf(r))
	switch {
	case p == http.ErrAbortHandler:
		span.SetAttribute("http.aborted", true)
		span.SetStatus(StatusError)
	case p != nil:
		span.SetAttribute("error.type", "panic")
		span.SetAttribute("error.message", fmt.Sprint(p))
		span.SetStatus(StatusError)
	case rec.status == 0 && r.Context().Err() != nil:
		// The client went away before any answer was written.
		span.SetAttribute("http.aborted", true)
		span.SetStatus(StatusError)
	case status >= 500:
		span.SetStatus(StatusError)
	default:
		span.settle(StatusOK)
	}
	span.End()
	if p != nil {
		panic(p)
	}
}

// operationOf is "<METHOD> <route>".
func (m *serverTracing) operationOf(r *http.Request) string {
	if m.route != nil {
		if route := m.route(r); route != "" {
			return r.Method + " " + route
		}
	}
	if pattern := servedPattern(m.next, r); pattern != "" {
		return r.Method + " " + pattern
	}
	return operationOf(r.URL.Path, r.Method, " ")
}

// routeFromPattern is the path part of a ServeMux pattern ("GET example.com/v1/{id}" ->
// "/v1/{id}"); empty for the catch-all "/", which names no route.
func routeFromPattern(pattern string) string {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ' ' {
			pattern = pattern[i+1:]
			break
		}
	}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '/' {
			pattern = pattern[i:]
			break
		}
	}
	if pattern == "/" || pattern == "" || pattern[0] != '/' {
		return ""
	}
	return pattern
}

type servedRequest struct {
	span Span
	statusRecorder
}

// statusRecorder remembers the status an answer was given. It passes Flush and Hijack through
// when the writer it wraps has them, and unwraps for http.ResponseController.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	// Informational answers (1xx, but 101) come before the real one.
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
