package mcpproxy

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
)

// DefaultMaxOutput is how many bytes of a tool's output text are kept in
// the log by default; longer output is kept as its digest only.
const DefaultMaxOutput = 64 << 10

// DefaultMaxMessage bounds one JSON-RPC message by default, in either
// direction: a stdio frame, an HTTP body, an event of an event stream.
const DefaultMaxMessage = 16 << 20

// Error codes of the responses the proxy itself sends (JSON-RPC
// implementation-defined server errors).
const (
	CodeDenied         = -32001 // the policy denied the call
	CodeApproval       = -32002 // the policy requires approval
	CodeNotRecorded    = -32003 // the call could not be recorded, so it was not forwarded
	CodeServerGone     = -32004 // the server exited before answering
	CodeTooLarge       = -32005 // a message larger than Options.MaxMessage, not read
	CodeRefusedAnswer  = -32006 // the server's answer could not be read, so it was not forwarded
	CodeMalformedFrame = jsonrpc.CodeParseError
)

// Ext keys of the events the proxy records (docs/MCP.md).
const (
	ExtMethod    = "mcp.method"     // initialize, tools/list, tools/call
	ExtRequestID = "mcp.request_id" // the JSON-RPC id of the client's request
	ExtServer    = "mcp.server"     // {name, version, protocol_version}
	ExtTools     = "mcp.tools"      // the tool names of a tools/list answer
	ExtIsError   = "mcp.is_error"   // the tool reported an error (isError)
	ExtOutcome   = "mcp.outcome"    // ok, tool_error, rpc_error, denied, cancelled, server_exited, upstream_failed, abandoned, refused
	ExtLate      = "mcp.late"       // the answer came after the client cancelled the call
	ExtError     = "mcp.error"      // why a frame was refused
)

// GCPercent is the garbage collector's target (debug.SetGCPercent) that
// afr mcp-proxy runs with unless GOGC is set. The proxy's live heap is a
// few megabytes, and each large frame it relays leaves a dozen copies of
// itself behind (read, checked, decoded by the SDK, compacted, encoded):
// at Go's default of 100, a 1 MiB answer set off several collections per
// call, a third of the time it added (docs/PERFORMANCE.md, "MCP proxy").
// The heap may grow to five times the live data between collections.
const GCPercent = 400

// Options configure a Proxy.
type Options struct {
	// Recorder receives the events. Its sync policy decides what
	// "durable" means before a request is forwarded.
	Recorder recorder.EventWriter
	// AwaitOutcome forwards a tools/call's answer only once its execution
	// event is durable. Without it, a recorder that can append without
	// waiting (a *recorder.Recorder) has the execution appended, in order,
	// before the answer is forwarded, and made durable by the group commit
	// that follows (the next call's intent waits for it): a crash in
	// between can leave the last calls' intents without their outcomes,
	// never a call forwarded without its intent.
	AwaitOutcome bool
	// Policy, when set, gates every tools/call.
	Policy *Policy
	// ApproveAll approves every call the policy asks approval for (tests).
	ApproveAll bool
	// Log receives diagnostics (malformed frames, late responses).
	Log io.Writer
	// MaxOutput bounds the output text kept per call (default
	// DefaultMaxOutput); longer output is kept as its digest.
	MaxOutput int
	// MaxMessage bounds one JSON-RPC message in either direction
	// (default DefaultMaxMessage): a longer one is not read, but refused
	// and recorded.
	MaxMessage int
}

// appender is a recorder that can append an event without waiting for
// its durability (recorder.Recorder.Append).
type appender interface {
	Append(format.Event) (recorder.Receipt, error)
}

// Proxy is the recording core of one MCP session, whatever the transport:
// it sees every frame in each direction and says what to forward.
type Proxy struct {
	opts Options

	mu        sync.Mutex
	pending   map[jsonrpc.ID]*call // client requests awaiting the server's answer (and cancelled calls)
	contextSq []uint64             // the latest initialize / tools/list observation
	server    string               // name@version, from initialize
}

// call is a client request the proxy watches for its answer.
type call struct {
	method  string
	tool    string
	args    map[string]any
	intent  uint64   // seq of the intent event (tools/call)
	parents []uint64 // intent and policy events
	start   time.Time
	// cancelled is the seq of the execution recorded when the client
	// cancelled the call (0: not cancelled); a late answer names it.
	cancelled uint64
}

