package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
)

// Limits of the HTTP API; zero values give the defaults (docs/SERVE.md,
// "Limits").
type Limits struct {
	// MaxBody is the largest request body in bytes (default 1 MiB); a
	// larger one gets 413.
	MaxBody int64
	// MaxBodies bounds the bytes of all request bodies held at once
	// (default 64 MiB, at least MaxBody); a body that would pass it gets
	// 503 at once. A body reserves what it has delivered, not what it
	// announces.
	MaxBodies int64
	// MaxInFlight bounds the appends and proofs served at once (default
	// 64); others wait in a queue that admits them fairly between
	// connections, by their events (start-time fair queueing).
	MaxInFlight int
	// MaxQueued bounds the requests waiting for a slot (default 256);
	// past it the waiting request of the heaviest connection gets 429.
	MaxQueued int
	// MaxConns bounds the open connections (default 1024; Start only);
	// past it each new connection closes the one idle longest, or gets 503
	// when all are busy with a request.
	MaxConns int
	// ReadHeaderTimeout bounds the wait for a request's headers (default
	// 5s), IdleTimeout a connection's wait between requests (default 30s);
	// both apply in Start's server.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// ReadTimeout bounds reading a request's body (default 10s): 408 past
	// it.
	ReadTimeout time.Duration
	// Timeout bounds what follows: the wait for a slot and for durability
	// (default 30s).
	Timeout time.Duration
	// WriteTimeout bounds writing the answer to a client that does not
	// read it (default 10s).
	WriteTimeout time.Duration
	// MaxWindow, with an in-process anchorer, bounds the unanchored window:
	// while it has reached a bound, appends get 503 with Retry-After and
	// nothing of them is recorded (zero: no bound).
	MaxWindow recorder.WindowLimit
}

func (l *Limits) setDefaults() {
	if l.MaxBody <= 0 {
		l.MaxBody = 1 << 20
	}
	if l.MaxBodies <= 0 {
		l.MaxBodies = 64 << 20
	}
	l.MaxBodies = max(l.MaxBodies, l.MaxBody)
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = 64
	}
	if l.MaxQueued <= 0 {
		l.MaxQueued = 256
	}
	if l.MaxConns <= 0 {
		l.MaxConns = 1024
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&l.ReadHeaderTimeout, 5 * time.Second}, {&l.IdleTimeout, 30 * time.Second}, {&l.ReadTimeout, 10 * time.Second},
		{&l.Timeout, 30 * time.Second}, {&l.WriteTimeout, 10 * time.Second}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
}

// Handler serves the HTTP API of one recorder (docs/SERVE.md). It never
// closes the recorder.
type Handler struct {
	rec    *recorder.Recorder
	dir    string
	token  string
	limits Limits
	sched  *scheduler
	bodies *budget
	conns  *conns // set by Start; nil for a handler served otherwise
	mux    *http.ServeMux
	// window, when set, reports the anchoring window for /v1/status;
	// replica the replica's status.
	window  func() recorder.AnchorWindow
	replica func() replica.Status
}

// NewHandler returns the API of rec, whose log is in dir, for requests
// bearing token. window, when not nil, reports the unanchored window of an
// in-process anchorer.
func NewHandler(rec *recorder.Recorder, dir, token string, limits Limits, window func() recorder.AnchorWindow) *Handler {
	limits.setDefaults()
	h := &Handler{rec: rec, dir: dir, token: token, limits: limits, sched: newScheduler(limits.MaxInFlight, limits.MaxQueued),
		bodies: &budget{max: limits.MaxBodies}, window: window, mux: http.NewServeMux()}
	h.mux.HandleFunc("POST /v1/events", h.postEvent)
	h.mux.HandleFunc("POST /v1/events:batch", h.postBatch)
	h.mux.HandleFunc("GET /v1/status", h.status)
	h.mux.HandleFunc("GET /v1/proof/{seq}", h.proof)
	h.mux.HandleFunc("/", notFound)
	return h
}

