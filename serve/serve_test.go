package serve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

// One event, a JSON array and JSON Lines: receipts are gapless, each is the
// record the log holds, and after shutdown the log verifies.
func TestAppendOneAndBatches(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{EpochSize: 4}})
	c := newClient(t, d)
	var rcs []recorder.Receipt
	rcs = append(rcs, c.receipt(event(0)))
	st, b := c.do("POST", "/v1/events:batch", "["+event(1)+","+event(2)+"]")
	if st != http.StatusOK {
		t.Fatalf("array batch: %d %s", st, b)
	}
	var br struct{ Receipts []recorder.Receipt }
	decode(t, b, &br)
	rcs = append(rcs, br.Receipts...)
	st, b = c.do("POST", "/v1/events:batch", event(3)+"\n\n"+event(4)+"\n"+event(5)+"\n")
	if st != http.StatusOK {
		t.Fatalf("JSON Lines batch: %d %s", st, b)
	}
	br.Receipts = nil
	decode(t, b, &br)
	rcs = append(rcs, br.Receipts...)
	if len(rcs) != 6 {
		t.Fatalf("%d receipts, want 6", len(rcs))
	}
	for i, rc := range rcs {
		if rc.Seq != uint64(i) || rc.Epoch != uint64(i/4) {
			t.Errorf("receipt %d: seq %d epoch %d, want seq %d epoch %d", i, rc.Seq, rc.Epoch, i, i/4)
		}
	}
	if s := c.status(); s.Position.Next != 6 || s.Position.Durable != 6 || s.Epochs != 1 || s.Position.OpenEvents != 2 {
		t.Errorf("status %+v, want 6 events, all durable, 1 sealed epoch, 2 open", s)
	}
	// The proof of a sealed event is that of afr proof, for its record.
	st, b = c.do("GET", "/v1/proof/3", "")
	if st != http.StatusOK {
		t.Fatalf("proof: %d %s", st, b)
	}
	var p struct {
		Record []byte        `json:"record"`
		Root   format.Digest `json:"root"`
	}
	decode(t, b, &p)
	if format.RecordDigest(p.Record) != rcs[3].Digest {
		t.Errorf("proof of 3 is for record %s, receipt says %s", format.RecordDigest(p.Record), rcs[3].Digest)
	}
	for path, want := range map[string]int{"/v1/proof/4": http.StatusConflict, "/v1/proof/6": http.StatusNotFound, "/v1/proof/x": http.StatusBadRequest} {
		if st, b := c.do("GET", path, ""); st != want {
			t.Errorf("GET %s: %d %s, want %d", path, st, b, want)
		}
	}
	shutdown(t, d)
	verifyLog(t, dir, 6)
}

