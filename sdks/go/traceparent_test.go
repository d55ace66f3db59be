package svc

import (
	"strings"
	"testing"
)

const (
	tpTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	tpSpan  = "00f067aa0ba902b7"
)

func TestParseTraceparentReadsVersion00(t *testing.T) {
	for header, sampled := range map[string]bool{
		"00-" + tpTrace + "-" + tpSpan + "-01":       true,
		"00-" + tpTrace + "-" + tpSpan + "-00":       false,
		"00-" + tpTrace + "-" + tpSpan + "-03":       true,
		"00-" + tpTrace + "-" + tpSpan + "-02":       false,
		"  00-" + tpTrace + "-" + tpSpan + "-01 ":    true,
		"cc-" + tpTrace + "-" + tpSpan + "-01-later": true,
	} {
		sc, ok := ParseTraceparent(header)
		if !ok || sc.TraceID.String() != tpTrace || sc.SpanID.String() != tpSpan || sc.Sampled != sampled {
			t.Errorf("ParseTraceparent(%q) = %+v, %v", header, sc, ok)
		}
	}
}

func TestParseTraceparentTreatsInvalidAsAbsent(t *testing.T) {
	for name, header := range map[string]string{
		"empty":                       "",
		"uppercase hex":               "00-" + strings.ToUpper(tpTrace) + "-" + tpSpan + "-01",
		"all-zero trace id":           "00-" + strings.Repeat("0", 32) + "-" + tpSpan + "-01",
		"all-zero span id":            "00-" + tpTrace + "-" + strings.Repeat("0", 16) + "-01",
		"short trace id":              "00-" + tpTrace[1:] + "-" + tpSpan + "-01",
		"long span id":                "00-" + tpTrace + "-" + tpSpan + "0-01",
		"one-digit flags":             "00-" + tpTrace + "-" + tpSpan + "-1",
		"version ff":                  "ff-" + tpTrace + "-" + tpSpan + "-01",
		"version 00 with more fields": "00-" + tpTrace + "-" + tpSpan + "-01-extra",
		"later version, no dash":      "cc-" + tpTrace + "-" + tpSpan + "-01x",
		"not hex":                     "00-" + tpTrace[:31] + "g-" + tpSpan + "-01",
	} {
		if sc, ok := ParseTraceparent(header); ok {
			t.Errorf("%s: ParseTraceparent(%q) = %+v, want absent", name, header, sc)
		}
	}
}

func TestFormatTraceparentWritesWhatItReads(t *testing.T) {
	sc, _ := ParseTraceparent("00-" + tpTrace + "-" + tpSpan + "-01")
	if got := FormatTraceparent(sc); got != "00-"+tpTrace+"-"+tpSpan+"-01" {
		t.Errorf("FormatTraceparent = %s", got)
	}
	sc.Sampled = false
	if got := FormatTraceparent(sc); !strings.HasSuffix(got, "-00") {
		t.Errorf("unsampled FormatTraceparent = %s", got)
	}
}

func TestIDsAreRandomAndValid(t *testing.T) {
	seen := map[TraceID]bool{}
	for i := 0; i < 1000; i++ {
		id := NewTraceID()
		if !id.IsValid() || seen[id] || len(id.String()) != 32 {
			t.Fatalf("trace id %s repeated or invalid", id)
		}
		seen[id] = true
		if s := NewSpanID(); !s.IsValid() || len(s.String()) != 16 {
			t.Fatalf("span id %s invalid", s)
		}
	}
}

func TestParseDSN(t *testing.T) {
	target, err := ParseDSN("https://key_1:s%3Acret@core.example:8443/prj_1")
	if err != nil || target != (Target{"https://core.example:8443", "key_1", "s:cret", "prj_1"}) {
		t.Fatalf("ParseDSN = %+v, %v", target, err)
	}
	for _, bad := range []string{
		"", "core:8080", "ftp://k:s@h/p", "http://k@h/p", "http://k:@h/p", "http://:s@h/p",
		"http://k:s@h", "http://k:s@h/p/q", "http://k:s@h/p?x=1",
	} {
		if _, err := ParseDSN(bad); err == nil {
			t.Errorf("ParseDSN(%q) must fail", bad)
		}
	}
}

func TestTemplatePath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/orders":           "/v1/orders",
		"/v1/orders/123/items": "/v1/orders/:id/items",
		"/u/3fa85f64-5717-4562-b3fc-2c963f66afa6": "/u/:id",
		"/blob/0123456789abcdef":                  "/blob/:id",
		"/users/usr_k3vkzzr97hszmn14puzv/cart":    "/users/:id/cart",
		"/orders/ord-8f2k1m3n":                    "/orders/:id",
		"/orders/ord-8f2k":                        "/orders/ord-8f2k",
		"/health":                                 "/health",
		"/a/abcdef":                               "/a/abcdef",
		"/":                                       "/",
	} {
		if got := templatePath(path); got != want {
			t.Errorf("templatePath(%q) = %q, want %q", path, got, want)
		}
	}
}