// notFound answers, in JSON, a request that no route takes: 405 for a
// route's path with another method, else 404.
func notFound(w http.ResponseWriter, r *http.Request) {
	method := map[string]string{"/v1/events": "POST", "/v1/events:batch": "POST", "/v1/status": "GET"}[r.URL.Path]
	if strings.HasPrefix(r.URL.Path, "/v1/proof/") {
		method = "GET"
	}
	if method != "" {
		w.Header().Set("Allow", method)
		writeError(w, apiError{Status: http.StatusMethodNotAllowed, Error: fmt.Sprintf("%s %s: this route takes %s", r.Method, r.URL.Path, method)})
		return
	}
	writeError(w, apiError{Status: http.StatusNotFound, Error: fmt.Sprintf("no route %s %s", r.Method, r.URL.Path),
		Hint: "the routes are POST /v1/events, POST /v1/events:batch, GET /v1/status and GET /v1/proof/{seq} (docs/SERVE.md)"})
}

// apiError is the body of every error response.
type apiError struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
	// Item and Line locate a refused event in a batch.
	Item *int `json:"item,omitempty"`
	Line int  `json:"line,omitempty"`
	// Recorded counts the request's events that are durable: Receipts
	// are theirs.
	Recorded int                `json:"recorded"`
	Receipts []recorder.Receipt `json:"receipts,omitempty"`
	// Pending are events appended but not yet durable when the request's
	// time ended (504): durable once /v1/status position.durable passes
	// their seq, removed from the log if the recorder fails first.
	Pending []recorder.Receipt `json:"pending,omitempty"`
	Hint    string             `json:"hint,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, e apiError) {
	writeJSON(w, e.Status, e)
}

// ServeHTTP refuses what a web page could send (loopback.Check), checks the
// bearer token, then routes. The answer must be written within
// WriteTimeout once it starts.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := loopback.Check(r); err != nil {
		writeError(w, apiError{Status: http.StatusForbidden, Error: err.Error(),
			Hint: "the API is for programs on this host: name it as localhost or 127.0.0.1, and call it from a program, not a web page"})
		return
	}
	if !loopback.Bearer(r, h.token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="afr"`)
		writeError(w, apiError{Status: http.StatusUnauthorized, Error: "missing or wrong bearer token",
			Hint: "send the header Authorization: Bearer <token>, the token being the content of the daemon's token file (by default serve.token in the log directory)"})
		return
	}
	h.mux.ServeHTTP(&deadlineWriter{ResponseWriter: w, d: h.limits.WriteTimeout}, r)
}

// deadlineWriter sets the connection's write deadline when the answer
// starts. (A writer that is not a connection's, as in tests, has none.)
type deadlineWriter struct {
	http.ResponseWriter
	d time.Duration
}

func (w *deadlineWriter) WriteHeader(code int) {
	http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.d))
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// admit waits for a slot for a request of cost events: fairly between
// connections, within Timeout (ctx). On failure it has answered; on
// success release must follow.
func (h *Handler) admit(w http.ResponseWriter, ctx context.Context, cost int) bool {
	fair, _ := ctx.Value(connKey{}).(*fairness)
	if fair == nil {
		fair = new(fairness) // not served by Start: every request is a new client
	}
	err := h.sched.acquire(ctx, fair, uint64(cost))
	if err == nil {
		return true
	}
	w.Header().Set("Retry-After", "1")
	e := apiError{Status: http.StatusTooManyRequests, Error: fmt.Sprintf("the daemon is saturated: %d requests in flight and %d waiting, its limits; of those waiting this connection's sent the most events", h.limits.MaxInFlight, h.limits.MaxQueued),
		Hint: "nothing of this request was recorded; retry after a moment"}
	if !errors.Is(err, errShed) {
		e.Error = fmt.Sprintf("no slot within %s, the daemon's time for a request (%d requests in flight, its limit)", h.limits.Timeout, h.limits.MaxInFlight)
	}
	writeError(w, e)
	return false
}