func shutdown(t testing.TB, d *serve.Daemon) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// Every bad request gets its documented status and a JSON body that says
// what is wrong; nothing of it is recorded, and the daemon goes on.
func TestBadRequests(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, Limits: serve.Limits{MaxBody: 4096}})
	c := newClient(t, d)
	noToken := &client{t: t, base: c.base, http: c.http}
	wrongToken := &client{t: t, base: c.base, token: strings.Repeat("0", len(d.Token())), http: c.http}
	c.receipt(event(0))
	for _, tc := range []struct {
		name   string
		c      *client
		path   string
		body   string
		status int
		want   []string // in the error message
		item   *int
		line   int
	}{
		{"unknown kind", c, "/v1/events", `{"tool":"shell","kind":"llm_response"}`, 400, []string{`"llm_response"`}, nil, 0},
		{"missing tool", c, "/v1/events", `{"kind":"tool_call"}`, 400, []string{"tool is required"}, nil, 0},
		{"unknown field", c, "/v1/events", `{"tool":"shell","kind":"tool_call","payload":{"intent":{"cmd":"ls"}}}`, 400, []string{`payload.intent.cmd: unknown field`}, nil, 0},
		{"malformed JSON", c, "/v1/events", `{"tool":"shell",`, 400, []string{"event JSON"}, nil, 0},
		{"two events to /v1/events", c, "/v1/events", event(1) + event(2), 400, []string{"after the event object"}, nil, 0},
		{"bad item in an array", c, "/v1/events:batch", "[" + event(1) + `,{"tool":"x","kind":"nope"}]`, 400, []string{`"nope"`}, ptr(1), 0},
		{"bad line in JSON Lines", c, "/v1/events:batch", event(1) + "\n\n" + event(2) + "\n{\n", 400, []string{"event JSON"}, ptr(2), 4},
		{"not an array", c, "/v1/events:batch", `[1,`, 400, []string{"not a JSON array"}, nil, 0},
		{"empty batch", c, "/v1/events:batch", " \n", 400, []string{"no event"}, nil, 0},
		{"oversized body", c, "/v1/events:batch", strings.Repeat(event(1)+"\n", 60), 413, []string{"over 4096 bytes"}, nil, 0},
		{"no token", noToken, "/v1/events", event(1), 401, []string{"bearer token"}, nil, 0},
		{"wrong token", wrongToken, "/v1/status", "", 401, []string{"bearer token"}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.t = t
			st, b := tc.c.do(methodOf(tc.path), tc.path, tc.body)
			if st != tc.status {
				t.Fatalf("status %d %s, want %d", st, b, tc.status)
			}
			var e struct {
				Status   int
				Error    string
				Item     *int
				Line     int
				Recorded *int
				Hint     string
			}
			decode(t, b, &e)
			for _, w := range tc.want {
				if !strings.Contains(e.Error, w) {
					t.Errorf("error %q does not contain %q", e.Error, w)
				}
			}
			if e.Status != tc.status || e.Hint == "" || e.Recorded == nil || *e.Recorded != 0 {
				t.Errorf("body %s: want status %d, a hint, recorded 0", b, tc.status)
			}
			if (e.Item == nil) != (tc.item == nil) || e.Item != nil && *e.Item != *tc.item || e.Line != tc.line {
				t.Errorf("body %s: want item %v line %d", b, tc.item, tc.line)
			}
		})
	}
	// An event the recorder itself refuses (its causal clock past the
	// logical clock's limit) is a 400 too, not a failure of the daemon.
	st, b := c.do("POST", "/v1/events", `{"tool":"shell","kind":"tool_call","after":18446744073709551615}`)
	if st != http.StatusBadRequest || !strings.Contains(string(b), "clock") {
		t.Fatalf("event after the clock's limit: %d %s, want 400", st, b)
	}
	// Nothing of those was recorded, and the daemon still appends.
	if rc := c.receipt(event(1)); rc.Seq != 1 {
		t.Fatalf("next event got seq %d, want 1", rc.Seq)
	}
	// Wrong methods and routes are not served.
	for _, tc := range []struct {
		method, path string
		status       int
	}{{"GET", "/v1/events", 405}, {"POST", "/v1/status", 405}, {"DELETE", "/v1/proof/1", 405}, {"GET", "/v2/events", 404}} {
		st, b := c.do(tc.method, tc.path, "")
		var e struct{ Status int }
		decode(t, b, &e)
		if st != tc.status || e.Status != tc.status {
			t.Errorf("%s %s: %d %s, want %d", tc.method, tc.path, st, b, tc.status)
		}
	}
	shutdown(t, d)
	verifyLog(t, dir, 2)
}

func ptr(i int) *int { return &i }

func methodOf(path string) string {
	if path == "/v1/status" {
		return "GET"
	}
	return "POST"
}

