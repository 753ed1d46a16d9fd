package recorder_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// TestCrashRecovery kills a child process that is recording a write storm
// (four goroutines, SIGKILL at a random moment) over and over on the same
// store, and checks after every kill that the store reopens, that every
// event the child had acknowledged is present with the same digest, and
// that the chain and epochs are intact.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv("AFR_CRASH_CHILD") != "" {
		crashChild()
		return
	}
	kills := 100
	if testing.Short() {
		kills = 20
	}
	policies := []string{"write", "group", "event"}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	acked := map[uint64]string{} // seq -> digest hex
	repaired := 0
	for i := 0; i < kills; i++ {
		policy := policies[i%len(policies)]
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashRecovery$")
		cmd.Env = append(os.Environ(), "AFR_CRASH_CHILD="+dir, "AFR_CRASH_POLICY="+policy, "AFR_CRASH_SEED="+strconv.Itoa(i))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan []string)
		first := make(chan struct{}) // closed at the child's first acknowledgement (or its end)
		go func() {
			var got []string
			acked := false
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				got = append(got, sc.Text())
				if !acked && len(strings.Fields(sc.Text())) == 2 {
					acked = true
					close(first)
				}
			}
			if !acked {
				close(first)
			}
			lines <- got
		}()
		// Kill only once the child has created the log and acknowledged an
		// event (on a loaded machine that can take longer than any fixed
		// delay); the delay after it only varies where the kill lands.
		<-first
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		got := <-lines
		cmd.Wait()
		for _, l := range got {
			f := strings.Fields(l)
			if len(f) != 2 || f[0] == "" {
				continue // a line cut by the kill
			}
			seq, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil || len(f[1]) != 66 {
				continue
			}
			acked[seq] = f[1]
		}

		r, err := recorder.Open(dir, recorder.Options{EpochSize: 16})
		if err != nil {
			t.Fatalf("kill %d (%s): reopen: %v", i, policy, err)
		}
		if !r.Recovery().Clean() {
			repaired++
		}
		if err := r.Close(); err != nil {
			t.Fatalf("kill %d: close: %v", i, err)
		}
		envs := readAll(t, dir)
		l, _ := recorder.OpenLog(dir)
		digests := map[uint64]string{}
		l.Records(func(seq uint64, raw []byte) error {
			digests[seq] = format.RecordDigest(raw).String()
			return nil
		})
		for seq, d := range acked {
			if digests[seq] != d {
				t.Fatalf("kill %d (%s): acknowledged event %d lost or changed (have %q, acked %s); log has %d events", i, policy, seq, digests[seq], d, len(envs))
			}
		}
		checkEpochs(t, l, uint64(len(envs)))
	}
	if len(acked) < kills {
		t.Fatalf("only %d events acknowledged over %d runs: the storm did not run", len(acked), kills)
	}
	t.Logf("%d kills, %d acknowledged events, all present; %d reopens cut unacknowledged writes", kills, len(acked), repaired)
}

// checkEpochs checks that the epoch headers tile the log, link by root, and
// match the records' Merkle roots.
func checkEpochs(t *testing.T, l *recorder.Log, n uint64) {
	t.Helper()
	var digests []format.Digest
	l.Records(func(_ uint64, raw []byte) error {
		digests = append(digests, format.RecordDigest(raw))
		return nil
	})
	var next uint64
	var prev format.Digest
	err := l.Epochs(func(i uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		if h.Epoch != i || h.FirstSeq != next || h.PrevRoot != prev {
			return fmt.Errorf("epoch %d does not continue the epoch chain: %+v", i, h)
		}
		if format.MerkleRoot(digests[h.FirstSeq:h.FirstSeq+h.Count]) != h.MerkleRoot {
			return fmt.Errorf("epoch %d: Merkle root mismatch", i)
		}
		next = h.FirstSeq + h.Count
		prev = format.EpochRoot(raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != n {
		t.Fatalf("epochs cover %d events, log has %d (Close seals everything)", next, n)
	}
}

// crashChild records until killed, printing "seq digest" for each
// acknowledged event.
func crashChild() {
	policy, err := recorder.ParseSyncPolicy(os.Getenv("AFR_CRASH_POLICY"))
	if err != nil {
		panic(err)
	}
	seed, _ := strconv.Atoi(os.Getenv("AFR_CRASH_SEED"))
	r, err := recorder.Open(os.Getenv("AFR_CRASH_CHILD"), recorder.Options{Recorder: "crash", Encrypt: true, EpochSize: 16, Sync: policy})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			gen := workload.New(uint64(seed*10 + g))
			for {
				rc, err := r.Record(context.Background(), gen.Next())
				if err != nil {
					fmt.Fprintln(os.Stderr, "child:", err)
					os.Exit(3)
				}
				mu.Lock()
				fmt.Fprintf(w, "%d %s\n", rc.Seq, rc.Digest)
				w.Flush() // the parent must see every acknowledgement
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
}
