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
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/recorder"
)

// Limits of the HTTP API; zero values give the defaults.
type Limits struct {
	// MaxBody is the largest request body in bytes (default 1 MiB); a
	// larger one gets 413.
	MaxBody int64
	// MaxInFlight bounds the requests served at once (default 64); past it
	// a request gets 429 at once.
	MaxInFlight int
	// Timeout bounds each request, including the wait for durability
	// (default 30s).
	Timeout time.Duration
	// MaxWindow, with an in-process anchorer, bounds the unanchored window:
	// while it has reached a bound, appends get 503 with Retry-After and
	// nothing of them is recorded (zero: no bound).
	MaxWindow recorder.WindowLimit
}

func (l *Limits) setDefaults() {
	if l.MaxBody <= 0 {
		l.MaxBody = 1 << 20
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = 64
	}
	if l.Timeout <= 0 {
		l.Timeout = 30 * time.Second
	}
}

// Handler serves the HTTP API of one recorder (docs/SERVE.md). It never
// closes the recorder.
type Handler struct {
	rec    *recorder.Recorder
	dir    string
	token  string
	limits Limits
	slots  chan struct{}
	mux    *http.ServeMux
	// window, when set, reports the anchoring window for /v1/status.
	window func() recorder.AnchorWindow

	mu     sync.Mutex
	failed error // the recorder's first write failure: sticky, as in the recorder
}

// NewHandler returns the API of rec, whose log is in dir, for requests
// bearing token. window, when not nil, reports the unanchored window of an
// in-process anchorer.
func NewHandler(rec *recorder.Recorder, dir, token string, limits Limits, window func() recorder.AnchorWindow) *Handler {
	limits.setDefaults()
	h := &Handler{rec: rec, dir: dir, token: token, limits: limits, slots: make(chan struct{}, limits.MaxInFlight), window: window, mux: http.NewServeMux()}
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
	// Recorded counts the request's events that were appended anyway
	// (a timed-out wait for durability); Receipts are theirs.
	Recorded int                `json:"recorded"`
	Receipts []recorder.Receipt `json:"receipts,omitempty"`
	Hint     string             `json:"hint,omitempty"`
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
// bearer token and the in-flight bound, then routes.
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
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, apiError{Status: http.StatusTooManyRequests, Error: fmt.Sprintf("%d requests in flight, the daemon's limit", h.limits.MaxInFlight),
			Hint: "retry after a moment, or send events in batches (POST /v1/events:batch)"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.limits.Timeout)
	defer cancel()
	h.mux.ServeHTTP(w, r.WithContext(ctx))
}

// readBody reads a body of at most MaxBody bytes; on failure it has
// answered.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if dl, ok := r.Context().Deadline(); ok {
		// A body that trickles in ends with the request's time. (A writer
		// that is not a connection's, as in tests, has no deadline.)
		http.NewResponseController(w).SetReadDeadline(dl)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.limits.MaxBody))
	if err != nil {
		var mb *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			writeError(w, apiError{Status: http.StatusRequestTimeout, Error: fmt.Sprintf("the request body did not arrive within %s, the daemon's time for a request", h.limits.Timeout)})
		case errors.As(err, &mb):
			writeError(w, apiError{Status: http.StatusRequestEntityTooLarge, Error: fmt.Sprintf("request body over %d bytes, the daemon's limit", mb.Limit),
				Hint: "split the batch into smaller ones"})
		default:
			writeError(w, apiError{Status: http.StatusBadRequest, Error: "reading the request body: " + err.Error()})
		}
		return nil, false
	}
	return b, true
}

func (h *Handler) postEvent(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
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
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
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

// appendOnly is the context of every event of a batch but its last: its
// wait for durability ends at once (the event is still recorded, as
// recorder.Record documents), and the wait for the last event covers them
// all, since events become durable in order. A batch thus waits for one
// group commit, not one per event.
var appendOnly = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// record appends evs in order and answers any failure itself.
func (h *Handler) record(w http.ResponseWriter, ctx context.Context, evs []format.Event) ([]recorder.Receipt, bool) {
	if err := h.failure(); err != nil {
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
	rcs := make([]recorder.Receipt, 0, len(evs))
	for i, ev := range evs {
		last := i == len(evs)-1
		wait := ctx
		if !last {
			wait = appendOnly
		}
		rc, err := h.rec.Record(wait, ev)
		switch {
		case err == nil, !last && errors.Is(err, context.Canceled):
			rcs = append(rcs, rc)
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			// The events are appended; only the wait for durability ended.
			rcs = append(rcs, rc)
			writeError(w, apiError{Status: http.StatusGatewayTimeout, Recorded: len(rcs), Receipts: rcs,
				Error: fmt.Sprintf("not durable within the request's time (%s): %v; the %d events were appended (receipts given) and become durable unless the daemon fails", h.limits.Timeout, err, len(rcs)),
				Hint:  "do not send these events again; GET /v1/status shows position.durable passing their seq"})
			return nil, false
		case errors.Is(err, format.ErrLimit), errors.Is(err, format.ErrInvalidPayload):
			// Refused by the recorder before anything of it was written
			// (the logical clock at its limit): the recorder goes on.
			e := apiError{Status: http.StatusBadRequest, Error: err.Error(), Recorded: len(rcs), Receipts: rcs,
				Hint: "the events before it were recorded (receipts given); this one and any after it were not"}
			if len(evs) > 1 {
				e.Item = &i
			}
			writeError(w, e)
			return nil, false
		default:
			h.mu.Lock()
			if h.failed == nil {
				h.failed = err
			}
			h.mu.Unlock()
			writeError(w, unavailable(err, rcs))
			return nil, false
		}
	}
	return rcs, true
}

// failure is the recorder's sticky write failure, if any.
func (h *Handler) failure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

func unavailable(err error, rcs []recorder.Receipt) apiError {
	return apiError{Status: http.StatusServiceUnavailable, Error: err.Error(), Recorded: len(rcs), Receipts: rcs,
		Hint: "the recorder failed and accepts nothing more; stop the daemon and start it again (reopening the log repairs its tail); events with receipts are recorded"}
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
	Failed    string                 `json:"failed,omitempty"`
}

func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	m := h.rec.Manifest()
	p := h.rec.Position()
	st := Status{Dir: h.dir, Recorder: m.Recorder, Session: m.Session, LogID: format.LogID(m.Recorder, m.Session), Encrypted: m.Encrypted,
		Position: p, Epochs: p.OpenEpoch}
	if h.window != nil {
		win := h.window()
		st.Anchoring = &win
	}
	if err := h.failure(); err != nil {
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
