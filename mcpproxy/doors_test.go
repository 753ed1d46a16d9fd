package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// refusedEvents are the mcp/refused observations of rec from source.
func refusedEvents(rec *memRecorder, source string) (out []format.Event) {
	for _, ev := range rec.evs {
		if ev.Tool == "mcp/refused" && ev.Payload.Context.Inputs[0].Source == source {
			out = append(out, ev)
		}
	}
	return out
}

// errorOf reads frame as a JSON-RPC error response (id null allowed,
// which the SDK's decoder refuses).
func errorOf(t *testing.T, frame []byte) (id any, e *jsonrpc.Error) {
	t.Helper()
	var m struct {
		ID    any            `json:"id"`
		Error *jsonrpc.Error `json:"error"`
	}
	if err := json.Unmarshal(frame, &m); err != nil || m.Error == nil {
		t.Fatalf("%s is not a JSON-RPC error (%v)", frame, err)
	}
	return m.ID, m.Error
}

// A result the proxy cannot read as its MCP type is not forwarded: the
// client gets an error naming the refusal, and the log records it (before,
// the result was recorded as an error and forwarded, so the client acted
// on an answer the log does not hold).
func TestUnreadResultNotForwarded(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ method, params, result string }{
		{"tools/call", `{"name":"echo","arguments":{}}`, `{"content":[{"type":"text","text":"INJECTED"}],"isError":"no"}`},
		{"initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, `{"protocolVersion":5,"serverInfo":{"name":"INJECTED","version":"1"}}`},
		{"tools/list", `{}`, `{"tools":{"name":"INJECTED"}}`},
	} {
		t.Run(c.method, func(t *testing.T) {
			rec := &memRecorder{}
			p := New(Options{Recorder: rec})
			if fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":`+c.params+`}`)); fwd == nil {
				t.Fatal("the request was not forwarded")
			}
			before := len(rec.evs)
			fwd := p.FromServer(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":`+c.result+`}`))
			if bytes.Contains(fwd, []byte("INJECTED")) {
				t.Fatalf("forwarded the unread result: %s", fwd)
			}
			if id, e := errorOf(t, fwd); id != 1.0 || e.Code != CodeRefusedAnswer || !strings.Contains(e.Message, "not forwarded") {
				t.Fatalf("answer %s, want error %d for id 1", fwd, CodeRefusedAnswer)
			}
			evs := rec.evs[before:]
			if len(evs) != 1 {
				t.Fatalf("recorded %+v, want one event", evs)
			}
			if c.method == "tools/call" {
				if x := evs[0].Payload.Execution; x == nil || x.Status != format.StatusFailed || evs[0].Payload.Ext[ExtOutcome] != "refused" {
					t.Fatalf("recorded %+v, want the execution refused", evs[0])
				}
			} else if len(refusedEvents(rec, "mcp:server")) != 1 || evs[0].Payload.Ext[ExtMethod] != c.method {
				t.Fatalf("recorded %+v, want the answer refused", evs[0])
			}
		})
	}
}

// A frame from the server that is not one JSON-RPC message read strictly
// is dropped and the refusal recorded (before, it left no record).
func TestServerFrameRefusalRecorded(t *testing.T) {
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	ctx := context.Background()
	p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
	for _, frame := range []string{
		`not json`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"Result":{"content":[{"type":"text","text":"INJECTED"}]}}`,
	} {
		if fwd := p.FromServer(ctx, []byte(frame)); fwd != nil {
			t.Fatalf("forwarded %s", fwd)
		}
	}
	if got := refusedEvents(rec, "mcp:server"); len(got) != 2 {
		t.Fatalf("%d refusals of server frames recorded, want 2: %+v", len(got), rec.evs)
	}
}

// Request ids are read as every peer reads them: one that the Go SDK reads
// as another integer than written (7.5 as 7, 1e2 as 100, a number beyond
// 2^53 as the nearest float64) is refused from either side, and from a
// cancellation; strings and integers up to 2^53-1 pass as written. Before,
// 7.5 was forwarded as 7 (so the log, the server and the client each held
// another id).
func TestIDsReadAsWritten(t *testing.T) {
	ctx := context.Background()
	for _, id := range []string{`7.5`, `7.0`, `1e2`, `1E2`, `-0`, `1e30`, `9007199254740992`, `-9007199254740992`, `9007199254740993`, `12345678901234567890`} {
		rec := &memRecorder{}
		p := New(Options{Recorder: rec})
		fwd, reply := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
		if fwd != nil {
			t.Errorf("id %s: forwarded %s", id, fwd)
			continue
		}
		if rid, e := errorOf(t, reply); rid != nil || e.Code != CodeMalformedFrame || !strings.Contains(e.Message, id) {
			t.Errorf("id %s: answer %s, want a parse error naming it, id null", id, reply)
		}
		if len(rec.evs) != 1 || rec.evs[0].Tool != "mcp/refused" {
			t.Errorf("id %s: recorded %+v, want one refusal", id, rec.evs)
		}
	}
	for _, id := range []string{`7`, `-7`, `0`, `9007199254740991`, `-9007199254740991`, `"7.5"`} {
		p := New(Options{Recorder: &memRecorder{}})
		fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`))
		if !bytes.Contains(fwd, []byte(`"id":`+id+`,`)) {
			t.Errorf("id %s: forwarded %s", id, fwd)
		}
	}
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
	if fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.5}}`)); fwd != nil {
		t.Errorf("a cancellation of request 7.5 forwarded as %s", fwd)
	}
	if fwd := p.FromServer(ctx, []byte(`{"jsonrpc":"2.0","id":7.5,"result":{"content":[{"type":"text","text":"INJECTED"}]}}`)); fwd != nil {
		t.Errorf("an answer with id 7.5 forwarded as %s", fwd)
	}
	if fwd := p.FromServer(ctx, []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"real"}]}}`)); !bytes.Contains(fwd, []byte("real")) {
		t.Errorf("the answer to 7 after the refused ones: %s", fwd)
	}
	if n := len(refusedEvents(rec, "mcp:client")) + len(refusedEvents(rec, "mcp:server")); n != 2 {
		t.Errorf("%d refusals recorded, want 2: %+v", n, rec.evs)
	}
}

