package verifier_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// powerLossChild is set in the writer process TestPowerLossLoopDevice
// starts: the log directory it writes.
const powerLossChild = "AFR_POWERLOSS_LOG"

// A real power loss: a writer under load on ext4 on a loop device is
// killed, and the disk image is copied at once — what reached the device,
// with the page cache's unsynced writes missing in whatever order writeback
// had reached. The copy, mounted (the journal replayed, no fsck), never
// verifies as tampered, holds every acknowledged event, and a writer
// reopens it by itself.
func TestPowerLossLoopDevice(t *testing.T) {
	if dir := os.Getenv(powerLossChild); dir != "" {
		powerLossWriter(dir)
		return
	}
	if os.Getuid() != 0 {
		t.Skip("needs root: it makes an ext4 file system on a loop device and mounts it")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (a loop device and ext4): %v", tool, err)
		}
	}
	base := t.TempDir()
	img, mnt := filepath.Join(base, "disk.img"), filepath.Join(base, "mnt")
	sh(t, "truncate", "-s", "128M", img)
	sh(t, "mkfs.ext4", "-q", "-F", img)
	if err := mount(t, img, mnt); err != nil {
		t.Skipf("cannot mount a loop device here: %v", err)
	}
	logDir := filepath.Join(mnt, "log")

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(self, "-test.run=^TestPowerLossLoopDevice$")
	child.Env = append(os.Environ(), powerLossChild+"="+logDir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Receipts as the child prints them: "seq digest" once acknowledged.
	acked := map[uint64]string{}
	var mu sync.Mutex
	enough := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var seq uint64
			var digest string
			if _, err := fmt.Sscan(sc.Text(), &seq, &digest); err != nil {
				continue
			}
			mu.Lock()
			acked[seq] = digest
			if len(acked) == 2000 {
				close(enough)
			}
			mu.Unlock()
		}
	}()
	select {
	case <-enough:
	case <-t.Context().Done():
	}
	child.Process.Kill()
	// The power loss: the device as it is now, copied before writeback
	// reaches it.
	copied := filepath.Join(base, "copy.img")
	sh(t, "cp", "--sparse=always", img, copied)
	child.Wait()
	mu.Lock()
	receipts := make(map[uint64]string, len(acked))
	for k, v := range acked {
		receipts[k] = v
	}
	mu.Unlock()
	if len(receipts) < 2000 {
		t.Fatalf("the writer acknowledged only %d events", len(receipts))
	}

	cmnt := filepath.Join(base, "copy")
	if err := mount(t, copied, cmnt); err != nil {
		t.Fatalf("mounting the copy: %v", err)
	}
	lost := filepath.Join(cmnt, "log")
	rep := verifyDir(t, lost)
	if rep.Verdict == verifier.Tampered {
		t.Fatalf("a power loss verifies as tampered: %v", rep.Findings)
	}
	r, err := recorder.Open(lost, recorder.Options{})
	if err != nil {
		t.Fatalf("the writer does not reopen the power-lost log by itself: %v", err)
	}
	t.Logf("%d events acknowledged; verdict %s; recovery %+v", len(receipts), rep.Verdict, r.Recovery())
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(lost)
	if err != nil {
		t.Fatal(err)
	}
	have := map[uint64]string{}
	if err := l.Records(func(seq uint64, raw []byte) error {
		d := format.RecordDigest(raw)
		have[seq] = hex.EncodeToString(d[:])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for seq, d := range receipts {
		if have[seq] != d {
			t.Fatalf("acknowledged event %d lost or changed by the power loss", seq)
		}
	}
}

// powerLossWriter records events from four goroutines until it is killed,
// printing each receipt once Record returns.
func powerLossWriter(dir string) {
	r, err := recorder.Open(dir, recorder.Options{Recorder: "op-power", EpochSize: 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	evs := workload.Generate(5, 1000)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i++ {
				rc, err := r.Record(context.Background(), evs[i%len(evs)])
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				mu.Lock()
				fmt.Fprintf(w, "%d %s\n", rc.Seq, hex.EncodeToString(rc.Digest[:]))
				w.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func sh(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// mount mounts the file system image img on dir through a loop device,
// unmounted and detached when the test ends.
func mount(t *testing.T, img, dir string) error {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		return fmt.Errorf("losetup: %w", err)
	}
	dev := strings.TrimSpace(string(out))
	if out, err := exec.Command("mount", "-t", "ext4", dev, dir).CombinedOutput(); err != nil {
		exec.Command("losetup", "-d", dev).Run()
		return fmt.Errorf("mount: %v: %s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("umount", dir).Run()
		exec.Command("losetup", "-d", dev).Run()
	})
	return nil
}
