package serve_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

// ownConn is a client with a connection of its own (one keep-alive
// connection), as a separate agent has.
func ownConn(t testing.TB, d *serve.Daemon) *client {
	c := newClient(t, d)
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	return c
}

// waitLoad polls /v1/status until ok holds of its load (failing the test
// if it never does within 10s).
func waitLoad(t *testing.T, c *client, what string, ok func(serve.Load) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		l := c.status().Load
		if ok(l) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: load %+v", what, l)
		}
	}
}

// slowBody opens a connection that sends an append's headers and part of
// its body, and returns it with the rest to send.
func slowBody(t *testing.T, d *serve.Daemon, body string, sent int) (net.Conn, string) {
	conn, err := net.Dial("tcp", d.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", d.Token(), len(body), body[:sent])
	return conn, body[sent:]
}

func readStatus(t *testing.T, conn net.Conn) int {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Bodies that trickle in hold no append slot: with every slot's worth of
// slow bodies being read, an append is served at once; the slow ones are
// served when their bodies arrive.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{MaxInFlight: 2}})
	c := newClient(t, d)
	var slow []net.Conn
	var rest []string
	for i := range 4 {
		conn, r := slowBody(t, d, event(100+i), 10)
		slow, rest = append(slow, conn), append(rest, r)
	}
	waitLoad(t, c, "4 bodies being read", func(l serve.Load) bool { return l.Bodies == 4 })
	if rc := c.receipt(event(0)); rc.Seq != 0 {
		t.Fatalf("append while slow bodies are read: seq %d, want 0", rc.Seq)
	}
	for i, conn := range slow {
		io.WriteString(conn, rest[i])
		if st := readStatus(t, conn); st != http.StatusOK {
			t.Fatalf("slow body %d: %d", i, st)
		}
	}
}

// The bytes of bodies held at once are bounded: a body that would pass
// the bound gets 503 at once, and a body holds only what it delivered.
func TestBodiesInFlightBound(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{MaxBody: 8000, MaxBodies: 10000}})
	c := newClient(t, d)
	padded := func(i, n int) string { return event(i) + strings.Repeat(" ", n-len(event(i))) }
	conn, rest := slowBody(t, d, padded(0, 8000), 7000)
	waitLoad(t, c, "7000 body bytes held", func(l serve.Load) bool { return l.BodyBytes == 7000 })
	st, b := c.do("POST", "/v1/events", padded(1, 3500))
	if st != http.StatusServiceUnavailable || !strings.Contains(string(b), "hold 10000 bytes, the daemon's limit") {
		t.Fatalf("a body past the bound: %d %s, want 503", st, b)
	}
	io.WriteString(conn, rest)
	if st := readStatus(t, conn); st != http.StatusOK {
		t.Fatalf("the body within the bound: %d", st)
	}
	if rc := c.receipt(padded(2, 3500)); rc.Seq != 1 {
		t.Fatalf("after the bodies: seq %d, want 1", rc.Seq)
	}
}

// While 200 batch writers saturate the daemon (some of them shed with
// 429), a client sending one event at a time is served every time: the
// queue admits fairly between connections, and sheds the heaviest.
func TestFairShedding(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{MaxInFlight: 2, MaxQueued: 8}})
	batch := strings.Repeat(event(0)+"\n", 20)
	stop := make(chan struct{})
	shed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := ownConn(t, d)
			for {
				select {
				case <-stop:
					return
				default:
				}
				st, b, err := w.try("POST", "/v1/events:batch", batch)
				switch {
				case err != nil:
					t.Error(err)
					return
				case st == http.StatusTooManyRequests:
					if !strings.Contains(string(b), "this connection's sent the most events") {
						t.Errorf("429: %s", b)
					}
					once.Do(func() { close(shed) })
				case st != http.StatusOK:
					t.Errorf("batch writer: %d %s", st, b)
					return
				}
			}
		}()
	}
	<-shed
	small := ownConn(t, d)
	for i := range 10 {
		if st, b := small.do("POST", "/v1/events", event(i)); st != http.StatusOK {
			t.Errorf("one-event client, request %d: %d %s", i, st, b)
		}
	}
	close(stop)
	wg.Wait()
	if l := small.status().Load; l.Shed == 0 || l.InFlight != 0 || l.Queued != 0 {
		t.Fatalf("load after the writers: %+v", l)
	}
}

