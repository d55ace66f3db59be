package svc

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math/rand"
	"sync"
)

// TraceID is a W3C trace id: 16 bytes, not all zero.
type TraceID [16]byte

// SpanID is a W3C span (parent) id: 8 bytes, not all zero.
type SpanID [8]byte

const hexDigits = "0123456789abcdef"

// String is the id as 32 lowercase hex characters.
func (t TraceID) String() string { return hex.EncodeToString(t[:]) }

// IsValid reports whether the id is not all zeros.
func (t TraceID) IsValid() bool { return t != TraceID{} }

// String is the id as 16 lowercase hex characters.
func (s SpanID) String() string { return hex.EncodeToString(s[:]) }

// IsValid reports whether the id is not all zeros.
func (s SpanID) IsValid() bool { return s != SpanID{} }

// Ids need to be unique, not secret: each goroutine draws from a generator of its own (a pool of
// them, each seeded from crypto/rand), so a request costs no system call and no shared lock.
var generators = sync.Pool{New: func() any {
	var seed [8]byte
	if _, err := crand.Read(seed[:]); err != nil {
		// crypto/rand does not fail on the systems Go supports; a fixed seed still yields ids.
		binary.LittleEndian.PutUint64(seed[:], 0x9e3779b97f4a7c15)
	}
	return rand.New(rand.NewSource(int64(binary.LittleEndian.Uint64(seed[:]))))
}}

func newIDs(trace *TraceID, span *SpanID) {
	r := generators.Get().(*rand.Rand)
	if trace != nil {
		for !trace.IsValid() {
			binary.LittleEndian.PutUint64(trace[:8], r.Uint64())
			binary.LittleEndian.PutUint64(trace[8:], r.Uint64())
		}
	}
	for !span.IsValid() {
		binary.LittleEndian.PutUint64(span[:], r.Uint64())
	}
	generators.Put(r)
}

// NewTraceID is a random trace id.
func NewTraceID() TraceID {
	var t TraceID
	var s SpanID
	newIDs(&t, &s)
	return t
}

// NewSpanID is a random span id.
func NewSpanID() SpanID {
	var s SpanID
	newIDs(nil, &s)
	return s
}