// readBody reads a body of at most MaxBody bytes within ReadTimeout, within
// the bound on bodies in flight; on failure it has answered. done releases
// the body's bytes.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (b []byte, done func(), ok bool) {
	// A body that trickles in ends with the read time. (A writer that is
	// not a connection's, as in tests, has no deadline.)
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.limits.ReadTimeout))
	br, done := h.bodies.reader(http.MaxBytesReader(w, r.Body, h.limits.MaxBody))
	b, err := io.ReadAll(br)
	if err == nil {
		return b, done, true
	}
	done()
	var mb *http.MaxBytesError
	var ne net.Error
	var eb *errBodies
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		writeError(w, apiError{Status: http.StatusRequestTimeout, Error: fmt.Sprintf("the request body did not arrive within %s, the daemon's time for a body", h.limits.ReadTimeout)})
	case errors.As(err, &mb):
		writeError(w, apiError{Status: http.StatusRequestEntityTooLarge, Error: fmt.Sprintf("request body over %d bytes, the daemon's limit", mb.Limit),
			Hint: "split the batch into smaller ones"})
	case errors.As(err, &eb):
		w.Header().Set("Retry-After", "1")
		writeError(w, apiError{Status: http.StatusServiceUnavailable, Error: eb.Error(), Hint: "nothing of this request was recorded; retry after a moment"})
	default:
		writeError(w, apiError{Status: http.StatusBadRequest, Error: "reading the request body: " + err.Error()})
	}
	return nil, nil, false
}

func (h *Handler) postEvent(w http.ResponseWriter, r *http.Request) {
	body, done, ok := h.readBody(w, r)
	if !ok {
		return
	}
	defer done()
	ev, err := ParseEvent(body)
	if err == nil {
		err = h.check(&ev, -1)
	}
	if err != nil {
		badEvent(w, err)
		return
	}
	rcs, ok := h.record(w, r.Context(), []format.Event{ev})
	if ok {
		writeJSON(w, http.StatusOK, rcs[0])
	}
}

// batchReceipts is the body of a recorded batch.
type batchReceipts struct {
	Receipts []recorder.Receipt `json:"receipts"`
}

func (h *Handler) postBatch(w http.ResponseWriter, r *http.Request) {
	body, done, ok := h.readBody(w, r)
	if !ok {
		return
	}
	defer done()
	evs, err := ParseBatch(body)
	for i := 0; err == nil && i < len(evs); i++ {
		err = h.check(&evs[i], i)
	}
	if err != nil {
		badEvent(w, err)
		return
	}
	if rcs, ok := h.record(w, r.Context(), evs); ok {
		writeJSON(w, http.StatusOK, batchReceipts{rcs})
	}
}

// badEvent answers 400 for an event refused before anything was appended.
func badEvent(w http.ResponseWriter, err error) {
	e := apiError{Status: http.StatusBadRequest, Error: err.Error(),
		Hint: "nothing of this request was recorded; fix the event (docs/SPEC.md, \"Event JSON\") and send the request again"}
	var ee *EventError
	if errors.As(err, &ee) {
		e.Error = ee.Err.Error()
		if ee.Item >= 0 {
			e.Item, e.Line = &ee.Item, ee.Line
		}
	}
	writeError(w, e)
}

// check refuses, before anything is appended, an event the recorder would
// refuse: its payload and its record are encoded as the recorder encodes
// them, the record with the largest sequence number, clock and time, so
// that no later append fails on a limit.
func (h *Handler) check(ev *format.Event, item int) error {
	var buf bytes.Buffer
	err := format.EncodePayloadTo(&buf, &ev.Payload)
	if err == nil {
		m := h.rec.Manifest()
		buf.Reset()
		err = format.EncodeEnvelopeTo(&buf, &format.Envelope{Version: uint8(m.Version), Recorder: m.Recorder, Session: m.Session,
			Seq: math.MaxUint64, Clock: math.MaxUint64, Time: math.MaxInt64, Group: ev.Group, Tool: ev.Tool, Kind: ev.Kind})
	}
	if err != nil {
		return &EventError{Item: item, Err: err}
	}
	return nil
}