// Past MaxConns, each new connection closes the one idle longest: idle
// connections cannot exhaust the daemon's descriptors, and appends go on.
func TestConnectionCap(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{MaxConns: 4, IdleTimeout: time.Hour, ReadHeaderTimeout: time.Hour}})
	var conns []net.Conn
	for range 10 {
		conn, err := net.Dial("tcp", d.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", d.Token())
		if st := readStatus(t, conn); st != http.StatusOK {
			t.Fatalf("status: %d", st)
		}
		conns = append(conns, conn) // now idle, kept alive
		// The daemon marks a connection idle after it wrote the answer,
		// which the client may read first: wait for it, so that the next
		// connection finds this one idle (the longest idle is closed).
		for want := min(len(conns), 4); serve.IdleConns(d) != want; {
			time.Sleep(time.Millisecond)
		}
	}
	for i, conn := range conns[:6] {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("idle connection %d of 10 (cap 4): read %v, want EOF (closed by the daemon)", i, err)
		}
	}
	c := newClient(t, d)
	if rc := c.receipt(event(0)); rc.Seq != 0 {
		t.Fatalf("append at the cap: seq %d", rc.Seq)
	}
	if l := c.status().Load; l.Connections > 4 {
		t.Fatalf("%d connections open, cap 4", l.Connections)
	}
}

// An idle keep-alive connection is closed after IdleTimeout, and one that
// does not finish its headers after ReadHeaderTimeout.
func TestIdleAndHeaderTimeouts(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{IdleTimeout: 50 * time.Millisecond, ReadHeaderTimeout: 50 * time.Millisecond}})
	idle, err := net.Dial("tcp", d.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", d.Token())
	br := bufio.NewReader(idle)
	idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: read %v, want EOF", err)
	}
	partial, err := net.Dial("tcp", d.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer partial.Close()
	io.WriteString(partial, "POST /v1/events HTTP/1.1\r\nHost: 127.")
	partial.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(partial); err != nil {
		t.Fatalf("unfinished headers: read %q, %v, want the connection closed", b, err)
	}
}

// A log directory removed under the daemon: /v1/status shows the failure,
// appends get 503 naming it, and shutdown reports it (afr serve then exits
// non-zero).
func TestVanishedLogDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	d := start(t, serve.Config{Dir: dir})
	c := newClient(t, d)
	c.receipt(event(0))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if s := c.status(); !strings.Contains(s.Failed, "was removed while the log was open for writing") {
		t.Fatalf("status after the directory was removed: failed %q", s.Failed)
	}
	if st, b := c.do("POST", "/v1/events", event(1)); st != http.StatusServiceUnavailable || !strings.Contains(string(b), "was removed") {
		t.Fatalf("append after the directory was removed: %d %s, want 503", st, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ve *recorder.VanishedError
	if err := d.Shutdown(ctx); !errors.As(err, &ve) {
		t.Fatalf("shutdown: %v, want the vanished log", err)
	}
}

// bigEvent is an event JSON of about 4 KiB.
func bigEvent(i int) string {
	return fmt.Sprintf(`{"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"echo %d %s"}}}}`, i, strings.Repeat("x", 4000))
}

// The disk fills under batch writers: every event with a receipt — in a
// 200 or in a 503 — is in the log after a restart, and no other event is
// (a 503's events without receipts were removed: they may be sent again).
func TestDiskFullReceipts(t *testing.T) {
	fs := logtest.SmallFS(t, 2<<20)
	dir := filepath.Join(fs, "log")
	spare := filepath.Join(fs, "spare") // room to reopen the log
	if err := os.WriteFile(spare, make([]byte, 256<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{EpochSize: 16, EpochMaxAge: -1}})
	var mu sync.Mutex
	var rcs []recorder.Receipt
	var failures int
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ownConn(t, d)
			for i := 0; ; i++ {
				var batch strings.Builder
				for j := range 10 {
					batch.WriteString(bigEvent(w<<20|i<<8|j) + "\n")
				}
				st, b, err := c.try("POST", "/v1/events:batch", batch.String())
				if err != nil {
					t.Error(err)
					return
				}
				var got struct{ Receipts []recorder.Receipt }
				decode(t, b, &got)
				mu.Lock()
				rcs = append(rcs, got.Receipts...)
				if st == http.StatusServiceUnavailable {
					failures++
				}
				mu.Unlock()
				if st != http.StatusOK {
					if st != http.StatusServiceUnavailable || !strings.Contains(string(b), "no space left on device") {
						t.Errorf("batch: %d %s, want 200 or 503 for the full disk", st, b)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("shutdown after the disk filled: %v, want the failure", err)
	}
	if failures == 0 || len(rcs) == 0 {
		t.Fatalf("%d receipts, %d 503s: the disk never filled", len(rcs), failures)
	}
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	r, err := recorder.Open(dir, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	logtest.Receipted(t, dir, rcs)
}
