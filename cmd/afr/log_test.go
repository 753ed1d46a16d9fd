package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
)

// afr runs the CLI in-process and returns its exit code and stderr.
func afr(args ...string) (int, string) {
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, args)
	return code, errOut.String()
}

// TestWritersWhileLocked: while a recorder has the log open, afr record and
// afr seal fail at once naming it, and leave the log as it was; the reading
// commands work.
func TestWritersWhileLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(events, []byte(`{"tool":"shell","kind":"tool_call","payload":{}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stderr := afr("record", "--log", dir, "--recorder", "ops-1", events); code != exitOK {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	r := logtest.Open(t, dir, recorder.Options{})
	for _, args := range [][]string{{"record", "--log", dir, events}, {"seal", "--log", dir}, {"seal", "--log", dir, "--repair"}} {
		code, stderr := afr(args...)
		if code != exitError || !strings.Contains(stderr, "open for writing by pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(stderr, "hint:") {
			t.Errorf("afr %s: exit %d, %q; want exit 1 naming this process", args[0], code, stderr)
		}
	}
	for _, args := range [][]string{{"status", "--log", dir}, {"proof", "--log", dir, "--seq", "0"}} {
		if code, stderr := afr(args...); code != exitOK {
			t.Errorf("afr %s while a writer holds the log: exit %d: %s", args[0], code, stderr)
		}
	}
	anchors := filepath.Join(t.TempDir(), "anchors.json")
	for _, args := range [][]string{{"anchors", "--log", dir, "-o", anchors}, {"verify", "--log", dir, "--anchors", anchors}} {
		if code, stderr := afr(args...); code != exitOK {
			t.Errorf("afr %s while a writer holds the log: exit %d: %s", args[0], code, stderr)
		}
	}
	if p := r.Position(); p.Next != 1 {
		t.Fatalf("the log has %d events, want 1", p.Next)
	}
}

// TestStatusExitCode: afr status exits 1 (an error, not a verdict) when it
// cannot read the whole log.
func TestStatusExitCode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(events, []byte(strings.Repeat(`{"tool":"shell","kind":"tool_call","payload":{}}`+"\n", 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stderr := afr("record", "--log", dir, "--recorder", "ops-1", "--epoch-size", "2", events); code != exitOK {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	for _, json := range []bool{false, true} {
		args := []string{"status", "--log", dir}
		if json {
			args = append(args, "--json")
		}
		if code, stderr := afr(args...); code != exitOK || stderr != "" {
			t.Fatalf("intact log: exit %d, %q", code, stderr)
		}
	}
	seg := filepath.Join(dir, "epochs", "epochs-0000000000000000.seg")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[30] ^= 1
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, json := range []bool{false, true} {
		args := []string{"status", "--log", dir}
		if json {
			args = append(args, "--json")
		}
		if code, stderr := afr(args...); code != exitError || !strings.Contains(stderr, "afr status: ") {
			t.Errorf("damaged log (json %v): exit %d, %q; want exit 1 with the problem on stderr", json, code, stderr)
		}
	}
}

// TestRecordImportOneLineRule: afr record and afr import read a file of
// event JSON lines by one rule (format.BlankLine): a line of spaces, tabs
// or a CR alone is skipped by both, and a line holding U+00A0 is refused
// by both. Before, afr record refused the line of spaces and tabs that afr
// import skipped.
func TestRecordImportOneLineRule(t *testing.T) {
	ev := `{"tool":"shell","kind":"tool_call","payload":{}}`
	for _, c := range []struct {
		name, body string
		ok         bool
	}{
		{"spaces and tabs", ev + "\n \t \n\t\n" + ev + "\n", true},
		{"CR alone", ev + "\r\n\r\n" + ev + "\n", true},
		{"no-break space", ev + "\n\u00a0\n" + ev + "\n", false},
		{"next line", ev + "\n\u0085\n" + ev + "\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "events.jsonl")
			if err := os.WriteFile(file, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"record"}, {"import", "jsonl"}} {
				dir := filepath.Join(t.TempDir(), "log")
				code, stderr := afr(append(args, "--log", dir, "--recorder", "ops-1", file)...)
				if got := code == exitOK; got != c.ok {
					t.Fatalf("afr %s: exit %d (%s), want success %v", args[0], code, stderr, c.ok)
				}
				if !c.ok {
					continue
				}
				if code, stderr := afr("status", "--log", dir); code != exitOK {
					t.Fatalf("afr status after afr %s: exit %d: %s", args[0], code, stderr)
				}
				l, err := recorder.OpenLog(dir)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				if err := l.Records(func(uint64, []byte) error { n++; return nil }); err != nil {
					t.Fatal(err)
				}
				if n != 2 {
					t.Errorf("afr %s recorded %d events, want 2", args[0], n)
				}
			}
		})
	}
}
