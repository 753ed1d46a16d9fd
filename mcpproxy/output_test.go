package mcpproxy

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
)

// A tool's output text is recorded in execution.output: whole when at most
// Options.MaxOutput bytes, else as its SHA-256 digest and size; the digest
// of the whole result stays in execution.output_digest.
func TestOutputInExecution(t *testing.T) {
	rec := &memRecorder{}
	p := New(Options{Recorder: rec, MaxOutput: 8})
	ctx := context.Background()
	for i, text := range []string{"short", strings.Repeat("long ", 4)} {
		id := []byte{'1' + byte(i)}
		call := `{"jsonrpc":"2.0","id":` + string(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
		if fwd, _ := p.FromClient(ctx, []byte(call)); fwd == nil {
			t.Fatalf("call %d was not forwarded", i)
		}
		answer := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
		if fwd := p.FromServer(ctx, []byte(answer)); fwd == nil {
			t.Fatalf("answer %d was not forwarded", i)
		}
		x := rec.evs[len(rec.evs)-1].Payload.Execution
		if x == nil || x.Output == nil || x.Output.Size != uint64(len(text)) || len(x.OutputDigest) != 32 {
			t.Fatalf("call %d: execution %+v", i, x)
		}
		d := sha256.Sum256([]byte(text))
		if short := len(text) <= 8; short && x.Output.Text != text || !short && (x.Output.Text != "" || string(x.Output.Digest) != string(d[:])) {
			t.Errorf("call %d: output %+v, want %q kept whole up to 8 bytes, else its digest", i, x.Output, text)
		}
	}
}
