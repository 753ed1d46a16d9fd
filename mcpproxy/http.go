package mcpproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Headers relayed between the client and the upstream server in the
// streamable-HTTP mode; others (cookies, hop-by-hop headers) are not.
var (
	requestHeaders  = []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Accept", "Content-Type", "Last-Event-Id", "Authorization"}
	responseHeaders = []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Content-Type", "Cache-Control", "Www-Authenticate"}
	// singleHeaders take one value: the proxy reads the first, a peer may
	// read another or all of them joined ("A, B"), so a request repeating
	// one is refused, and of an answer only the value read is relayed.
	singleHeaders = []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id", "Authorization", "Content-Type"}
)

// HTTP is the streamable-HTTP mode of the proxy (MCP's "Streamable HTTP"
// transport): an http.Handler that relays every request to the upstream
// server's endpoint and every JSON-RPC message through a Proxy, one per
// MCP session (by Mcp-Session-Id), so that HTTP and stdio record alike.
//
// A POST carries one message from the client: it is recorded (a
// tools/call's intent) before it is forwarded, and the upstream's answer,
// application/json or a text/event-stream, is relayed event by event,
// each JSON-RPC response recorded before it is forwarded (Options.AwaitOutcome). A GET
// (the server's own event stream, or a resumption with Last-Event-ID)
// is relayed the same way; a DELETE ends the session. A tools/call whose
// upstream request fails, whose answer is over Options.MaxMessage, or
// whose event stream breaks, or ends without an event id to resume it,
// before the answer is recorded with outcome upstream_failed and answered
// with error CodeServerGone; one the upstream refuses with an HTTP error
// is recorded so too and the HTTP status relayed.
type HTTP struct {
	upstream string
	opts     Options
	client   *http.Client

	mu        sync.Mutex
	sessions  map[string]*Proxy
	tentative map[string]bool // sessions first seen in a request, until the server answers one with 2xx
	stateless *Proxy          // requests without a session id, to an upstream that gives none
}

// NewHTTP returns the streamable-HTTP proxy in front of the upstream
// endpoint URL (http or https), recording with opts.
func NewHTTP(upstream string, opts Options) (*HTTP, error) {
	if err := CheckUpstream(upstream); err != nil {
		return nil, err
	}
	u, _ := url.Parse(upstream)
	return &HTTP{upstream: u.String(), opts: opts.withDefaults(), client: &http.Client{}, sessions: map[string]*Proxy{}, tentative: map[string]bool{}}, nil
}

// CheckUpstream says whether upstream is an http or https URL with a host.
func CheckUpstream(upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("upstream %q is not an http:// or https:// URL of an MCP server's endpoint (such as http://127.0.0.1:3001/mcp)", upstream)
	}
	return nil
}

func (h *HTTP) logf(format string, args ...any) {
	fmt.Fprintf(h.opts.Log, "afr mcp-proxy: "+format+"\n", args...)
}

// session returns the recording core of the session a request names.
// A request without a session id gets a fresh one if it is an
// initialize (registered under the id the upstream's answer gives),
// and otherwise the one shared by requests without a session id.
func (h *HTTP) session(id string, initialize bool) *Proxy {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id != "" {
		p := h.sessions[id]
		if p == nil { // a session the proxy has not seen begin (it restarted)
			p = New(h.opts)
			h.sessions[id] = p
			h.tentative[id] = true
		}
		return p
	}
	if initialize {
		return New(h.opts)
	}
	if h.stateless == nil {
		h.stateless = New(h.opts)
	}
	return h.stateless
}

// registered keeps p as the session the upstream's answer named.
func (h *HTTP) registered(p *Proxy, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id == "" {
		if h.stateless == nil {
			h.stateless = p
		}
		return
	}
	if h.sessions[id] == nil {
		h.sessions[id] = p
	}
}

// answered notes the status the server gave a request of session id: a
// session first seen in a request (made up by a client, or from before a
// restart) is kept once the server answers it with 2xx, and forgotten if
// it refuses, so that invented session ids cannot grow the proxy's map.
func (h *HTTP) answered(ctx context.Context, id string, status int) {
	h.mu.Lock()
	tentative := h.tentative[id]
	if status/100 == 2 {
		delete(h.tentative, id)
	}
	h.mu.Unlock()
	if tentative && status/100 != 2 {
		h.ended(ctx, id, "abandoned: the server refused a session the proxy had not seen begin")
	}
}

// ended forgets a session, recording its calls still in flight.
func (h *HTTP) ended(ctx context.Context, id, reason string) {
	h.mu.Lock()
	p := h.sessions[id]
	delete(h.sessions, id)
	delete(h.tentative, id)
	h.mu.Unlock()
	if p != nil {
		p.Abandon(ctx, "abandoned", reason)
	}
}