// appendOnly is the context of an append that does not wait for
// durability: its wait ends at once (the event is still recorded, as
// recorder.Record documents).
var appendOnly = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// record appends evs in order, once admitted, and answers any failure
// itself. Receipts are given for durable events only.
func (h *Handler) record(w http.ResponseWriter, ctx context.Context, evs []format.Event) ([]recorder.Receipt, bool) {
	if err := h.rec.Err(); err != nil {
		writeError(w, unavailable(err, nil))
		return nil, false
	}
	if h.window != nil && !h.limits.MaxWindow.IsZero() {
		if err := h.limits.MaxWindow.Check(h.window()); err != nil {
			w.Header().Set("Retry-After", "1")
			writeError(w, apiError{Status: http.StatusServiceUnavailable, Error: err.Error(),
				Hint: "nothing of this request was recorded; retry after a moment: appends resume once anchors are confirmed (GET /v1/status shows the window)"})
			return nil, false
		}
	}
	ctx, cancel := context.WithTimeout(ctx, h.limits.Timeout)
	defer cancel()
	if !h.admit(w, ctx, len(evs)) {
		return nil, false
	}
	defer h.sched.release()
	rcs := make([]recorder.Receipt, 0, len(evs))
	var failed error // the append that failed, if any
	var item int
	for i, ev := range evs {
		// Each event is appended without waiting; one wait covers them
		// all, since events become durable in order: a batch waits for one
		// group commit, not one per event.
		rc, err := h.rec.Record(appendOnly, ev)
		if err != nil && !errors.Is(err, context.Canceled) {
			failed, item = err, i
			break
		}
		rcs = append(rcs, rc)
	}
	if len(rcs) > 0 && !isWriteFailure(failed) {
		err := h.rec.WaitDurable(ctx, rcs[len(rcs)-1].Seq)
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			// The events are appended; only the wait for durability ended.
			writeError(w, apiError{Status: http.StatusGatewayTimeout, Pending: rcs,
				Error: fmt.Sprintf("not durable within the request's time (%s): %v; the %d events were appended (listed in pending) and become durable unless the recorder fails first", h.limits.Timeout, err, len(rcs)),
				Hint:  "do not send these events again while the daemon runs; GET /v1/status shows position.durable passing their seq (if the recorder fails first, they are removed from the log: send them again once the daemon is restarted)"})
			return nil, false
		default:
			failed = err
		}
	}
	switch {
	case failed == nil:
		return rcs, true
	case isWriteFailure(failed):
		writeError(w, unavailable(failed, durableOnly(failed, rcs)))
	default:
		// Refused by the recorder before anything of it was written (a
		// causal link past its bound): the recorder goes on, and the events
		// before it are durable.
		e := apiError{Status: http.StatusBadRequest, Error: failed.Error(), Recorded: len(rcs), Receipts: rcs,
			Hint: "the events before it were recorded (receipts given); this one and any after it were not"}
		if len(evs) > 1 {
			e.Item = &item
		}
		writeError(w, e)
	}
	return nil, false
}

// isWriteFailure tells a failure of the recorder (sticky) from an event it
// refused (format.ErrLimit, format.ErrInvalidPayload: nothing written).
func isWriteFailure(err error) bool {
	return err != nil && !errors.Is(err, format.ErrLimit) && !errors.Is(err, format.ErrInvalidPayload)
}

// durableOnly keeps the receipts of events that were durable when the
// recorder failed with err: the others were removed from the log.
func durableOnly(err error, rcs []recorder.Receipt) []recorder.Receipt {
	var we *recorder.WriteError
	if !errors.As(err, &we) {
		return nil
	}
	n := 0
	for n < len(rcs) && rcs[n].Seq < we.Durable {
		n++
	}
	return rcs[:n]
}

func unavailable(err error, rcs []recorder.Receipt) apiError {
	hint := "the recorder failed and accepts nothing more; stop the daemon and start it again (reopening the log repairs its tail); events with receipts are durable, and the request's other events are not in the log: send them again once the daemon is back"
	var we *recorder.WriteError
	if errors.As(err, &we) && we.Rollback != nil {
		hint = "the recorder failed and accepts nothing more, and could not remove the events it had not made durable: events with receipts are durable; whether the others are in the log shows once the daemon is restarted (GET /v1/status, afr query)"
	}
	return apiError{Status: http.StatusServiceUnavailable, Error: err.Error(), Recorded: len(rcs), Receipts: rcs, Hint: hint}
}

