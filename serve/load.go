package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// scheduler admits appends and proofs, MaxInFlight at a time, by
// start-time fair queueing between connections: a request of cost c (its
// events) from a connection whose last request was tagged F gets the tag
// max(V, F) + c, V being the start of the request last admitted, and the
// waiting request with the smallest tag goes first. A connection that sends
// one event is thus admitted ahead of connections sending large batches,
// however many. Past MaxQueued waiters the one with the largest tag — the
// heaviest client's — is refused (429), not the newcomer.
type scheduler struct {
	mu      sync.Mutex
	free    int
	queue   int
	vtime   uint64
	order   uint64
	waiting []*waiter
	shed    uint64
}

type waiter struct {
	start, tag, order uint64
	ready             chan error // nil: admitted; errShed: refused
}

// fairness is a connection's finish tag; guarded by scheduler.mu.
type fairness struct{ finish uint64 }

var errShed = errors.New("shed")

func newScheduler(inFlight, queue int) *scheduler {
	return &scheduler{free: inFlight, queue: queue}
}

// acquire waits for a slot; release must follow a nil return. It fails
// with errShed when the request is refused for load, or with ctx's error.
func (s *scheduler) acquire(ctx context.Context, c *fairness, cost uint64) error {
	s.mu.Lock()
	start := max(s.vtime, c.finish)
	c.finish = start + cost
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.vtime = start
		s.mu.Unlock()
		return nil
	}
	w := &waiter{start: start, tag: start + cost, order: s.order, ready: make(chan error, 1)}
	s.order++
	s.waiting = append(s.waiting, w)
	if len(s.waiting) > s.queue {
		heaviest := 0
		for i, v := range s.waiting {
			if v.tag > s.waiting[heaviest].tag || v.tag == s.waiting[heaviest].tag && v.order > s.waiting[heaviest].order {
				heaviest = i
			}
		}
		s.take(heaviest).ready <- errShed
		s.shed++
	}
	s.mu.Unlock()
	select {
	case err := <-w.ready:
		return err
	case <-ctx.Done():
	}
	s.mu.Lock()
	for i, v := range s.waiting {
		if v == w {
			s.take(i)
			s.shed++
			s.mu.Unlock()
			return ctx.Err()
		}
	}
	s.mu.Unlock()
	if err := <-w.ready; err == nil { // admitted meanwhile: give the slot on
		s.release()
	}
	return ctx.Err()
}

// take removes waiting[i]; s.mu is held.
func (s *scheduler) take(i int) *waiter {
	w := s.waiting[i]
	s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
	return w
}

// release frees a slot: the waiter with the smallest tag (the earliest
// among equals) takes it.
func (s *scheduler) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	next := 0
	for i, v := range s.waiting {
		if v.tag < s.waiting[next].tag || v.tag == s.waiting[next].tag && v.order < s.waiting[next].order {
			next = i
		}
	}
	w := s.take(next)
	s.vtime = w.start
	w.ready <- nil
}

// budget bounds the bytes of request bodies held at once. A body reserves
// what it has sent so far, not what it announces, so a slow body holds no
// more than it delivered.
type budget struct {
	mu   sync.Mutex
	max  int64
	used int64
	// reading counts the bodies being read.
	reading int
}

// errBodies is a body refused because the bodies in flight fill the budget.
type errBodies struct{ max int64 }

func (e *errBodies) Error() string {
	return fmt.Sprintf("the request bodies being received hold %d bytes, the daemon's limit", e.max)
}

// reader reads r, reserving every byte it delivers; done releases them.
func (b *budget) reader(r io.Reader) (*budgetReader, func()) {
	b.mu.Lock()
	b.reading++
	b.mu.Unlock()
	br := &budgetReader{b: b, r: r}
	return br, func() {
		b.mu.Lock()
		b.used -= br.held
		b.reading--
		b.mu.Unlock()
	}
}

type budgetReader struct {
	b    *budget
	r    io.Reader
	held int64
}

func (r *budgetReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.b.used+int64(n) > r.b.max {
		return 0, &errBodies{max: r.b.max}
	}
	r.b.used += int64(n)
	r.held += int64(n)
	return n, err
}

// conns caps a server's connections: past max, accepting a connection
// closes the one idle longest (waiting between requests, or for its first
// one), or, when every connection is busy with a request, refuses the new
// one with 503. Each connection carries its fairness for the scheduler.
type conns struct {
	mu    sync.Mutex
	max   int
	open  map[net.Conn]*connInfo
	logf  func(string, ...any)
	shown bool // the cap was reported
}

type connInfo struct {
	busy  bool
	since time.Time
	fair  fairness
}

type connKey struct{}

func newConns(max int, logf func(string, ...any)) *conns {
	return &conns{max: max, open: map[net.Conn]*connInfo{}, logf: logf}
}

func (c *conns) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// serve sets srv's hooks: ConnState tracks each connection's state and
// ConnContext gives its requests their connection's fairness.
func (c *conns) serve(srv *http.Server) {
	srv.ConnState = c.state
	srv.ConnContext = func(ctx context.Context, nc net.Conn) context.Context {
		c.mu.Lock()
		info := c.open[nc]
		c.mu.Unlock()
		if info == nil {
			return ctx
		}
		return context.WithValue(ctx, connKey{}, &info.fair)
	}
}

func (c *conns) state(nc net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st {
	case http.StateNew, http.StateIdle:
		if info := c.open[nc]; info != nil {
			info.busy, info.since = false, time.Now()
		}
	case http.StateActive:
		if info := c.open[nc]; info != nil {
			info.busy = true
		}
	case http.StateHijacked, http.StateClosed:
		delete(c.open, nc)
	}
}

// listener applies the cap to what ln accepts.
func (c *conns) listener(ln net.Listener) net.Listener { return &capListener{Listener: ln, c: c} }

type capListener struct {
	net.Listener
	c *conns
}

// refusal is what a connection over the cap gets when none can be closed.
const refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: %d\r\n\r\n%s"

func (l *capListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.c.admit(nc) {
			return nc, nil
		}
	}
}

// admit tracks nc, closing the longest-idle connection to make room, or
// refuses nc (and closes it) when every open connection is busy.
func (c *conns) admit(nc net.Conn) bool {
	c.mu.Lock()
	var victim net.Conn
	if len(c.open) >= c.max {
		var oldest *connInfo
		for k, info := range c.open {
			if !info.busy && (oldest == nil || info.since.Before(oldest.since)) {
				victim, oldest = k, info
			}
		}
		if victim != nil {
			delete(c.open, victim)
		}
		if !c.shown {
			c.shown = true
			c.logf("%d connections open, the limit (--max-conns): closing the longest idle for each new one", c.max)
		}
	}
	admitted := len(c.open) < c.max
	if admitted {
		c.open[nc] = &connInfo{since: time.Now()}
	}
	c.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
	if !admitted {
		b := fmt.Sprintf(`{"status":503,"error":"%d connections open, all busy with requests: the daemon's limit","recorded":0,"hint":"retry after a moment"}`+"\n", c.max)
		nc.SetWriteDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(nc, refusal, len(b), b)
		nc.Close()
	}
	return admitted
}