// Close records the calls of every session still in flight as abandoned
// (the proxy is stopping; their outcome is unknown).
func (h *HTTP) Close(ctx context.Context) {
	h.mu.Lock()
	ps := make([]*Proxy, 0, len(h.sessions)+1)
	for _, p := range h.sessions {
		ps = append(ps, p)
	}
	if h.stateless != nil {
		ps = append(ps, h.stateless)
	}
	h.sessions, h.tentative, h.stateless = map[string]*Proxy{}, map[string]bool{}, nil
	h.mu.Unlock()
	for _, p := range ps {
		p.Abandon(ctx, "abandoned", "abandoned: the proxy stopped before the server answered; the outcome is unknown")
	}
}

func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := loopback.Check(r); err != nil {
		// A page in a browser must not reach the proxy (DNS rebinding, cross-origin requests).
		http.Error(w, "afr mcp-proxy: "+err.Error(), http.StatusForbidden)
		return
	}
	for _, k := range singleHeaders {
		if len(r.Header.Values(k)) > 1 {
			http.Error(w, "afr mcp-proxy: the request has more than one "+k+" header, which takes one value; it was not relayed", http.StatusBadRequest)
			return
		}
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet, http.MethodDelete:
		h.relay(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "afr mcp-proxy: method "+r.Method+" is not part of MCP's streamable HTTP transport (POST, GET or DELETE)", http.StatusMethodNotAllowed)
	}
}

// post relays one JSON-RPC message from the client.
func (h *HTTP) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.opts.MaxMessage)))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			// Recorded, by the digest of the part read, in no session: the
			// body's session id and request id are not read.
			reply := New(h.opts).tooLarge(context.WithoutCancel(r.Context()), "mcp:client", body, 0)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write(reply)
			return
		}
		http.Error(w, "afr mcp-proxy: reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var id jsonrpc.ID
	isCall, initialize := false, false
	if msg, err := decode(body); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			id, isCall, initialize = req.ID, true, req.Method == "initialize"
		}
	}
	p := h.session(r.Header.Get("Mcp-Session-Id"), initialize)
	// The recording outlives a client that leaves mid-call (in streamable
	// HTTP a disconnection is not a cancellation: the answer is recorded).
	rctx := context.WithoutCancel(r.Context())
	forward, reply := p.FromClient(rctx, body)
	if forward == nil {
		status := http.StatusOK
		if !isCall {
			status = http.StatusBadRequest // the message itself is at fault (a parse error)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(reply)
		return
	}
	failed := func(err error) {
		h.logf("relaying %s to %s: %v", r.Method, h.upstream, err)
		if !isCall {
			http.Error(w, "afr mcp-proxy: the MCP server at "+h.upstream+" did not answer: "+err.Error(), http.StatusBadGateway)
			return
		}
		p.AbandonCall(rctx, id, "upstream_failed", "the MCP server did not answer: "+err.Error())
		w.Header().Set("Content-Type", "application/json")
		w.Write(errorFrame(id, CodeServerGone, "afr mcp-proxy: the MCP server at "+h.upstream+" did not answer: "+err.Error()))
	}
	h.relayTo(w, r, rctx, forward, p, id, isCall, initialize, failed)
}

// relay passes a GET (an event stream) or DELETE on to the upstream.
func (h *HTTP) relay(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	p := h.session(sid, false)
	failed := func(err error) {
		h.logf("relaying %s to %s: %v", r.Method, h.upstream, err)
		http.Error(w, "afr mcp-proxy: the MCP server at "+h.upstream+" did not answer: "+err.Error(), http.StatusBadGateway)
	}
	// A GET's stream lasts as long as the client keeps it open.
	h.relayTo(w, r, r.Context(), nil, p, jsonrpc.ID{}, false, false, failed)
	if r.Method == http.MethodDelete && sid != "" {
		h.ended(context.WithoutCancel(r.Context()), sid, "abandoned: the client ended the session before the server answered; the outcome is unknown")
	}
}