// TestCausalLinkBound: an event whose after is further past the log's
// clock than a causal link can be (the review's 18446744073709551614, which
// used to leave the clock one short of its end so that every later append
// of every writer was refused) is a 400 naming the causal link and the
// clock, also as the second event of a batch (the first is recorded, with
// its receipt); the daemon goes on appending.
func TestCausalLinkBound(t *testing.T) {
	d := start(t, serve.Config{})
	c := newClient(t, d)
	c.receipt(event(0))
	st, b := c.do("POST", "/v1/events", `{"tool":"shell","kind":"tool_call","after":18446744073709551614}`)
	if st != http.StatusBadRequest || !strings.Contains(string(b), "causal link after 18446744073709551614") || !strings.Contains(string(b), "clock is 1") {
		t.Fatalf("POST /v1/events: %d %s, want 400 naming the causal link and the clock", st, b)
	}
	st, b = c.do("POST", "/v1/events:batch", "["+event(1)+`,{"tool":"shell","kind":"tool_call","after":4294967299}]`)
	var e struct {
		Item     *int
		Recorded int
		Receipts []recorder.Receipt
	}
	decode(t, b, &e)
	if st != http.StatusBadRequest || e.Item == nil || *e.Item != 1 || e.Recorded != 1 || len(e.Receipts) != 1 || e.Receipts[0].Clock != 2 {
		t.Fatalf("POST /v1/events:batch: %d %s, want 400 for item 1 after one recorded", st, b)
	}
	if rc := c.receipt(`{"tool":"shell","kind":"tool_call","after":4294967298}`); rc.Seq != 2 || rc.Clock != 4294967299 {
		t.Fatalf("an event after the clock + 2^32: %+v", rc)
	}
	if rc := c.receipt(event(3)); rc.Seq != 3 {
		t.Fatalf("next event: %+v, want seq 3", rc)
	}
}

// 16 clients at once get distinct, gapless sequence numbers.
func TestConcurrentClients(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{EpochSize: 50}})
	const clients, each = 16, 30
	var mu sync.Mutex
	var seqs []uint64
	digests := map[format.Digest]bool{}
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(t, d)
			for i := range each {
				var rcs []recorder.Receipt
				if i%3 == 2 {
					st, b, err := c.try("POST", "/v1/events:batch", event(g*1000+i)+"\n"+event(g*1000+i+500))
					if err != nil || st != http.StatusOK {
						t.Errorf("client %d batch: %d %s %v", g, st, b, err)
						return
					}
					var br struct{ Receipts []recorder.Receipt }
					decode(t, b, &br)
					rcs = br.Receipts
				} else {
					st, b, err := c.try("POST", "/v1/events", event(g*1000+i))
					if err != nil || st != http.StatusOK {
						t.Errorf("client %d: %d %s %v", g, st, b, err)
						return
					}
					var rc recorder.Receipt
					decode(t, b, &rc)
					rcs = []recorder.Receipt{rc}
				}
				mu.Lock()
				for _, rc := range rcs {
					seqs = append(seqs, rc.Seq)
					digests[rc.Digest] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	n := clients * (each + each/3)
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	if len(seqs) != n || len(digests) != n {
		t.Fatalf("%d receipts, %d distinct digests, want %d", len(seqs), len(digests), n)
	}
	for i, s := range seqs {
		if s != uint64(i) {
			t.Fatalf("sequence numbers not gapless and distinct: position %d holds %d", i, s)
		}
	}
	shutdown(t, d)
	verifyLog(t, dir, uint64(n))
}

// A second daemon, or afr record's recorder, on the same log fails with
// the lock error naming the first; the first keeps serving.
func TestSecondWriterLocked(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir})
	_, err := serve.Start(context.Background(), serve.Config{Dir: dir, Listen: "127.0.0.1:0"})
	var le *recorder.LockedError
	if !errors.As(err, &le) || le.Holder == nil || le.Holder.PID != os.Getpid() {
		t.Fatalf("second daemon: %v, want a *recorder.LockedError naming pid %d", err, os.Getpid())
	}
	if !strings.Contains(err.Error(), "open for writing by pid") {
		t.Errorf("lock error %q does not name the writer", err)
	}
	if _, err := recorder.Open(dir, recorder.Options{}); !errors.As(err, &le) {
		t.Fatalf("recorder.Open beside the daemon: %v, want *recorder.LockedError", err)
	}
	if rc := newClient(t, d).receipt(event(0)); rc.Seq != 0 {
		t.Fatalf("seq %d", rc.Seq)
	}
}