// An integer in a call's arguments that neither an int64 nor a uint64
// holds is refused, not forwarded: the event JSON would hold it as a
// float64, which the proxy then forwarded (18446744073709551616 reached the
// server as 1.8446744073709552e+19, recorded as the client's). The bounds
// themselves pass exactly.
func TestWideIntegerArgumentRefused(t *testing.T) {
	ctx := context.Background()
	for _, args := range []string{
		`{"n":18446744073709551616}`,
		`{"a":{"b":[1,-9223372036854775809]}}`,
		`{"s":"1e999 \"-99999999999999999999\"","n":123456789012345678901234567890}`,
	} {
		rec := &memRecorder{}
		p := New(Options{Recorder: rec})
		fwd, reply := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":`+args+`}}`))
		if fwd != nil {
			t.Errorf("%s: forwarded %s", args, fwd)
			continue
		}
		if _, e := errorOf(t, reply); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "exceeds 64 bits") {
			t.Errorf("%s: answer %s, want invalid params: exceeds 64 bits", args, reply)
		}
		if len(rec.evs) != 1 || rec.evs[0].Tool != "mcp/refused" {
			t.Errorf("%s: recorded %+v, want one refusal", args, rec.evs)
		}
	}
	rec := &memRecorder{}
	p := New(Options{Recorder: rec})
	fwd, _ := p.FromClient(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"u":18446744073709551615,"i":-9223372036854775808,"s":"99999999999999999999"}}}`))
	want := map[string]any{"u": uint64(18446744073709551615), "i": int64(-9223372036854775808), "s": "99999999999999999999"}
	if !bytes.Contains(fwd, []byte(`"i":-9223372036854775808,"s":"99999999999999999999","u":18446744073709551615`)) || !reflect.DeepEqual(rec.evs[0].Payload.Intent.Args, want) {
		t.Fatalf("forwarded %s, recorded %v", fwd, rec.evs[0].Payload.Intent.Args)
	}
}

// readFrames hands over frames up to the bound whole (also across its
// read buffer) and one beyond it as its first max bytes and its size.
func TestReadFramesBound(t *testing.T) {
	const max = 100 << 10
	big := strings.Repeat("x", 3*max)
	near := strings.Repeat("y", max)
	var got, heads []string
	var sizes []int64
	readFrames(strings.NewReader("a\n"+big+"\n"+near+"\nb"), max, func(f []byte) { got = append(got, string(f)) },
		func(head []byte, size int64) { heads, sizes = append(heads, string(head)), append(sizes, size) }, t.Logf)
	if want := []string{"a\n", near + "\n", "b\n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("frames of %v bytes, want 2, %d, 2", lens(got), max+1)
	}
	if len(heads) != 1 || heads[0] != big[:max] || sizes[0] != int64(len(big)) {
		t.Errorf("over-size frames: heads of %v bytes, sizes %v; want one of %d, size %d", lens(heads), sizes, max, len(big))
	}
}

func lens(ss []string) (n []int) {
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

// writtenID is the id of frame as written (a string, or a number's text;
// nil when absent or null), read independently of the proxy: Go's
// encoding/json keeping numbers as text.
func writtenID(frame []byte) (id any, ok bool) {
	d := json.NewDecoder(bytes.NewReader(frame))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil, false
	}
	return m["id"], true
}

// sameID says whether the proxy's id is the one written: the same string,
// or an integer whose decimal text is the number's.
func sameID(written any, id jsonrpc.ID) bool {
	switch w := written.(type) {
	case nil:
		return !id.IsValid()
	case string:
		return id.Raw() == w
	case json.Number:
		n, ok := id.Raw().(int64)
		return ok && strconv.FormatInt(n, 10) == w.String()
	}
	return false
}

// FuzzReadFrames: every line of a stream longer than max bytes is handed
// over as its first max bytes and its size, every other non-blank line
// whole (with its newline), in order.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte("a\n\nbb\r\n"+strings.Repeat("c", 40)+"\nd"), uint16(8))
	f.Add([]byte(frameSeeds[3]+"\n"+frameSeeds[4]), uint16(64))
	f.Fuzz(func(t *testing.T, stream []byte, max uint16) {
		if max == 0 {
			return
		}
		var got []string
		readFrames(bytes.NewReader(stream), int(max), func(frame []byte) { got = append(got, "ok:"+string(frame)) },
			func(head []byte, size int64) { got = append(got, fmt.Sprintf("big:%d:%s", size, head)) }, t.Logf)
		var want []string
		for _, line := range strings.SplitAfter(string(stream), "\n") {
			body := strings.TrimSuffix(line, "\n")
			switch {
			case len(body) > int(max): // blank or not: the bound holds for every line
				want = append(want, fmt.Sprintf("big:%d:%s", len(body), body[:max]))
			case len(strictjson.TrimSpace([]byte(line))) == 0:
			default:
				want = append(want, "ok:"+body+"\n")
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %q, want %q", got, want)
		}
	})
}
