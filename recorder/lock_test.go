package recorder_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
)

// lockedBy opens dir for writing and fails the test unless Open refuses
// at once with a *recorder.LockedError naming pid, this host and a start
// time.
func lockedBy(t *testing.T, dir string, pid int) *recorder.LockedError {
	t.Helper()
	start := time.Now()
	r, err := recorder.Open(dir, recorder.Options{})
	var le *recorder.LockedError
	if !errors.As(err, &le) {
		if r != nil {
			r.Close()
		}
		t.Fatalf("second writer: got %v, want a *recorder.LockedError", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the second writer waited %s, want an immediate refusal", d)
	}
	host, _ := os.Hostname()
	if le.Holder == nil || le.Holder.PID != pid || le.Holder.Host != host || le.Holder.Since.IsZero() || time.Since(le.Holder.Since) > time.Minute {
		t.Fatalf("holder %+v, want pid %d on %s since a moment ago", le.Holder, pid, host)
	}
	for _, want := range []string{"pid " + strconv.Itoa(pid), host, le.Holder.Since.Format(time.RFC3339), "hint:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	return le
}

// TestLockOneWriter: while a recorder has the store open, a second Open in
// the same process fails at once, readers need no lock, and Close releases
// it.
func TestLockOneWriter(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{EpochSize: 4})
	recordN(t, r, 10)
	lockedBy(t, dir, os.Getpid())
	if _, _, err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	verifyStore(t, dir) // a reader, while the writer holds the lock

	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = openT(t, dir, recorder.Options{})
	recordN(t, r, 1)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verifyStore(t, dir); rep.Events != 11 {
		t.Fatalf("%d events, want 11", rep.Events)
	}
}

// TestLockReleasedWhenOpenFails: an Open that takes the lock and then
// refuses the store does not keep it.
func TestLockReleasedWhenOpenFails(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{Recorder: "ops-1"})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.Open(dir, recorder.Options{Recorder: "ops-2"}); err == nil {
		t.Fatal("opened another recorder's store")
	}
	r = openT(t, dir, recorder.Options{Recorder: "ops-1"})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLockOtherProcess: a child process holds the store; this process is
// refused with the child's pid, and may write once the child is killed
// (the kernel releases the lock of a dead process).
func TestLockOtherProcess(t *testing.T) {
	if dir := os.Getenv("AFR_LOCK_CHILD"); dir != "" {
		lockChild(dir)
		return
	}
	dir := t.TempDir()
	for round := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockOtherProcess$")
		cmd.Env = append(os.Environ(), "AFR_LOCK_CHILD="+dir)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() }) // if the test fails before it kills the child
		sc := bufio.NewScanner(out)
		if !sc.Scan() || sc.Text() != "recording" {
			t.Fatalf("round %d: the child did not start recording (%q)", round, sc.Text())
		}
		lockedBy(t, dir, cmd.Process.Pid)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		r, err := recorder.Open(dir, recorder.Options{EpochSize: 16})
		if err != nil {
			t.Fatalf("round %d: after the holder was killed: %v", round, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		verifyStore(t, dir)
	}
}

// lockChild records into dir until killed.
func lockChild(dir string) {
	r, err := recorder.Open(dir, recorder.Options{Recorder: "lock", EpochSize: 16})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		if _, err := r.Record(context.Background(), sampleEvent(i)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		if i == 0 {
			fmt.Println("recording")
		}
		time.Sleep(time.Millisecond)
	}
}