// Status is the body of GET /v1/status.
type Status struct {
	Dir       string                 `json:"dir"`
	Recorder  string                 `json:"recorder"`
	Session   format.SessionID       `json:"session"`
	LogID     format.Digest          `json:"log_id"`
	Encrypted bool                   `json:"encrypted"`
	Position  recorder.Position      `json:"position"`
	Epochs    uint64                 `json:"sealed_epochs"`
	Anchoring *recorder.AnchorWindow `json:"anchoring,omitempty"`
	Replica   *replica.Status        `json:"replica,omitempty"`
	Failed    string                 `json:"failed,omitempty"`
	Load      Load                   `json:"load"`
}

// Load is what the daemon holds now against its Limits.
type Load struct {
	Connections int   `json:"connections"` // open (0 for a handler not served by Start)
	InFlight    int   `json:"in_flight"`   // appends and proofs admitted
	Queued      int   `json:"queued"`      // waiting for a slot
	Bodies      int   `json:"bodies"`      // request bodies being read
	BodyBytes   int64 `json:"body_bytes"`  // bytes of request bodies held
	// Shed counts the requests refused for load since the start (429s of
	// the queue, and its timeouts).
	Shed uint64 `json:"shed"`
}

func (h *Handler) load() Load {
	var l Load
	if h.conns != nil {
		l.Connections = h.conns.count()
	}
	h.sched.mu.Lock()
	l.InFlight, l.Queued, l.Shed = h.limits.MaxInFlight-h.sched.free, len(h.sched.waiting), h.sched.shed
	h.sched.mu.Unlock()
	h.bodies.mu.Lock()
	l.Bodies, l.BodyBytes = h.bodies.reading, h.bodies.used
	h.bodies.mu.Unlock()
	return l
}

func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	m := h.rec.Manifest()
	p := h.rec.Position()
	st := Status{Dir: h.dir, Recorder: m.Recorder, Session: m.Session, LogID: format.LogID(m.Recorder, m.Session), Encrypted: m.Encrypted,
		Position: p, Epochs: p.OpenEpoch, Load: h.load()}
	if h.window != nil {
		win := h.window()
		st.Anchoring = &win
	}
	if h.replica != nil {
		rs := h.replica()
		st.Replica = &rs
	}
	if err := h.rec.Check(); err != nil {
		st.Failed = err.Error()
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) proof(w http.ResponseWriter, r *http.Request) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil {
		writeError(w, apiError{Status: http.StatusBadRequest, Error: fmt.Sprintf("%q is not a sequence number", r.PathValue("seq"))})
		return
	}
	p := h.rec.Position()
	if seq >= p.Next {
		writeError(w, apiError{Status: http.StatusNotFound, Error: fmt.Sprintf("no event %d: the log holds events 0..%d", seq, int64(p.Next)-1)})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.limits.Timeout)
	defer cancel()
	if !h.admit(w, ctx, 1) {
		return
	}
	defer h.sched.release()
	l, err := recorder.OpenLog(h.dir)
	var sealed uint64
	if err == nil {
		sealed, err = sealedOnDisk(l)
	}
	if err == nil && seq >= sealed {
		e := apiError{Status: http.StatusConflict, Error: fmt.Sprintf("event %d is in the open epoch %d, which has no root yet", seq, p.OpenEpoch),
			Hint: "ask again once the epoch is sealed (by its size or age, or when the daemon stops)"}
		if seq < p.Next-p.OpenEvents {
			e.Error = fmt.Sprintf("event %d is in a sealed epoch whose header is not written yet", seq)
			e.Hint = "ask again in a moment (with the sync policy none it is written when the daemon stops)"
		}
		writeError(w, e)
		return
	}
	if err == nil {
		var pr Proof
		if pr, err = Prove(l, seq); err == nil {
			writeJSON(w, http.StatusOK, pr)
			return
		}
	}
	writeError(w, apiError{Status: http.StatusInternalServerError, Error: err.Error(), Hint: "verifying the log explains a damaged log"})
}
