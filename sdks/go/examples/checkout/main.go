// Command checkout is a small traced service: GET /v1/checkout/<order id> asks a prices service
// for the order's price and answers with it. It is the Go service of the stack's end-to-end chain
// test and a working example of the SDK.
//
//	SVC_DSN=http://<key_id>:<secret>@localhost:8080/<project_id> \
//	PRICES_URL=http://localhost:3001 go run ./examples/checkout
//
// Environment: SVC_DSN (required), PRICES_URL (required), ADDR (default 127.0.0.1:8090; port 0
// picks one), SVC_SAMPLE_RATE (default 0: keep every trace), SVC_PROTOCOL (batch or otlp). It
// prints "listening on <url>" once it accepts requests, and flushes what it traced on SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	svc "svc.dev/sdk-go"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	rate, err := strconv.ParseFloat(envOr("SVC_SAMPLE_RATE", "0"), 64)
	if err != nil {
		return fmt.Errorf("SVC_SAMPLE_RATE: %w", err)
	}
	protocol := svc.ProtocolBatch
	if os.Getenv("SVC_PROTOCOL") == "otlp" {
		protocol = svc.ProtocolOTLP
	}
	tracer, err := svc.NewTracer(svc.Config{
		Service:    envOr("SVC_SERVICE", "checkout"),
		DSN:        os.Getenv("SVC_DSN"),
		SampleRate: rate,
		Exporter: svc.ExporterConfig{
			Protocol: protocol,
			OnError:  func(e svc.ExportError) { log.Printf("telemetry not delivered: %v", e) },
		},
	})
	if err != nil {
		return err
	}
	prices := strings.TrimRight(os.Getenv("PRICES_URL"), "/")
	if prices == "" {
		return errors.New("PRICES_URL is required")
	}
	client := &http.Client{Transport: tracer.Transport(nil), Timeout: 30 * time.Second}

	mux := http.NewServeMux()
	mux.HandleFunc("/v1/checkout/", func(w http.ResponseWriter, r *http.Request) {
		order := strings.TrimPrefix(r.URL.Path, "/v1/checkout/")
		tracer.Logf(r.Context(), svc.Info, "checkout %s started", order)
		price, err := priceOf(r.Context(), client, prices, order)
		if err != nil {
			tracer.Log(r.Context(), svc.Error, "price lookup failed", map[string]string{"order": order, "error": err.Error()})
			http.Error(w, "prices unavailable", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"order":%q,"price":%s}`, order, price)
	})

	listener, err := net.Listen("tcp", envOr("ADDR", "127.0.0.1:8090"))
	if err != nil {
		return err
	}
	server := &http.Server{Handler: tracer.Middleware(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(listener) }()
	fmt.Printf("listening on http://%s\n", listener.Addr())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_ = server.Shutdown(ctx)
	err = tracer.Shutdown(ctx)
	stats := tracer.Stats()
	log.Printf("telemetry: %d sent, %d dropped", stats.Sent, stats.Dropped)
	return err
}

// priceOf asks the prices service, in a span of its own around the call.
func priceOf(ctx context.Context, client *http.Client, prices, order string) (string, error) {
	ctx, span := svc.Start(ctx, "price.lookup")
	defer span.End()
	span.SetAttribute("order.id", order)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, prices+"/v1/prices/"+order, nil)
	if err != nil {
		return "", err
	}
	res, err := client.Do(req)
	if err != nil {
		span.RecordError(err)
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("prices answered %d", res.StatusCode)
	}
	if err != nil {
		span.RecordError(err)
		return "", err
	}
	return strings.TrimSpace(string(body)), nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
