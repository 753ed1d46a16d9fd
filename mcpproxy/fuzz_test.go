package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
)

// memRecorder keeps the events recorded, in memory.
type memRecorder struct{ evs []format.Event }

func (m *memRecorder) Record(_ context.Context, ev format.Event) (recorder.Receipt, error) {
	m.evs = append(m.evs, ev)
	return recorder.Receipt{Seq: uint64(len(m.evs))}, nil
}

// sdkParams reads tools/call params as the MCP Go SDK's server does
// (go-sdk/internal/json: segmentio's decoder, names matched exactly).
func sdkParams(raw []byte) (name string, args json.RawMessage, err error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	d := segjson.NewDecoder(bytes.NewReader(raw))
	d.DontMatchCaseInsensitiveStructFields()
	err = d.Decode(&p)
	return p.Name, p.Arguments, err
}

// frameSeeds are real client frames (the Go SDK's and the reference
// servers' sessions) and the attacks of the strict reading.
var frameSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"afr-test","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"through the proxy"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"tok-1"},"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":4}}}`,
	`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/x","content":"a<b>&c","n":1e400}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":12345678901234567890123,"b":-0.5e-3}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"too slow"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_file","Name":"read_text_file","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{"k":1,"\u212a":2}}}`,
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a\u0000b","arguments":null}}`,
	`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\u0037","method":"ping"}`,
	`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sum","arguments":{"a":18446744073709551616,"b":-9223372036854775808}}}`,
}

// FuzzForwardedFrame is the differential check of the proxy's reading
// against the MCP Go SDK's: whatever the proxy forwards of a client
// frame, the SDK reads as the same message (method, id), and a tools/call
// as the tool and arguments the proxy recorded.
func FuzzForwardedFrame(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		rec := &memRecorder{}
		p := New(Options{Recorder: rec})
		forward, reply := p.FromClient(context.Background(), frame)
		if forward == nil {
			if reply != nil && !json.Valid(reply) {
				t.Fatalf("reply %q is not JSON", reply)
			}
			return
		}
		mine, err := decode(frame)
		if err != nil {
			t.Fatalf("forwarded a frame the proxy cannot read: %v", err)
		}
		theirs, err := jsonrpc.DecodeMessage(forward)
		if err != nil {
			t.Fatalf("the SDK cannot read the forwarded %q: %v", forward, err)
		}
		if reflect.TypeOf(mine) != reflect.TypeOf(theirs) {
			t.Fatalf("the proxy read a %T, the SDK a %T", mine, theirs)
		}
		req, ok := mine.(*jsonrpc.Request)
		if !ok {
			return
		}
		sreq := theirs.(*jsonrpc.Request)
		if req.Method != sreq.Method || req.ID != sreq.ID {
			t.Fatalf("the proxy read %s %v, the SDK %s %v", req.Method, req.ID.Raw(), sreq.Method, sreq.ID.Raw())
		}
		if written, ok := writtenID(strictjson.TrimSpace(frame)); ok && !sameID(written, req.ID) {
			t.Fatalf("the client wrote id %v, the proxy forwarded %v", written, req.ID.Raw())
		}
		if req.Method != "tools/call" {
			return
		}
		name, rawArgs, err := sdkParams(sreq.Params)
		if err != nil {
			t.Fatalf("the SDK cannot read the forwarded params %s: %v", sreq.Params, err)
		}
		var intent *format.Intent
		for _, ev := range rec.evs {
			if ev.Payload.Intent != nil {
				intent = ev.Payload.Intent
			}
		}
		if intent == nil {
			t.Fatalf("a tools/call forwarded without an intent: %q", forward)
		}
		args, err := parseArgs(name, rawArgs)
		if err != nil {
			t.Fatalf("the forwarded arguments %s do not parse: %v", rawArgs, err)
		}
		if name != intent.Tool || !reflect.DeepEqual(args, intent.Args) {
			t.Fatalf("recorded %s %v, the SDK reads %s %v in %q", intent.Tool, intent.Args, name, args, forward)
		}
	})
}

// sseSeeds are event streams of the reference servers and of the
// standard's examples, with each line end.
var sseSeeds = []string{
	"event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"id: prime\ndata: \n\n",
	": comment\r\ndata: a\r\ndata: b\r\n\r\n",
	"\uFEFFdata:x\r\rdata: y\n\nretry: 100\nretry: x\nid\n\n",
	"data\n\ndata:\n\nevent: other\ndata: z\n\nid: a\x00b\ndata: q\n\n",
	"data: \xff\n\n",
}

// FuzzReadEvents: what readEvents reads of a stream, serialised by
// appendEvent, reads back as the same blocks (as a client does), and
// an event is never dispatched that the relay did not see.
func FuzzReadEvents(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		var first []sseEvent
		var out []byte
		if err := readEvents(bytes.NewReader(stream), 1<<20, func(ev *sseEvent) {
			var data []byte
			if ev.HasData && ev.Invalid == nil && !bytes.ContainsAny(ev.Data, "\r\n") {
				data = ev.Data
			}
			if b := appendEvent(nil, ev, data); b != nil {
				out = append(out, b...)
				first = append(first, sseEvent{ID: ev.ID, HasID: ev.HasID, Retry: ev.Retry, Data: data, HasData: data != nil})
			}
		}); err != nil {
			t.Fatal(err)
		}
		var again []sseEvent
		if err := readEvents(bytes.NewReader(out), 1<<20, func(ev *sseEvent) {
			again = append(again, sseEvent{ID: ev.ID, HasID: ev.HasID, Retry: ev.Retry, Data: ev.Data, HasData: ev.HasData})
			if ev.HasData && ev.Type != "message" {
				t.Fatalf("re-serialised event of type %q", ev.Type)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if len(first) != len(again) {
			t.Fatalf("%d blocks written, %d read back from %q", len(first), len(again), out)
		}
		for i := range first {
			if !reflect.DeepEqual(first[i], again[i]) {
				t.Fatalf("block %d: wrote %+v, read back %+v", i, first[i], again[i])
			}
		}
	})
}

// FuzzEncode: a message decode accepts is written by encode exactly as the
// SDK's encoder writes it from the frame as read (its result compacted by
// encoding/json), though encode does not pass a response's result through
// that encoder.
func FuzzEncode(f *testing.F) {
	for _, s := range append(frameSeeds,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"caf\u00e9 \/ <b>&amp;</b>\u2028"}], "isError" : false }}`,
		`{"jsonrpc":"2.0","id":-7,"result":[1.50, 2e3, -0, null]}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32000,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":9,"result":"text"}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, err := decode(frame)
		if err != nil {
			return
		}
		theirs, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			t.Fatalf("decode read what the SDK does not: %v", err)
		}
		switch m := theirs.(type) {
		case *jsonrpc.Request:
			m.Params = compactV1(t, m.Params)
		case *jsonrpc.Response:
			m.Result = compactV1(t, m.Result)
		}
		want, err := jsonrpc.EncodeMessage(theirs)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(msg); !bytes.Equal(got, want) {
			t.Fatalf("encode wrote\n%s\nthe SDK's encoder\n%s", got, want)
		}
	})
}

func compactV1(t *testing.T, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
