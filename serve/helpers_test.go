package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
	"github.com/agentflightrecorder/afr/verifier"
)

// start runs a daemon on a loopback port over a new log (or cfg.Dir) and
// shuts it down at the end of the test unless the test did.
func start(t testing.TB, cfg serve.Config) *serve.Daemon {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Recorder.Recorder == "" {
		cfg.Recorder.Recorder = "serve-test"
	}
	cfg.Listen = "127.0.0.1:0"
	cfg.Logf = t.Logf
	d, err := serve.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.Shutdown(ctx) // a second Shutdown reports the closed recorder: ignored
	})
	return d
}

// client calls a daemon's API.
type client struct {
	t     testing.TB
	base  string
	token string
	http  *http.Client
}

func newClient(t testing.TB, d *serve.Daemon) *client {
	return &client{t: t, base: "http://" + d.Addr().String(), token: d.Token(), http: &http.Client{Timeout: 30 * time.Second}}
}

// do sends a request and returns the status and body; a transport error
// fails the test.
func (c *client) do(method, path, body string) (int, []byte) {
	c.t.Helper()
	st, b, err := c.try(method, path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	return st, b
}

func (c *client) try(method, path, body string) (int, []byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// receipt appends one event and returns its receipt.
func (c *client) receipt(event string) recorder.Receipt {
	c.t.Helper()
	st, b := c.do("POST", "/v1/events", event)
	if st != http.StatusOK {
		c.t.Fatalf("POST /v1/events: %d %s", st, b)
	}
	var rc recorder.Receipt
	decode(c.t, b, &rc)
	return rc
}

func (c *client) status() serve.Status {
	c.t.Helper()
	st, b := c.do("GET", "/v1/status", "")
	if st != http.StatusOK {
		c.t.Fatalf("GET /v1/status: %d %s", st, b)
	}
	var s serve.Status
	decode(c.t, b, &s)
	return s
}

func decode(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("response %s: %v", b, err)
	}
}

// event is a valid event JSON with a distinguishing argument.
func event(i int) string {
	return fmt.Sprintf(`{"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"echo %d"}}}}`, i)
}

// verifyLog verifies the closed log in dir against the roots it holds
// (no chain) and checks it holds n events, all in sealed epochs.
func verifyLog(t testing.TB, dir string, n uint64) {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified || rep.Events != n || rep.AnchoredEvents != n {
		t.Fatalf("verdict %s, %d events (%d in anchored epochs), want verified with %d: %v", rep.Verdict, rep.Events, rep.AnchoredEvents, n, rep.Findings)
	}
}
