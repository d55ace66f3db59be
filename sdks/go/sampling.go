package svc

import (
	"fmt"
	"math"
)

const (
	fnvOffsetBasis uint32 = 0x811c9dc5
	fnvPrime       uint32 = 0x01000193
)

// FNV1a32 is the 32-bit FNV-1a hash of the bytes of s.
func FNV1a32(s string) uint32 {
	h := fnvOffsetBasis
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime
	}
	return h
}

// IsSampled reports whether the trace traceID is kept at rate: always for a rate of 0 or at least
// 1, else when FNV1a32 of the id as 32 lowercase hex characters, over 2^32, is below rate. The
// decision depends on the trace id alone, so every service keeps or drops a whole trace.
func IsSampled(traceID string, rate float64) bool {
	if rate <= 0 || rate >= 1 {
		return true
	}
	return float64(FNV1a32(lowerHex(traceID)))/(1<<32) < rate
}

// isSampledID is IsSampled for an id held as bytes: hashed as its hex text, without writing it.
func isSampledID(id TraceID, rate float64) bool {
	if rate <= 0 || rate >= 1 {
		return true
	}
	h := fnvOffsetBasis
	for _, b := range id {
		h ^= uint32(hexDigits[b>>4])
		h *= fnvPrime
		h ^= uint32(hexDigits[b&15])
		h *= fnvPrime
	}
	return float64(h)/(1<<32) < rate
}

// checkSampleRate refuses a rate outside [0, 1] (NaN included): a typo must not silently keep
// or drop every trace.
func checkSampleRate(rate float64) error {
	if math.IsNaN(rate) || rate < 0 || rate > 1 {
		return fmt.Errorf("svc: SampleRate must be a number in [0, 1], got %v", rate)
	}
	return nil
}

// lowerHex lowercases ASCII letters, allocating only when there is one to change.
func lowerHex(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