// New returns a proxy recording into opts.Recorder.
func New(opts Options) *Proxy {
	return &Proxy{opts: opts.withDefaults(), pending: map[jsonrpc.ID]*call{}}
}

func (o Options) withDefaults() Options {
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

func (p *Proxy) logf(format string, args ...any) {
	fmt.Fprintf(p.opts.Log, "afr mcp-proxy: "+format+"\n", args...)
}

// FromClient handles one frame from the client. It returns the frame to
// forward to the server (nil: none), which is the message re-encoded from
// what the proxy read and recorded, never the client's bytes, and
// otherwise the frame to answer the client with (nil: none). A frame is
// refused, and the refusal recorded, when it is not one JSON-RPC message
// read strictly (see decode), when a call reuses the id of one in flight,
// or when a tools/call or a cancellation has params the proxy cannot read.
func (p *Proxy) FromClient(ctx context.Context, frame []byte) (forward, reply []byte) {
	msg, err := decode(frame)
	if err != nil {
		p.logf("malformed frame from the client, not forwarded: %v", err)
		p.refused(ctx, frame, jsonrpc.ID{}, "", "malformed JSON-RPC frame: "+err.Error())
		return nil, errorFrame(jsonrpc.ID{}, CodeMalformedFrame, "afr mcp-proxy: malformed JSON-RPC frame: "+err.Error())
	}
	req, ok := msg.(*jsonrpc.Request)
	if ok && !req.IsCall() && req.Method == "tools/call" {
		// A call without an id would pass unrecorded (there is no answer to pair).
		p.logf("a tools/call without an id, not forwarded")
		p.refused(ctx, frame, jsonrpc.ID{}, req.Method, "a tools/call without an id")
		return nil, errorFrame(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "afr mcp-proxy: a tools/call needs an id")
	}
	if !ok || !req.IsCall() {
		if ok && req.Method == "notifications/cancelled" {
			if req, err = p.cancelled(ctx, req); err != nil {
				p.logf("%v, not forwarded", err)
				p.refused(ctx, frame, jsonrpc.ID{}, "notifications/cancelled", err.Error())
				return nil, nil // a notification has no answer
			}
		}
		return encode(msg), nil
	}
	// Every request's id is in flight until its answer: a second request
	// with the id, of any method, would take the first one's answer.
	p.mu.Lock()
	_, reused := p.pending[req.ID]
	if !reused && req.Method != "tools/call" {
		p.pending[req.ID] = &call{method: req.Method, start: time.Now()}
	}
	p.mu.Unlock()
	if reused {
		msg := fmt.Sprintf("request id %v is already in use by a call in flight; the request was not sent", req.ID.Raw())
		p.logf("%s (%s)", msg, req.Method)
		p.refused(ctx, frame, req.ID, req.Method, msg)
		return nil, errorFrame(req.ID, jsonrpc.CodeInvalidRequest, "afr mcp-proxy: "+msg)
	}
	if req.Method == "tools/call" {
		return p.toolCall(ctx, frame, req)
	}
	return encode(req), nil
}

// refused records a frame from the client that was not forwarded, by the
// digest of its bytes (they were not read, so nothing else of them is
// trusted) and why.
func (p *Proxy) refused(ctx context.Context, frame []byte, id jsonrpc.ID, method, why string) {
	p.refusedFrom(ctx, "mcp:client", frame, id, method, why)
}

// tooLarge records a message from source ("mcp:client" or "mcp:server")
// that was not read because it is larger than Options.MaxMessage (size
// bytes; 0: unknown), by the digest of the part that was read (head), and
// returns the error to answer the client with.
func (p *Proxy) tooLarge(ctx context.Context, source string, head []byte, size int64) []byte {
	why := fmt.Sprintf("a message larger than the limit of %d bytes", p.opts.MaxMessage)
	if size > 0 {
		why = fmt.Sprintf("a message of %d bytes, larger than the limit of %d bytes", size, p.opts.MaxMessage)
	}
	p.logf("%s from %s, not forwarded", why, source)
	p.refusedFrom(ctx, source, head, jsonrpc.ID{}, "", why)
	return errorFrame(jsonrpc.ID{}, CodeTooLarge, "afr mcp-proxy: "+why+"; it was not forwarded")
}

// refusedFrom records a frame from source ("mcp:client" or "mcp:server")
// that was not forwarded.
func (p *Proxy) refusedFrom(ctx context.Context, source string, frame []byte, id jsonrpc.ID, method, why string) {
	ext := map[string]any{ExtOutcome: "refused", ExtError: why}
	if method != "" {
		ext[ExtMethod] = method
	}
	if id.IsValid() {
		ext[ExtRequestID] = idText(id)
	}
	_, err := p.opts.Recorder.Record(ctx, format.Event{Tool: "mcp/refused", Kind: format.KindObservation, Payload: format.Payload{
		Context: &format.ContextProvenance{Inputs: []format.Input{{Source: source, Digest: digest(strictjson.TrimSpace(frame))}}},
		Ext:     ext,
	}})
	if err != nil {
		p.logf("recording a refused frame failed: %v", err)
	}
}

// toolCall records the intent (and the policy's decision) of a tools/call
// and returns the request to forward: its params re-encoded with the tool
// name and the arguments as recorded.
func (p *Proxy) toolCall(ctx context.Context, frame []byte, req *jsonrpc.Request) (forward, reply []byte) {
	var params mcp.CallToolParamsRaw
	if err := strictjson.Unmarshal(req.Params, &params); err != nil || params.Name == "" {
		why := "tools/call needs params.name"
		if err != nil {
			why = "tools/call params: " + err.Error()
		}
		p.logf("tools/call %v: %s, not forwarded", req.ID.Raw(), why)
		p.refused(ctx, frame, req.ID, req.Method, why)
		return nil, errorFrame(req.ID, jsonrpc.CodeInvalidParams, "afr mcp-proxy: "+why)
	}
	args, err := parseArgs(params.Name, params.Arguments)
	var fwd []byte
	if err == nil {
		fwd, err = callParams(req, params.Name, args)
	}
	if err != nil {
		p.logf("tools/call %s: %v", params.Name, err)
		p.refused(ctx, frame, req.ID, req.Method, err.Error())
		return nil, errorFrame(req.ID, jsonrpc.CodeInvalidParams, "afr mcp-proxy: "+err.Error())
	}
	p.mu.Lock()
	parents := append([]uint64(nil), p.contextSq...)
	server := p.server
	p.mu.Unlock()
	ev := format.Event{Tool: params.Name, Kind: format.KindToolCall, Payload: format.Payload{
		Intent:  &format.Intent{Tool: params.Name, Args: args},
		Context: contextOf(parents),
		Code:    codeOf(server),
		Ext:     map[string]any{ExtMethod: req.Method, ExtRequestID: idText(req.ID)},
	}}
	rc, err := p.opts.Recorder.Record(ctx, ev)
	if err != nil {
		p.logf("tools/call %s: recording the intent failed, call not forwarded: %v", params.Name, err)
		return nil, errorFrame(req.ID, CodeNotRecorded, "afr mcp-proxy: the call could not be recorded, so it was not sent: "+err.Error())
	}
	c := &call{method: req.Method, tool: params.Name, args: args, intent: rc.Seq, parents: []uint64{rc.Seq}}
	if p.opts.Policy != nil {
		ev := p.opts.Policy.Evaluate(params.Name)
		approved := ev.Decision == format.DecisionAsk && p.opts.ApproveAll
		if approved {
			ev.Reasons = append(ev.Reasons, "approved: --approve-all")
		}
		prc, err := p.opts.Recorder.Record(ctx, format.Event{Tool: params.Name, Kind: format.KindPolicy, Payload: format.Payload{
			Policy:  &format.PolicyEvaluation{PolicyID: p.opts.Policy.ID(), Decision: ev.Decision, Rule: ev.Rule, Reasons: ev.Reasons},
			Context: contextOf([]uint64{rc.Seq}),
			Ext:     map[string]any{ExtRequestID: idText(req.ID)},
		}})
		if err != nil {
			p.logf("tools/call %s: recording the policy decision failed, call not forwarded: %v", params.Name, err)
			return nil, errorFrame(req.ID, CodeNotRecorded, "afr mcp-proxy: the policy decision could not be recorded, so the call was not sent: "+err.Error())
		}
		c.parents = append(c.parents, prc.Seq)
		if ev.Decision != format.DecisionAllow && !approved {
			code, msg := CodeDenied, fmt.Sprintf("denied by policy %s: %s", p.opts.Policy.Name, strings.Join(ev.Reasons, "; "))
			if ev.Decision == format.DecisionAsk {
				code, msg = CodeApproval, fmt.Sprintf("tool %s requires human approval under policy %s (rule %s); the call was not sent", params.Name, p.opts.Policy.Name, ev.Rule)
			}
			p.finish(ctx, c, req.ID, &format.Execution{Status: format.StatusDenied, Error: msg}, nil, "denied")
			return nil, errorFrame(req.ID, code, msg)
		}
	}
	c.start = time.Now()
	p.mu.Lock()
	_, reused := p.pending[req.ID] // a call with the same id came in since the check
	if !reused {
		p.pending[req.ID] = c
	}
	p.mu.Unlock()
	if reused {
		msg := fmt.Sprintf("request id %v is already in use by a call in flight; the request was not sent", req.ID.Raw())
		p.finish(ctx, c, req.ID, &format.Execution{Status: format.StatusDenied, Error: msg}, nil, "refused")
		return nil, errorFrame(req.ID, jsonrpc.CodeInvalidRequest, "afr mcp-proxy: "+msg)
	}
	return fwd, nil
}

// callParams is the tools/call request to forward: the client's params
// with the name and the arguments re-encoded from the recorded values
// (the other members, such as _meta, as read).
func callParams(req *jsonrpc.Request, tool string, args map[string]any) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := strictjson.Unmarshal(req.Params, &members); err != nil {
		return nil, fmt.Errorf("tools/call %s: params: %w", tool, err)
	}
	var err error
	if members["name"], err = marshal(tool); err != nil {
		return nil, err
	}
	if _, ok := members["arguments"]; ok {
		if members["arguments"], err = marshal(args); err != nil {
			return nil, fmt.Errorf("tools/call %s: arguments: %w", tool, err)
		}
	}
	b, err := marshal(members)
	if err != nil {
		return nil, err
	}
	return encode(&jsonrpc.Request{ID: req.ID, Method: req.Method, Params: b}), nil
}