// relayTo sends the request to the upstream and relays its answer: an
// event stream event by event, other bodies whole, every JSON-RPC message
// through p.FromServer.
func (h *HTTP) relayTo(w http.ResponseWriter, r *http.Request, ctx context.Context, body []byte, p *Proxy, id jsonrpc.ID, isCall, initialize bool, failed func(error)) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	up, err := http.NewRequestWithContext(ctx, r.Method, h.upstream, rd)
	if err != nil {
		failed(err)
		return
	}
	for _, k := range requestHeaders {
		for _, v := range r.Header.Values(k) {
			up.Header.Add(k, v)
		}
	}
	if body != nil {
		// The body is what the proxy re-encoded: UTF-8 JSON, whatever
		// charset the client's header named (a server decoding it in
		// another charset would read other names and values).
		up.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.client.Do(up)
	if err != nil {
		failed(err)
		return
	}
	defer resp.Body.Close()
	if initialize && resp.StatusCode/100 == 2 {
		h.registered(p, resp.Header.Get("Mcp-Session-Id"))
	}
	if resp.StatusCode == http.StatusNotFound && r.Header.Get("Mcp-Session-Id") != "" {
		h.ended(ctx, r.Header.Get("Mcp-Session-Id"), "abandoned: the server no longer knows the session; the outcome is unknown")
	}
	if resp.StatusCode/100 != 2 && isCall {
		// The server refused the request (an expired session, bad headers):
		// its answer is relayed and the call recorded as failed.
		p.AbandonCall(ctx, id, "upstream_failed", "the MCP server answered HTTP "+resp.Status)
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		h.answered(ctx, sid, resp.StatusCode)
	}
	mediaType := ""
	if cts := resp.Header.Values("Content-Type"); len(cts) == 1 {
		mediaType, _, _ = mime.ParseMediaType(cts[0])
	}
	// An HTTP error, 202 Accepted and a DELETE's answer carry no JSON-RPC
	// message: their status is relayed, their body (unread) is not.
	message := resp.StatusCode/100 == 2 && resp.StatusCode != http.StatusAccepted && r.Method != http.MethodDelete
	if message && mediaType != "application/json" && mediaType != "text/event-stream" {
		// Neither a message nor a stream the proxy reads: a client that
		// reads it all the same would act on an answer the log never saw.
		failed(fmt.Errorf("its answer is %q, neither application/json nor text/event-stream", resp.Header.Values("Content-Type")))
		return
	}
	if message && mediaType == "application/json" {
		msg, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.opts.MaxMessage)+1))
		if err != nil {
			failed(err)
			return
		}
		if len(msg) > h.opts.MaxMessage {
			p.tooLarge(ctx, "mcp:server", msg[:h.opts.MaxMessage], 0)
			failed(fmt.Errorf("its answer is larger than the limit of %d bytes", h.opts.MaxMessage))
			return
		}
		forward := p.FromServer(ctx, msg)
		if forward == nil {
			failed(errors.New("its answer is not a JSON-RPC message"))
			return
		}
		copyHeaders(w.Header(), resp.Header)
		w.Header().Del("Content-Length")
		w.Header().Set("Content-Type", "application/json") // what the proxy re-encoded, in UTF-8
		w.WriteHeader(resp.StatusCode)
		w.Write(forward)
		return
	}
	copyHeaders(w.Header(), resp.Header)
	if !message {
		w.Header().Del("Content-Type")
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream") // re-serialised by the proxy, in UTF-8
	w.WriteHeader(resp.StatusCode)
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	flush()
	lastID := "" // the client's last event id: "" when it cannot resume the stream
	err = readEvents(resp.Body, h.opts.MaxMessage, func(ev *sseEvent) {
		if ev.Invalid != nil {
			h.logf("an event whose lines are not UTF-8 from the server, not forwarded")
			p.refusedFrom(ctx, "mcp:server", ev.Invalid, jsonrpc.ID{}, "", "an event with a line that is not UTF-8")
			return
		}
		if ev.HasID {
			lastID = ev.ID
		}
		var data []byte
		if ev.HasData && len(strictjson.TrimSpace(ev.Data)) > 0 { // an empty one (a priming event's) carries no message
			if !ev.message() {
				why := fmt.Sprintf("an event of type %q, not a message of MCP", ev.Type)
				h.logf("%s from the server, not forwarded", why)
				p.refusedFrom(ctx, "mcp:server", ev.Data, jsonrpc.ID{}, "", why)
				return
			}
			if data = p.FromServer(ctx, ev.Data); data == nil {
				return // not one JSON-RPC message: dropped and recorded, as in stdio mode
			}
		}
		event := appendEvent(nil, ev, data)
		if event == nil {
			return
		}
		if _, err := w.Write(event); err != nil {
			return // the client left; the stream is still read and recorded
		}
		flush()
	})
	var tooBig *eventTooLargeError
	if errors.As(err, &tooBig) {
		p.tooLarge(ctx, "mcp:server", tooBig.Head, 0)
	}
	why := ""
	switch {
	case err != nil:
		why = "the MCP server's event stream broke before the answer: " + err.Error()
	case lastID == "":
		// Without an event id the client cannot resume the stream (with
		// one, it resumes with a GET, and the answer is recorded there).
		why = "the MCP server's event stream ended before the answer"
	}
	if why != "" && isCall && p.AbandonCall(ctx, id, "upstream_failed", why) {
		h.logf("request %v: %s", id.Raw(), why)
		w.Write(appendEvent(nil, &sseEvent{}, errorFrame(id, CodeServerGone, "afr mcp-proxy: "+why)))
		flush()
	}
}

func copyHeaders(dst, src http.Header) {
	for _, k := range responseHeaders {
		vs := src.Values(k)
		if len(vs) > 1 && slices.Contains(singleHeaders, k) {
			vs = vs[:1] // the value the proxy read (a session id: the session it files calls under)
		}
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}
