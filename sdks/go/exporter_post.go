package svc

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// exporterHeader marks the exporter's own requests: no instrumentation traces them.
const exporterHeader = "X-Svc-Sdk-Export"

// A Date answer further than this from the local clock means the local clock is wrong.
const clockSkew = time.Minute

// clockOffset is the server's time minus the local time, learnt from a 401's Date.
type clockOffset struct{ nanos atomic.Int64 }

func (c *clockOffset) now() time.Time { return time.Now().Add(time.Duration(c.nanos.Load())) }

// corrected reports whether a 401's Date shows the local clock off by more than the skew the
// core allows, in which case the offset now corrects it.
func (c *clockOffset) corrected(date string) bool {
	server, err := http.ParseTime(date)
	if err != nil {
		return false
	}
	offset := time.Until(server)
	if d := offset - time.Duration(c.nanos.Load()); d < clockSkew && d > -clockSkew {
		return false
	}
	c.nanos.Store(int64(offset))
	return true
}

// part is one request of a batch: a signed batch, or one OTLP signal.
type part struct {
	path    string
	body    []byte
	records int
}

func (e *exporter) parts(b *batch) []part {
	if e.cfg.Protocol == ProtocolOTLP {
		var out []part
		if len(b.spans) > 0 {
			out = append(out, part{"/v1/traces", otlpTraces(b.spans, e), len(b.spans)})
		}
		if len(b.logs) > 0 {
			out = append(out, part{"/v1/logs", otlpLogs(b.logs, e), len(b.logs)})
		}
		return out
	}
	return []part{{"/ingest/v1/batch", batchBody(b, e), b.records}}
}

// post delivers a batch with its retries, then settles it. It runs on a goroutine of its own and
// never panics into the app: a panic here drops the batch.
func (e *exporter) post(b *batch) {
	sent := 0
	var failures []ExportError
	defer func() {
		if recover() != nil {
			failures = append(failures, ExportError{Reason: "gave_up", Records: b.records - sent})
		}
		e.settle(b, sent, failures)
	}()
	for _, p := range e.parts(b) {
		if ok, status, reason := e.deliver(b.key, p); ok {
			sent += p.records
		} else {
			failures = append(failures, ExportError{Reason: reason, Records: p.records, Status: status})
		}
	}
}

// deliver sends one part until it is answered 2xx, refused, or out of tries.
func (e *exporter) deliver(key string, p part) (ok bool, status int, reason string) {
	clockFixed := false
	for attempt := 1; ; attempt++ {
		res, err := e.tryOnce(key, p)
		status = 0
		var retryAfter time.Duration
		if err == nil {
			status = res.StatusCode
			if status >= 200 && status < 300 {
				return true, status, ""
			}
			if status == http.StatusUnauthorized && !clockFixed && e.clock.corrected(res.Header.Get("Date")) {
				clockFixed = true
				attempt--
				continue
			}
			retryAfter = retryAfterOf(res)
		}
		// 409 under our key: an earlier try of this batch is still being written, a later try
		// gets its answer. Any other 4xx: the core refused the records, and sending again cannot help.
		if err == nil && status < 500 && status != http.StatusConflict && status != http.StatusTooManyRequests {
			return false, status, "rejected"
		}
		if attempt >= e.cfg.MaxAttempts || e.ctx.Err() != nil {
			return false, status, "gave_up"
		}
		if retryAfter == 0 {
			retryAfter = time.Duration(rand.Int63n(int64(e.cfg.RetryBase) << (attempt - 1)))
		}
		select {
		case <-time.After(retryAfter):
		case <-e.ctx.Done():
			return false, status, "gave_up"
		}
	}
}

// tryOnce sends p once, signed now (a retry is signed anew under the same Idempotency-Key), and
// reads the answer's body to the end so the connection is reused.
func (e *exporter) tryOnce(key string, p part) (*http.Response, error) {
	select {
	case e.sem <- struct{}{}:
	case <-e.ctx.Done():
		return nil, e.ctx.Err()
	}
	defer func() { <-e.sem }()
	ctx, cancel := context.WithTimeout(e.ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.target.Endpoint+p.path, bytes.NewReader(p.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(exporterHeader, "1")
	if e.cfg.Protocol == ProtocolOTLP {
		req.Header.Set("X-Svc-Ingest-Key", e.target.KeyID+":"+e.target.Secret)
	} else {
		ts := strconv.FormatInt(e.clock.now().Unix(), 10)
		req.Header.Set("X-Svc-Key", e.target.KeyID)
		req.Header.Set("X-Svc-Timestamp", ts)
		req.Header.Set("X-Svc-Signature", signature(e.target.Secret, ts, p.body))
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	_ = res.Body.Close()
	return res, nil
}

// signature is "v1=" + hex HMAC-SHA256 with the key's secret over timestamp + "." + body.
func signature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// retryAfterOf is the answer's Retry-After in seconds, at most a minute; 0 when it names none.
func retryAfterOf(res *http.Response) time.Duration {
	seconds, err := strconv.ParseFloat(res.Header.Get("Retry-After"), 64)
	if err != nil || seconds <= 0 {
		return 0
	}
	if seconds > 60 {
		seconds = 60
	}
	return time.Duration(seconds * float64(time.Second))
}