// cancelled records a client's cancellation of a pending tools/call (the
// call's outcome is unknown; a late answer is recorded too) and returns
// the notification to forward, its params re-encoded from what was read.
func (p *Proxy) cancelled(ctx context.Context, req *jsonrpc.Request) (*jsonrpc.Request, error) {
	var params mcp.CancelledParams
	var raw struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := strictjson.Unmarshal(req.Params, &params); err != nil {
		return nil, fmt.Errorf("notifications/cancelled params: %w", err)
	}
	if err := cmp.Or(strictjson.Unmarshal(req.Params, &raw), checkID(raw.RequestID)); err != nil {
		return nil, fmt.Errorf("notifications/cancelled: requestId: %w", err)
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil || !id.IsValid() {
		return nil, fmt.Errorf("notifications/cancelled: requestId %v is not a request id", params.RequestID)
	}
	params.RequestID = id.Raw()
	b, err := marshal(&params)
	if err != nil {
		return nil, fmt.Errorf("notifications/cancelled params: %w", err)
	}
	p.mu.Lock()
	c := p.pending[id]
	if c == nil || c.method != "tools/call" || c.cancelled != 0 {
		c = nil
	}
	p.mu.Unlock()
	if c != nil {
		msg := "cancelled by the client"
		if params.Reason != "" {
			msg += ": " + params.Reason
		}
		seq := p.finish(ctx, c, id, &format.Execution{Status: format.StatusFailed, Error: msg}, nil, "cancelled")
		p.mu.Lock()
		c.cancelled = max(seq, 1) // the id stays in use until the answer, recorded as late
		p.mu.Unlock()
	}
	return &jsonrpc.Request{Method: req.Method, Params: b}, nil
}

// FromServer handles one frame from the server and returns the frame to
// forward to the client (nil: none), re-encoded from what the proxy read.
// A response to a watched request is recorded before it is returned
// (durably, but for a tools/call's execution: Options.AwaitOutcome); one whose result the proxy cannot read (an initialize,
// tools/list or tools/call result not of its MCP type) is recorded as
// refused and the client answered with CodeRefusedAnswer instead. A frame
// that is not one JSON-RPC message read strictly is dropped, and the
// refusal recorded.
func (p *Proxy) FromServer(ctx context.Context, frame []byte) []byte {
	msg, err := decode(frame)
	if err != nil {
		p.logf("malformed frame from the server, not forwarded: %v", err)
		p.refusedFrom(ctx, "mcp:server", frame, jsonrpc.ID{}, "", "malformed JSON-RPC frame: "+err.Error())
		return nil
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return encode(msg) // notifications (progress, logging) and server requests
	}
	p.mu.Lock()
	c := p.pending[resp.ID]
	delete(p.pending, resp.ID)
	p.mu.Unlock()
	if c == nil {
		// An answer to no request in flight (an id the client never sent,
		// or sent as another type: "7" for 7) is not forwarded: a client
		// that pairs ids loosely would take it as an answer the log never
		// paired with a call.
		p.logf("a response with id %v, which no request in flight has, not forwarded", resp.ID.Raw())
		p.refusedFrom(ctx, "mcp:server", frame, resp.ID, "", "a response to no request in flight")
		return nil
	}
	switch c.method {
	case "initialize":
		err = p.initialized(ctx, resp)
	case "tools/list":
		err = p.listed(ctx, resp)
	case "tools/call":
		if err = p.answered(ctx, c, resp); err != nil {
			// The execution, recorded as refused, says why.
			p.logf("the answer to tools/call %v, not forwarded: %v", resp.ID.Raw(), err)
			return errorFrame(resp.ID, CodeRefusedAnswer, "afr mcp-proxy: "+err.Error())
		}
	}
	if err != nil {
		p.logf("the answer to %s %v, not forwarded: %v", c.method, resp.ID.Raw(), err)
		p.refusedFrom(ctx, "mcp:server", frame, resp.ID, c.method, err.Error())
		return errorFrame(resp.ID, CodeRefusedAnswer, "afr mcp-proxy: "+err.Error())
	}
	return encode(resp)
}

// initialized records the server's initialize result; one the proxy
// cannot read is an error (a JSON-RPC error answer is not recorded).
func (p *Proxy) initialized(ctx context.Context, resp *jsonrpc.Response) error {
	if resp.Error != nil {
		return nil
	}
	var res mcp.InitializeResult
	if err := strictjson.Unmarshal(resp.Result, &res); err != nil {
		return fmt.Errorf("the server's initialize result is not an InitializeResult, so it was not forwarded: %w", err)
	}
	info, server := res.ServerInfo, ""
	if info == nil { // recorded all the same, without a server identity
		info = &mcp.Implementation{}
	} else {
		server = info.Name + "@" + info.Version
	}
	rc, err := p.opts.Recorder.Record(ctx, format.Event{Tool: "mcp/initialize", Kind: format.KindObservation, Payload: format.Payload{
		Context: &format.ContextProvenance{Inputs: []format.Input{{Source: "mcp:initialize", Digest: digest(resp.Result)}}},
		Code:    codeOf(server),
		Ext: map[string]any{ExtMethod: "initialize", ExtServer: map[string]any{
			"name": info.Name, "version": info.Version, "protocol_version": res.ProtocolVersion}},
	}})
	if err != nil {
		p.logf("recording initialize failed: %v", err)
		return nil
	}
	p.mu.Lock()
	p.server, p.contextSq = server, []uint64{rc.Seq}
	p.mu.Unlock()
	return nil
}

// listed records the server's tools/list result; one the proxy cannot
// read is an error.
func (p *Proxy) listed(ctx context.Context, resp *jsonrpc.Response) error {
	if resp.Error != nil {
		return nil
	}
	var res mcp.ListToolsResult
	if err := strictjson.Unmarshal(resp.Result, &res); err != nil {
		return fmt.Errorf("the server's tools/list result is not a ListToolsResult, so it was not forwarded: %w", err)
	}
	names := make([]any, 0, len(res.Tools))
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	p.mu.Lock()
	parents, server := append([]uint64(nil), p.contextSq...), p.server
	p.mu.Unlock()
	cp := contextOf(parents)
	if cp == nil {
		cp = &format.ContextProvenance{}
	}
	cp.Inputs = []format.Input{{Source: "mcp:tools/list", Digest: digest(resp.Result)}}
	rc, err := p.opts.Recorder.Record(ctx, format.Event{Tool: "mcp/tools/list", Kind: format.KindObservation, Payload: format.Payload{
		Context: cp, Code: codeOf(server), Ext: map[string]any{ExtMethod: "tools/list", ExtTools: names},
	}})
	if err != nil {
		p.logf("recording tools/list failed: %v", err)
		return nil
	}
	p.mu.Lock()
	p.contextSq = []uint64{rc.Seq}
	p.mu.Unlock()
	return nil
}

// answered records the execution of a tools/call from the server's
// answer. A result the proxy cannot read is recorded as refused (its
// digest kept) and returned as an error: the client must not act on what
// the log does not hold.
func (p *Proxy) answered(ctx context.Context, c *call, resp *jsonrpc.Response) (refused error) {
	ex := &format.Execution{Status: format.StatusOK, OutputDigest: digest(resp.Result)}
	ext := map[string]any{}
	outcome := "ok"
	var effects []format.Effect
	if resp.Error != nil {
		ex.Status, ex.Error, ex.OutputDigest, outcome = format.StatusFailed, resp.Error.Error(), nil, "rpc_error"
	} else {
		// The result is read by the SDK's own reading, once: decode has
		// checked the whole frame strictly, the result with it.
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON(resp.Result); err != nil {
			refused = fmt.Errorf("the server's result is not a CallToolResult, so it was not forwarded: %w", err)
			ex.Status, ex.Error, outcome = format.StatusFailed, refused.Error(), "refused"
		} else {
			text := outputText(&res)
			ex.Output = format.NewTextMax([]byte(text), p.opts.MaxOutput) // else its digest and size
			ext[ExtIsError] = res.IsError
			if res.IsError {
				ex.Status, ex.Error, outcome = format.StatusFailed, firstLine(text), "tool_error"
			} else {
				effects = effectsOf(c.tool, c.args)
			}
		}
	}
	if c.cancelled != 0 {
		ext[ExtLate] = true
		c.parents = append(c.parents, c.cancelled)
	}
	p.finishExt(ctx, c, resp.ID, ex, effects, outcome, ext)
	return refused
}

// Abandon records every call still awaiting an answer with outcome (and
// reason) and returns their ids, so that a transport can answer them.
func (p *Proxy) Abandon(ctx context.Context, outcome, reason string) []jsonrpc.ID {
	p.mu.Lock()
	calls := p.pending
	p.pending = map[jsonrpc.ID]*call{}
	p.mu.Unlock()
	var ids []jsonrpc.ID
	for id, c := range calls {
		if c.cancelled != 0 {
			continue // recorded as cancelled; the client awaits no answer
		}
		ids = append(ids, id)
		if c.method == "tools/call" {
			p.finish(ctx, c, id, &format.Execution{Status: format.StatusFailed, Error: reason}, nil, outcome)
		}
	}
	return ids
}

// AbandonCall records the call with request id, if it is still awaiting
// an answer, with outcome (and reason), and reports whether it was.
func (p *Proxy) AbandonCall(ctx context.Context, id jsonrpc.ID, outcome, reason string) bool {
	p.mu.Lock()
	c := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if c != nil && c.method == "tools/call" && c.cancelled == 0 {
		p.finish(ctx, c, id, &format.Execution{Status: format.StatusFailed, Error: reason}, nil, outcome)
	}
	return c != nil && c.cancelled == 0
}

func (p *Proxy) finish(ctx context.Context, c *call, id jsonrpc.ID, ex *format.Execution, effects []format.Effect, outcome string) uint64 {
	return p.finishExt(ctx, c, id, ex, effects, outcome, map[string]any{})
}

// finishExt records the execution event of call c, caused by its intent
// (and policy) events, and returns its seq (0 when it was not recorded).
func (p *Proxy) finishExt(ctx context.Context, c *call, id jsonrpc.ID, ex *format.Execution, effects []format.Effect, outcome string, ext map[string]any) uint64 {
	if !c.start.IsZero() {
		ex.Start, ex.End = c.start.UnixNano(), time.Now().UnixNano()
	}
	ext[ExtRequestID] = idText(id)
	ext[ExtOutcome] = outcome
	ev := format.Event{Tool: c.tool, Kind: format.KindToolCall, Payload: format.Payload{
		Execution: ex, Effects: effects, Context: contextOf(c.parents), Ext: ext,
	}}
	var rc recorder.Receipt
	var err error
	if a, ok := p.opts.Recorder.(appender); ok && !p.opts.AwaitOutcome {
		rc, err = a.Append(ev)
	} else {
		rc, err = p.opts.Recorder.Record(ctx, ev)
	}
	if err != nil {
		p.logf("tools/call %s (intent seq %d): recording the outcome failed: %v", c.tool, c.intent, err)
		return 0
	}
	return rc.Seq
}
