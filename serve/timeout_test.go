package serve_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

// An append whose durability takes longer than the request's time gets
// 504 with its events pending, not receipted: they are appended and become
// durable, but a receipt means durable.
func TestDurabilityTimeout(t *testing.T) {
	dir := t.TempDir()
	// The group commit waits a second before its fsync; requests get 100ms.
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{GroupWindow: time.Second}, Limits: serve.Limits{Timeout: 100 * time.Millisecond}})
	c := newClient(t, d)
	st, b := c.do("POST", "/v1/events:batch", event(0)+"\n"+event(1))
	if st != http.StatusGatewayTimeout {
		t.Fatalf("slow durability: %d %s, want 504", st, b)
	}
	var e struct {
		Recorded int
		Receipts []recorder.Receipt
		Pending  []recorder.Receipt
		Error    string
	}
	decode(t, b, &e)
	if e.Recorded != 0 || len(e.Receipts) != 0 || len(e.Pending) != 2 || e.Pending[1].Seq != 1 || !strings.Contains(e.Error, "not durable within the request's time (100ms)") {
		t.Fatalf("504 body %s: want both events pending (no receipt: they are not durable) and the time limit named", b)
	}
	for s := c.status(); s.Position.Durable < 2; s = c.status() {
		time.Sleep(50 * time.Millisecond)
	}
	shutdown(t, d)
	verifyLog(t, dir, 2)
}

// A body that does not arrive within the time for a body gets 408, and the
// daemon goes on. The client is a raw connection that announces a body and
// sends part of it.
func TestSlowBody(t *testing.T) {
	d := start(t, serve.Config{Limits: serve.Limits{ReadTimeout: 200 * time.Millisecond}})
	conn, err := net.Dial("tcp", d.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n%s", d.Token(), event(0)[:10])
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "did not arrive within 200ms") {
		t.Fatalf("trickled body: %d %s, want 408", resp.StatusCode, b)
	}
	if rc := newClient(t, d).receipt(event(1)); rc.Seq != 0 {
		t.Fatalf("after the slow body: seq %d, want 0", rc.Seq)
	}
}

// Proofs of sealed events are served while clients append (the log's
// last frame may be half written when it is read).
func TestProofWhileWriting(t *testing.T) {
	d := start(t, serve.Config{Recorder: recorder.Options{EpochSize: 4, Sync: recorder.SyncWrite}})
	c := newClient(t, d)
	for i := range 8 {
		c.receipt(event(i))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newClient(t, d)
			for i := range 40 {
				if st, b, err := w.try("POST", "/v1/events:batch", strings.Repeat(event(g*10000+i)+"\n", 20)); err != nil || st != http.StatusOK {
					t.Errorf("writer: %d %s %v", st, b, err)
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	proofs := 0
	for running := true; running; proofs++ {
		select {
		case <-done:
			running = false
		default:
		}
		if st, b := c.do("GET", "/v1/proof/"+[]string{"0", "3", "5", "7"}[proofs%4], ""); st != http.StatusOK {
			t.Fatalf("proof while writing: %d %s", st, b)
		}
	}
	if proofs < 10 {
		t.Errorf("only %d proofs while 3,200 events were appended", proofs)
	}
}
