//go:build unix

package serve_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/serve"
)

// idleHelper, when set in the environment (to the daemon's address and
// token), makes the test binary the helper process of
// BenchmarkIdleConnections: it opens the idle connections, each after one
// request so that it is a kept-alive connection waiting for the next,
// prints "ready" and holds them until its standard input closes. A process
// of its own gives the client ends their own descriptor table.
const idleHelper = "AFR_SERVE_IDLE_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(idleHelper); v != "" {
		holdIdle(v)
		return
	}
	os.Exit(m.Run())
}

func holdIdle(v string) {
	var addr, token string
	var n int
	if _, err := fmt.Sscan(v, &addr, &token, &n); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	req := fmt.Sprintf("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", token)
	conns := make([]net.Conn, 0, n)
	for range n {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			_, err = io.WriteString(conn, req)
		}
		var resp *http.Response
		if err == nil {
			resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
		}
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		conns = append(conns, conn)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
}

// BenchmarkIdleConnections measures appends by one client (POST
// /v1/events, SyncGroup) without and then with 10,000 idle keep-alive
// connections open to the daemon, in the same run: the latency quantiles of
// both and their ratio. The connection cap is raised above 10,000 so that
// they all stay open (by default, 1024, each new one would close the one
// idle longest); a helper process holds the client ends.
//
//	go test -run '^$' -bench BenchmarkIdleConnections -benchtime 2000x ./serve/
func BenchmarkIdleConnections(b *testing.B) {
	const idle = 10000
	d := start(b, serve.Config{Limits: serve.Limits{MaxConns: idle + 64, IdleTimeout: time.Hour}})
	c := newClient(b, d)
	measure := func() (p50, p99 time.Duration) {
		lat := make([]time.Duration, b.N)
		for i := range lat {
			t0 := time.Now()
			if err := post(c, "/v1/events", event(i)); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t0)
		}
		sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
		return lat[len(lat)/2], lat[len(lat)*99/100]
	}
	b.ResetTimer()
	base50, base99 := measure()
	b.StopTimer()
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", idleHelper, d.Addr(), d.Token(), idle))
	stdin, err := helper.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := helper.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		b.Fatal(err)
	}
	defer helper.Wait()
	defer stdin.Close()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		b.Fatalf("the helper holding idle connections: %q", line)
	}
	open := c.status().Load.Connections
	b.StartTimer()
	with50, with99 := measure()
	b.StopTimer()
	b.ReportMetric(float64(open), "conns-open")
	b.ReportMetric(float64(base50.Microseconds()), "p50-µs-alone")
	b.ReportMetric(float64(base99.Microseconds()), "p99-µs-alone")
	b.ReportMetric(float64(with50.Microseconds()), "p50-µs-idle10k")
	b.ReportMetric(float64(with99.Microseconds()), "p99-µs-idle10k")
	b.ReportMetric(float64(with50)/float64(base50), "p50-ratio")
	b.ReportMetric(float64(with99)/float64(base99), "p99-ratio")
}
