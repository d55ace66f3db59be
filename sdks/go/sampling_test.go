package svc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The vectors every SDK of the stack reads: sdk-core keeps them as its fixture (the Node, Web and
// React Native tests read that file); where the originals are checked out next to the repository,
// the fixture must equal them byte for byte (sdk-core's test checks that, and so does this one).
const vectorsFile = "../../packages/sdk-core/src/fixtures/sampling.json"

type samplingVectors struct {
	FNV []struct {
		Input string `json:"input"`
		Hash  string `json:"hash"`
	} `json:"fnv1a32_reference"`
	Vectors []struct {
		TraceID string          `json:"trace_id"`
		Hash    string          `json:"hash"`
		Sampled map[string]bool `json:"sampled"`
	} `json:"vectors"`
}

func readVectors(t *testing.T) samplingVectors {
	t.Helper()
	raw, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("reading the shared vectors: %v", err)
	}
	var v samplingVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("parsing %s: %v", vectorsFile, err)
	}
	if len(v.FNV) == 0 || len(v.Vectors) < 5 {
		t.Fatalf("%s holds too few vectors: %d", vectorsFile, len(v.Vectors))
	}
	return v
}

func TestFixtureEqualsTheSharedOriginal(t *testing.T) {
	shared, err := filepath.Abs("../../../shared/test-vectors/sampling.json")
	if err != nil {
		t.Fatal(err)
	}
	original, err := os.ReadFile(shared)
	if os.IsNotExist(err) {
		t.Skip("the shared vectors are not checked out next to the repository")
	}
	fixture, _ := os.ReadFile(vectorsFile)
	if !bytes.Equal(original, fixture) {
		t.Fatalf("%s differs from %s", vectorsFile, shared)
	}
}

func TestFNV1a32MatchesTheReference(t *testing.T) {
	v := readVectors(t)
	for _, ref := range v.FNV {
		if got := fmt.Sprintf("%08x", FNV1a32(ref.Input)); got != ref.Hash {
			t.Errorf("FNV1a32(%q) = %s, want %s", ref.Input, got, ref.Hash)
		}
	}
	for _, vec := range v.Vectors {
		if got := fmt.Sprintf("%08x", FNV1a32(vec.TraceID)); got != vec.Hash {
			t.Errorf("FNV1a32(%s) = %s, want %s", vec.TraceID, got, vec.Hash)
		}
	}
}

func TestEveryVectorKeepsOrDropsAsTheOtherSDKs(t *testing.T) {
	v := readVectors(t)
	checked := 0
	for _, vec := range v.Vectors {
		var id TraceID
		if !decodeHex(id[:], vec.TraceID) {
			t.Fatalf("vector trace id %s is not lowercase hex", vec.TraceID)
		}
		for rateText, want := range vec.Sampled {
			rate, err := strconv.ParseFloat(rateText, 64)
			if err != nil {
				t.Fatalf("rate %q: %v", rateText, err)
			}
			if got := IsSampled(vec.TraceID, rate); got != want {
				t.Errorf("IsSampled(%s, %v) = %v, want %v", vec.TraceID, rate, got, want)
			}
			// The tracer decides from the id's bytes, without writing the hex: the same answer.
			if got := isSampledID(id, rate); got != want {
				t.Errorf("isSampledID(%s, %v) = %v, want %v", vec.TraceID, rate, got, want)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d decisions checked", checked)
	}
}

func TestSamplingRules(t *testing.T) {
	id := "4bf92f3577b34da6a3ce929d0e0e4736"
	if IsSampled(id, 0.5) != IsSampled("4BF92F3577B34DA6A3CE929D0E0E4736", 0.5) {
		t.Error("the decision must not depend on the id's case")
	}
	for _, rate := range []float64{0, 1, 1.5} {
		if !IsSampled(id, rate) {
			t.Errorf("rate %v must keep every trace", rate)
		}
	}
	for _, bad := range []float64{-0.1, 1.01} {
		if checkSampleRate(bad) == nil {
			t.Errorf("rate %v must be refused", bad)
		}
	}
	if _, err := NewTracer(Config{Service: "s", DSN: "http://k:s@localhost:1/p", SampleRate: 2}); err == nil {
		t.Error("NewTracer must refuse a rate above 1")
	}
}
