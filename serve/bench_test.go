package serve_test

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

// BenchmarkServe measures appends through the daemon (HTTP on loopback,
// token check, event JSON parsing, the pre-append check, the receipt)
// against recorder.Record in-process, in the same run, with the default
// durability (SyncGroup) on the same disk: events per second and the
// median and 99th percentile latency of one append, by one client and by
// 16 at once, and for the daemon batches of 100.
//
//	go test -run '^$' -bench BenchmarkServe -benchtime 3000x ./serve/
func BenchmarkServe(b *testing.B) {
	ev, err := format.ParseEventJSON([]byte(event(7)))
	if err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 16} {
		b.Run("recorder.Record/clients="+strconv.Itoa(clients), func(b *testing.B) {
			r := logtest.Open(b, b.TempDir(), recorder.Options{Recorder: "bench"})
			run(b, clients, 1, func() error {
				_, err := r.Record(context.Background(), ev)
				return err
			})
		})
		b.Run("daemon/clients="+strconv.Itoa(clients), func(b *testing.B) {
			d := start(b, serve.Config{Limits: serve.Limits{MaxInFlight: 64}})
			c := newClient(b, d)
			c.http.Transport = &http.Transport{MaxIdleConnsPerHost: clients}
			run(b, clients, 1, func() error { return post(c, "/v1/events", event(7)) })
		})
	}
	batch := strings.Repeat(event(7)+"\n", 100)
	b.Run("daemon-batch100/clients=1", func(b *testing.B) {
		d := start(b, serve.Config{})
		c := newClient(b, d)
		run(b, 1, 100, func() error { return post(c, "/v1/events:batch", batch) })
	})
}

func post(c *client, path, body string) error {
	st, b, err := c.try("POST", path, body)
	if err == nil && st != http.StatusOK {
		c.t.Fatalf("%s: %d %s", path, st, b)
	}
	return err
}

// run calls op b.N times from clients goroutines and reports events per
// second (perOp events per call) and latency percentiles of one call.
func run(b *testing.B, clients, perOp int, op func() error) {
	lat := make([]time.Duration, b.N)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	b.ResetTimer()
	startAt := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= b.N {
					return
				}
				t0 := time.Now()
				if err := op(); err != nil {
					b.Error(err)
					return
				}
				lat[k] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(startAt)
	b.StopTimer()
	sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
	b.ReportMetric(float64(b.N*perOp)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
