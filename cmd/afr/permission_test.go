package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// unprivileged runs afr with args in a process that file modes apply to:
// root bypasses them, so as root the test binary (which is afr under that
// name, see TestMain) is copied where anyone can run it and started as the
// user nobody; as any other user, afr runs in-process. It returns the exit
// code and what afr wrote.
func unprivileged(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	if os.Getuid() != 0 {
		var out bytes.Buffer
		code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &out}, args)
		return code, out.String()
	}
	bin := filepath.Join(dir, "afr")
	if _, err := os.Stat(bin); errors.Is(err, os.ErrNotExist) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		copyFile(t, self, bin)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running afr as nobody: %v", err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// A log that afr may not read is an error that says so — never "not an AFR
// log", never "--recorder is required", never a verdict — for the reader
// and for every writer.
func TestPermissionErrors(t *testing.T) {
	base := t.TempDir()
	// Let nobody reach base (t.TempDir makes its directories 0700).
	for d := base; d != filepath.Dir(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()) && d != os.TempDir() {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	l := logtest.Write(t, recorder.Options{Recorder: "op-perm", EpochSize: 4}, workload.Generate(3, 6))
	closed := filepath.Join(base, "closed") // the writer's directory, 0700: nobody may not enter it
	copyDir(t, l.Dir, closed)
	if err := os.Chmod(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(base, "open") // a directory anyone may list, files of 0600
	copyDir(t, l.Dir, open)
	for _, d := range []string{open, filepath.Join(open, "records"), filepath.Join(open, "epochs"), filepath.Join(open, "payloads")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getuid() != 0 {
		if err := os.Chmod(closed, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(closed, 0o700) })
		for _, f := range []string{"MANIFEST", recorder.MarkFile, "records/records-0000000000000000.seg"} {
			if err := os.Chmod(filepath.Join(open, f), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	events := filepath.Join(base, "events.jsonl")
	if err := os.WriteFile(events, []byte(`{"tool":"shell","kind":"tool_call","payload":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{closed, open} {
		for name, args := range map[string][]string{
			"verify":    {"verify", "--log", dir},
			"status":    {"status", "--log", dir},
			"record":    {"record", "--log", dir, events},
			"import":    {"import", "jsonl", "--log", dir, events},
			"serve":     {"serve", "--log", dir, "--listen", "127.0.0.1:0"},
			"otlp":      {"otlp", "--log", dir, "--listen", "127.0.0.1:0"},
			"mcp-proxy": {"mcp-proxy", "--log", dir, "--", "true"},
		} {
			t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) {
				code, out := unprivileged(t, base, args...)
				if code != 1 || !strings.Contains(out, "permission denied") || strings.Contains(out, "not an AFR log") || strings.Contains(out, "--recorder") {
					t.Fatalf("afr %s: exit %d, want 1 saying permission denied:\n%s", strings.Join(args, " "), code, out)
				}
			})
		}
	}
}
