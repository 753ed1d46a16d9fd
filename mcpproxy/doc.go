// Package mcpproxy records an MCP server's tool calls into an AFR log: it sits between an MCP
// client and the server and relays every JSON-RPC message in both directions, re-encoded from
// what it read and recorded, recording what the session did (docs/MCP.md is the user's guide; the events are those of
// docs/SPEC.md, "Payload"). Neither the client nor the server changes.
//
// Proxy is the recording core of one session, whatever the transport: FromClient and FromServer
// see each frame, read it strictly (internal/strictjson, then the MCP Go SDK's jsonrpc package)
// and return what to forward. It
// records the initialize and tools/list answers as observations, each tools/call as an intent
// before the request is forwarded, and its answer as an execution (paired by request id, caused
// by the intent; output digest, short output text, effects of the reference filesystem server's
// writes) before the answer is forwarded. A call that cannot be recorded is not forwarded
// (CodeNotRecorded). Calls left in flight when the client leaves are recorded as abandoned
// (Abandon, AbandonCall), those the server leaves unanswered as server_exited or
// upstream_failed. Events go to an Options.Recorder, a
// recorder.EventWriter: a recorder of the log, or a client of afr serve.
//
// With Options.Policy, a Policy read by ReadPolicy gates every tools/call before it reaches the
// server: rules match tool names, with "allow" and "deny" effects and pdr's deny-overrides
// evaluation, and an allow rule may require approval. Each decision is recorded as a policy
// event naming the policy by its id (its name and a SHA-256 prefix of its rules); a denied call
// is answered with CodeDenied, one that needs approval with CodeApproval, and its execution is
// recorded as denied.
//
// The proxy has two modes, one per MCP transport. Proxy.Stdio starts the server as a child
// process and relays newline-delimited frames over the standard streams (the client launches
// the proxy in place of the server). HTTP is the streamable-HTTP mode: an http.Handler in front
// of an upstream server's endpoint, relaying POST, GET and DELETE and each event of an event
// stream, with one Proxy per Mcp-Session-Id. Both record the same events.
//
// # Security
//
// The log is evidence only if nothing reaches the server unrecorded: an intent is durable
// (under the recorder's sync policy) before its request is forwarded, and an execution is in
// the log before its answer is forwarded (durable by the next commit, or before the answer with
// Options.AwaitOutcome). A frame is read as every conforming peer reads it: one with duplicate keys, or
// keys equal under case folding, is refused (recorded as refused), and what is forwarded is the
// message re-encoded from what was read, a tools/call's name and arguments from the recorded
// intent, so a server never sees what the log does not hold (FuzzForwardedFrame checks it
// against the Go SDK's reading). Event streams are read as the WHATWG standard says and each
// event written again; bytes that were not read are not forwarded. A request reusing the id of
// a call in flight is refused, and so is an id that peers read differently (one not a string
// nor an integer within 2^53 written as one: the SDK reads 7.5 as 7); a cancelled call's late
// answer is recorded. An integer beyond 64 bits in tool arguments is refused (the log would hold
// a float64). A server's result the proxy cannot read is not forwarded: the client gets
// CodeRefusedAnswer. A message larger than Options.MaxMessage is not read (CodeTooLarge). Every
// frame not forwarded, from either side, is recorded as refused. Tool arguments and output text (up to
// Options.MaxOutput bytes) are in the events' payloads: a log whose recorder does not encrypt
// payloads (recorder.Options.Encrypt) shows them to anyone who reads it.
//
// # Compatibility
//
// The events are those docs/MCP.md lists; the output text is in execution.output (format
// version 3), the server identity and the outcome in payload ext keys (the Ext constants). A policy's id depends only on its name and rules
// (their CBOR, effects by name), so an unchanged policy file keeps its id across releases (a
// test pins it).
package mcpproxy
