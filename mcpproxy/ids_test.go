package mcpproxy

import (
	"context"
	"testing"
)

// A request id is in flight whatever the method: a tools/call that reuses
// the id of a ping still unanswered is refused (the ping's answer would
// have been recorded as the call's outcome).
func TestReusedIDOfAnyMethod(t *testing.T) {
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	ctx := context.Background()
	if fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)); fwd == nil {
		t.Fatal("the ping was not forwarded")
	}
	fwd, reply := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
	if fwd != nil || reply == nil {
		t.Fatalf("a tools/call reusing the ping's id: forwarded %s, reply %s; want refused", fwd, reply)
	}
	if n := len(rec.evs); n != 1 || rec.evs[0].Tool != "mcp/refused" {
		t.Fatalf("recorded %+v, want one refusal", rec.evs)
	}
}

// An answer whose id no request in flight has — here "7" for the call 7,
// which clients that compare Number(id) would pair — is dropped and
// recorded as refused, not forwarded unrecorded.
func TestResponseToNoRequestDropped(t *testing.T) {
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	ctx := context.Background()
	if fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)); fwd == nil {
		t.Fatal("the call was not forwarded")
	}
	before := len(rec.evs)
	if fwd := p.FromServer(ctx, []byte(`{"jsonrpc":"2.0","id":"7","result":{"content":[{"type":"text","text":"INJECT"}]}}`)); fwd != nil {
		t.Fatalf("forwarded %s, an answer to no request in flight", fwd)
	}
	evs := rec.evs[before:]
	if len(evs) != 1 || evs[0].Tool != "mcp/refused" || evs[0].Payload.Context.Inputs[0].Source != "mcp:server" {
		t.Fatalf("recorded %+v, want one refusal of a server frame", evs)
	}
	if fwd := p.FromServer(ctx, []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"real"}]}}`)); fwd == nil {
		t.Fatal("the real answer was not forwarded")
	}
}

// A response with both a result and an error is dropped: the proxy would
// record the error while a client that tests for "result" first acts on
// the result.
func TestResponseWithResultAndErrorDropped(t *testing.T) {
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	ctx := context.Background()
	if fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)); fwd == nil {
		t.Fatal("the call was not forwarded")
	}
	frame := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"INJECT"}]},"error":{"code":-32000,"message":"failed"}}`
	if fwd := p.FromServer(ctx, []byte(frame)); fwd != nil {
		t.Fatalf("forwarded %s", fwd)
	}
}

// Only JSON's own whitespace is trimmed around a frame: one led by a
// no-break space (U+00A0), which bytes.TrimSpace removed, is not JSON for
// any reader and is refused.
func TestFrameUnicodeSpaceRefused(t *testing.T) {
	p := New(Options{Recorder: &memRecorder{}})
	fwd, reply := p.FromClient(context.Background(), []byte("\u00a0"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if fwd != nil || reply == nil {
		t.Fatalf("forwarded %q, reply %q; want refused", fwd, reply)
	}
}
