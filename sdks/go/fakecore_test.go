package svc

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// A stand-in for the core's ingest endpoints that checks what the core checks (the signature, the
// timestamp's freshness) and keeps every request; scripted answers come first. The real core is
// in the end-to-end chain test (apps/sdk-e2e).

const (
	testKeyID   = "key_go"
	testSecret  = "go-sdk-test-secret"
	testProject = "prj_go"
)

type ingestRequest struct {
	Path           string
	Key            string
	Timestamp      int64
	IdempotencyKey string
	IngestKey      string
	Body           []byte
	Batch          struct {
		Spans []map[string]interface{} `json:"spans"`
		Logs  []map[string]interface{} `json:"logs"`
	}
}

type scripted struct {
	status int
	header http.Header
}

type fakeCore struct {
	*httptest.Server
	mu       sync.Mutex
	requests []ingestRequest
	script   []scripted
	// clock is the core's time; the zero offset is the local clock.
	clock time.Duration
	// hold, when set, keeps every request waiting until it is closed or the request ends.
	hold chan struct{}
}

func newFakeCore(t *testing.T) *fakeCore {
	t.Helper()
	core := &fakeCore{}
	core.Server = httptest.NewServer(http.HandlerFunc(core.serve))
	t.Cleanup(core.Close)
	return core
}

func (c *fakeCore) dsn() string {
	return "http://" + testKeyID + ":" + testSecret + "@" + c.Listener.Addr().String() + "/" + testProject
}

// answer scripts the next answers, in order; once they are used up every request is accepted.
func (c *fakeCore) answer(status int, header http.Header) {
	c.mu.Lock()
	c.script = append(c.script, scripted{status, header})
	c.mu.Unlock()
}

func (c *fakeCore) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := ingestRequest{
		Path: r.URL.Path, Key: r.Header.Get("X-Svc-Key"), IdempotencyKey: r.Header.Get("Idempotency-Key"),
		IngestKey: r.Header.Get("X-Svc-Ingest-Key"), Body: body,
	}
	req.Timestamp, _ = strconv.ParseInt(r.Header.Get("X-Svc-Timestamp"), 10, 64)
	_ = json.Unmarshal(body, &req.Batch)
	c.mu.Lock()
	c.requests = append(c.requests, req)
	hold := c.hold
	var next *scripted
	if len(c.script) > 0 {
		next = &c.script[0]
		c.script = c.script[1:]
	}
	now := time.Now().Add(c.clock)
	c.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	if next != nil {
		for k, v := range next.header {
			w.Header()[k] = v
		}
		w.WriteHeader(next.status)
		return
	}
	if r.URL.Path == "/ingest/v1/batch" && !validSignature(r, body, now) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	_, _ = w.Write([]byte(`{}`))
}

func validSignature(r *http.Request, body []byte, now time.Time) bool {
	ts := r.Header.Get("X-Svc-Timestamp")
	at, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || r.Header.Get("X-Svc-Key") != testKeyID || at < now.Unix()-300 || at > now.Unix()+300 {
		return false
	}
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(ts + "." + string(body)))
	return hmac.Equal([]byte(r.Header.Get("X-Svc-Signature")), []byte("v1="+hex.EncodeToString(mac.Sum(nil))))
}

func (c *fakeCore) received() []ingestRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ingestRequest(nil), c.requests...)
}

// spans are the spans of every accepted batch request.
func (c *fakeCore) spans() []map[string]interface{} {
	var out []map[string]interface{}
	for _, r := range c.received() {
		out = append(out, r.Batch.Spans...)
	}
	return out
}

func (c *fakeCore) logs() []map[string]interface{} {
	var out []map[string]interface{}
	for _, r := range c.received() {
		out = append(out, r.Batch.Logs...)
	}
	return out
}

// newTestTracer is a tracer sending to core, with fast retries; flushed and shut down at cleanup.
func newTestTracer(t *testing.T, core *fakeCore, cfg Config) *Tracer {
	t.Helper()
	if cfg.Service == "" {
		cfg.Service = "checkout"
	}
	cfg.DSN = core.dsn()
	if cfg.Exporter.RetryBase == 0 {
		cfg.Exporter.RetryBase = time.Millisecond
	}
	tracer, err := NewTracer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tracer.Shutdown(context.Background()) })
	return tracer
}

func flush(t *testing.T, tracer *Tracer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tracer.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}