// Shutdown while clients are sending: requests in flight finish, every
// acknowledged event is in the log, the open epoch is sealed, the log
// verifies, and requests after it are refused by the closed listener, never
// half-served.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{EpochSize: 1000, Sync: recorder.SyncEvent}})
	var acked sync.Map
	var wg sync.WaitGroup
	var started sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(t, d)
			for i := 0; ; i++ {
				st, b, err := c.try("POST", "/v1/events", event(g*1000+i))
				if i == 0 {
					started.Done()
				}
				if err != nil {
					return // the listener is closed
				}
				if st != http.StatusOK {
					t.Errorf("client %d: %d %s during shutdown", g, st, b)
					return
				}
				var rc recorder.Receipt
				decode(t, b, &rc)
				acked.Store(rc.Seq, rc.Digest)
			}
		}()
	}
	started.Wait()
	shutdown(t, d)
	wg.Wait()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	var missing []uint64
	got := map[uint64]format.Digest{}
	l.Records(func(seq uint64, raw []byte) error { got[seq] = format.RecordDigest(raw); n++; return nil })
	acked.Range(func(k, v any) bool {
		if got[k.(uint64)] != v.(format.Digest) {
			missing = append(missing, k.(uint64))
		}
		return true
	})
	if len(missing) > 0 || n == 0 {
		t.Fatalf("%d events in the log; acknowledged but not there: %v", n, missing)
	}
	verifyLog(t, dir, n) // every event in a sealed epoch
}

// A recorder that can take no more events answers 503 with the reason, to
// every append, while status still answers.
func TestRecorderFailure(t *testing.T) {
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "failing"})
	h := serve.NewHandler(r, dir, "secret", serve.Limits{}, nil)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req, _ := http.NewRequest("POST", "/v1/events", strings.NewReader(event(0)))
		req.Header.Set("Authorization", "Bearer secret")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), recorder.ErrClosed.Error()) {
			t.Fatalf("append to a failed recorder: %d %s, want 503 with the reason", w.Code, w.Body.String())
		}
	}
	req, _ := http.NewRequest("GET", "/v1/status", nil)
	req.Header.Set("Authorization", "Bearer secret")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"failed":"`+recorder.ErrClosed.Error()) {
		t.Fatalf("status of a failed recorder: %d %s", w.Code, w.Body.String())
	}
}

// The token file is created 0600, reused, and refused when others may
// read it; a non-loopback address needs AllowRemote.
func TestTokenAndListen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tok")
	tok, created, err := serve.LoadOrCreateToken(path)
	if err != nil || !created || len(tok) != 64 {
		t.Fatalf("create: %q %v %v", tok, created, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	again, created, err := serve.LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("reread: %q %v %v", again, created, err)
	}
	os.Chmod(path, 0o644)
	if _, _, err := serve.LoadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable token file: %v", err)
	}
	for addr, ok := range map[string]bool{"127.0.0.1:8787": true, "[::1]:1": true, "localhost:0": true, "0.0.0.0:8787": false, ":8787": false, "192.0.2.1:80": false} {
		err := serve.CheckListen(addr, false)
		if (err == nil) != ok {
			t.Errorf("CheckListen(%q): %v", addr, err)
		}
		if err := serve.CheckListen(addr, true); err != nil {
			t.Errorf("CheckListen(%q, allowRemote): %v", addr, err)
		}
	}
	_, err = serve.Start(context.Background(), serve.Config{Dir: t.TempDir(), Listen: "0.0.0.0:0"})
	if nl := (*serve.NotLoopbackError)(nil); !errors.As(err, &nl) || nl.Addr != "0.0.0.0:0" {
		t.Fatalf("Start on 0.0.0.0: %v, want a *NotLoopbackError", err)
	}
}
