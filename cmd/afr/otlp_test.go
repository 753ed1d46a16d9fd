package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// TestOTLPCommand: afr otlp serves the receiver on a loopback port behind
// the token of --token-file (created), refuses an export without it,
// records one with it, and on SIGINT finishes, seals the open epoch and
// closes the log, which then verifies with every event in a sealed epoch.
func TestOTLPCommand(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "otlp.token")
	pr, pw := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(&env{stdin: strings.NewReader(""), stdout: pw, stderr: &errOut},
			[]string{"otlp", "--log", dir, "--recorder", "ops-1", "--listen", "127.0.0.1:0", "--token-file", tokenFile})
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatalf("no output; exit %d: %s", <-done, errOut.String())
	}
	first := lines.Text()
	_, url, ok := strings.Cut(first, "receiving traces at ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1/traces") {
		t.Fatalf("first line %q names no loopback URL", first)
	}
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{1})
	sp.SetName("execute_tool bash")
	sp.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	sp.Attributes().PutStr("gen_ai.tool.name", "bash")
	sp.Attributes().PutStr("gen_ai.tool.call.arguments", `{"command":"ls"}`)
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: status %d, want 401", resp.StatusCode)
	}
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("afr otlp did not stop on SIGINT")
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 {
		t.Fatalf("%d sealed epochs, want the one sealed on shutdown", len(as))
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil || rep.Verdict != verifier.Verified {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := ix.Event(0)
	if ix.Len() != 1 || !ok || ev.Envelope.Tool != "bash" || ev.Payload.Intent.Args["command"] != "ls" {
		t.Fatalf("%d events, first %+v", ix.Len(), ev)
	}
}
