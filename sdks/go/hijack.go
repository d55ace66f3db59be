package svc

import (
	"bufio"
	"errors"
	"net"
	"net/http"
)

// Hijack hands the connection over (websockets) when the wrapped writer can; the span then ends
// with status 101 unless another was written.
func (w *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("svc: the ResponseWriter does not support Hijack")
	}
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}
