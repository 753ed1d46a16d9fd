package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// The adversarial test damages the files of an honest log on disk — bit
// flips, truncations, deleted, swapped and duplicated segment files and
// frames, foreign headers, rollbacks, MANIFEST and key edits — and runs
// `afr verify` on each copy. It asserts the verifier's three promises: a
// change to what the log protects is never verified, an honest log is never
// called tampered, and a damaged log always gets a verdict (exit 0, 3 or 4),
// never exit 1.

// advLog records a deterministic encrypted log of n events in a new
// directory and returns it: epochs of 16 events, segment files of 4 KiB, so
// every stream spans several files.
func advLog(t *testing.T, n int, session format.SessionID) string {
	t.Helper()
	clock := time.Unix(1_700_000_000, 0)
	return logtest.Write(t, recorder.Options{Recorder: "adversary-test", Session: session, Encrypt: true,
		EpochSize: 16, SegmentSize: 4 << 10, Sync: recorder.SyncNone,
		Now:  func() time.Time { clock = clock.Add(time.Millisecond); return clock },
		Rand: rand.NewChaCha8([32]byte{7})}, workload.Generate(42, n)).Dir
}

// verifyExit runs `afr verify` in-process and returns its exit code and
// output.
func verifyExit(args ...string) (int, string) {
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, append([]string{"verify"}, args...))
	return code, out.String() + errOut.String()
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// segFiles lists the segment files of a stream, in stream order.
func segFiles(t *testing.T, dir, stream string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(dir, stream, stream+"-*.seg"))
	if err != nil || len(fs) == 0 {
		t.Fatalf("no %s segment files: %v", stream, err)
	}
	sort.Strings(fs)
	return fs
}

// frameSpans returns the [start, end) byte ranges of the frames of a
// segment file (16-byte header, then u32 length ‖ u32 CRC ‖ data).
func frameSpans(b []byte) [][2]int {
	var out [][2]int
	for off := 16; off+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[off:]))
		end := off + 8 + n
		if n == 0 || end > len(b) {
			break
		}
		out = append(out, [2]int{off, end})
		off = end
	}
	return out
}

// A mutation changes a copy of the log (in dir) and says what it did.
type mutation func(t *testing.T, rng *rand.Rand, dir string) string

var streams = []string{"records", "payloads", "epochs"}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Changes to what the log protects: each must never verify.
var protectedMutations = map[string]mutation{
	"bit flip": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		var off, bit int
		rewrite(t, f, func(b []byte) []byte {
			off, bit = rng.IntN(len(b)), rng.IntN(8)
			b[off] ^= 1 << bit
			return b
		})
		return fmt.Sprintf("%s byte %d bit %d", filepath.Base(f), off, bit)
	},
	"truncate": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		var at int
		rewrite(t, f, func(b []byte) []byte { at = rng.IntN(len(b)); return b[:at] })
		return fmt.Sprintf("%s cut at %d", filepath.Base(f), at)
	},
	"delete segment file": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		return filepath.Base(f)
	},
	"swap segment files": func(t *testing.T, rng *rand.Rand, dir string) string {
		fs := segFiles(t, dir, pick(rng, []string{"records", "payloads"}))
		i := rng.IntN(len(fs) - 1)
		a, _ := os.ReadFile(fs[i])
		b, _ := os.ReadFile(fs[i+1])
		os.WriteFile(fs[i], b, 0o600)
		os.WriteFile(fs[i+1], a, 0o600)
		return fmt.Sprintf("%s <-> %s", filepath.Base(fs[i]), filepath.Base(fs[i+1]))
	},
	"duplicate segment file": func(t *testing.T, rng *rand.Rand, dir string) string {
		fs := segFiles(t, dir, pick(rng, []string{"records", "payloads"})) // several files each
		i := rng.IntN(len(fs))
		j := (i + 1 + rng.IntN(len(fs)-1)) % len(fs)
		b, _ := os.ReadFile(fs[i])
		os.WriteFile(fs[j], b, 0o600)
		return fmt.Sprintf("%s copied over %s", filepath.Base(fs[i]), filepath.Base(fs[j]))
	},
	"delete frame": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		var k int
		rewrite(t, f, func(b []byte) []byte {
			sp := frameSpans(b)
			k = rng.IntN(len(sp))
			return append(append([]byte{}, b[:sp[k][0]]...), b[sp[k][1]:]...)
		})
		return fmt.Sprintf("%s frame %d", filepath.Base(f), k)
	},
	"duplicate frame": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		var k int
		rewrite(t, f, func(b []byte) []byte {
			sp := frameSpans(b)
			k = rng.IntN(len(sp))
			out := append([]byte{}, b[:sp[k][1]]...)
			out = append(out, b[sp[k][0]:sp[k][1]]...)
			return append(out, b[sp[k][1]:]...)
		})
		return fmt.Sprintf("%s frame %d", filepath.Base(f), k)
	},
	"swap frames": func(t *testing.T, rng *rand.Rand, dir string) string {
		f := pick(rng, segFiles(t, dir, pick(rng, streams)))
		var k int
		rewrite(t, f, func(b []byte) []byte {
			sp := frameSpans(b)
			if len(sp) < 2 {
				k = -1
				b[len(b)-1] ^= 1 // a file of one frame: damage it instead
				return b
			}
			k = rng.IntN(len(sp) - 1)
			out := append([]byte{}, b[:sp[k][0]]...)
			out = append(out, b[sp[k+1][0]:sp[k+1][1]]...)
			out = append(out, b[sp[k][0]:sp[k][1]]...)
			return append(out, b[sp[k+1][1]:]...)
		})
		return fmt.Sprintf("%s frames %d and %d", filepath.Base(f), k, k+1)
	},
}

// TestAdversarialOnDisk: the honest log verifies at every level; every
// damaged copy gets a verdict, never "verified" for a protected change and
// never exit 1; edits of what is not evidence (MANIFEST, keys) never make
// an honest log tampered.
func TestAdversarialOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("records and verifies a few hundred copies of a log")
	}
	base := t.TempDir()
	honest := advLog(t, 300, format.SessionID{1})
	l, err := recorder.OpenLog(honest)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	anchorsFile := filepath.Join(base, "anchors.json")
	if err := format.WriteAnchorsFile(anchorsFile, anchors); err != nil {
		t.Fatal(err)
	}
	keysCopy := filepath.Join(base, "keys")
	copyDir(t, filepath.Join(honest, "keys"), keysCopy)
	levels := map[string][]string{
		"digest": {"--anchors", anchorsFile},
		"open":   {"--anchors", anchorsFile, "--level", "open", "--keys", keysCopy},
	}
	for name, args := range levels {
		if code, out := verifyExit(append([]string{"--log", honest}, args...)...); code != 0 {
			t.Fatalf("honest log, level %s: exit %d\n%s", name, code, out)
		}
	}

	// Another session's log, and a rolled-back one: a prefix of the same
	// session, recorded deterministically.
	foreign := advLog(t, 300, format.SessionID{2})
	rolled := advLog(t, 150, format.SessionID{1})

	rng := rand.New(rand.NewPCG(42, 14))
	names := make([]string, 0, len(protectedMutations))
	for n := range protectedMutations {
		names = append(names, n)
	}
	sort.Strings(names)
	check := func(t *testing.T, dir, what string, allowed ...int) {
		t.Helper()
		for name, args := range levels {
			code, out := verifyExit(append([]string{"--log", dir}, args...)...)
			ok := false
			for _, a := range allowed {
				ok = ok || code == a
			}
			if !ok {
				t.Errorf("%s, level %s: exit %d, want one of %v\n%s", what, name, code, allowed, out)
			}
		}
	}
	for i := 0; i < 40; i++ {
		for _, name := range names {
			dir := filepath.Join(base, fmt.Sprintf("m%d-%s", i, strings.ReplaceAll(name, " ", "-")))
			copyDir(t, honest, dir)
			what := name + ": " + protectedMutations[name](t, rng, dir)
			check(t, dir, what, exitTampered, exitIncomplete)
			os.RemoveAll(dir)
		}
	}
	for name, from := range map[string]string{"foreign epoch headers": foreign, "rolled-back log": rolled} {
		dir := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		copyDir(t, honest, dir)
		stream := "epochs"
		if from == rolled {
			stream = "" // the whole log
		}
		os.RemoveAll(filepath.Join(dir, stream))
		copyDir(t, filepath.Join(from, stream), filepath.Join(dir, stream))
		check(t, dir, name, exitTampered, exitIncomplete)
	}

	// An honest crash while the last epoch was open: its header was never
	// written (nor anchored) and the last record is torn. Never tampered.
	crash := filepath.Join(base, "crash")
	copyDir(t, honest, crash)
	last := segFiles(t, crash, "records")
	rewrite(t, last[len(last)-1], func(b []byte) []byte { return b[:len(b)-3] })
	epochs := segFiles(t, crash, "epochs")
	rewrite(t, epochs[len(epochs)-1], func(b []byte) []byte { sp := frameSpans(b); return b[:sp[len(sp)-1][0]] })
	// The durable mark a crash leaves lags what was cut (the honest log was
	// closed, which made all of it durable): here, the first mark written.
	if err := os.WriteFile(filepath.Join(crash, recorder.MarkFile), format.EncodeMarkFile(format.Mark{}), 0o600); err != nil {
		t.Fatal(err)
	}
	crashAnchors := filepath.Join(base, "crash-anchors.json")
	if err := format.WriteAnchorsFile(crashAnchors, anchors[:len(anchors)-1]); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{"digest": {}, "open": {"--level", "open", "--keys", keysCopy}} {
		if code, out := verifyExit(append([]string{"--log", crash, "--anchors", crashAnchors}, args...)...); code != exitIncomplete {
			t.Errorf("torn record of an unsealed epoch (a crash), level %s: exit %d, want %d\n%s", name, code, exitIncomplete, out)
		}
	}

	// Edits of what is not evidence: the MANIFEST and the key directory.
	// Never exit 1, never tampered for the keys (the log itself is honest).
	for name, edit := range map[string]func(dir string){
		"manifest deleted":  func(dir string) { os.Remove(filepath.Join(dir, "MANIFEST")) },
		"manifest garbage":  func(dir string) { os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("{not json"), 0o600) },
		"manifest session":  func(dir string) { editManifest(t, dir, "session", strings.Repeat("ab", 16)) },
		"manifest recorder": func(dir string) { editManifest(t, dir, "recorder", "someone-else") },
	} {
		dir := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		copyDir(t, honest, dir)
		edit(dir)
		check(t, dir, name, exitTampered, exitIncomplete)
	}
	for name, edit := range map[string]func(keys string){
		"key directory deleted": func(keys string) { os.RemoveAll(keys) },
		"master key mode 0644":  func(keys string) { os.Chmod(filepath.Join(keys, "master.key"), 0o644) },
		"salts file deleted":    func(keys string) { os.Remove(filepath.Join(keys, "epoch-salts")) },
		"one salt erased": func(keys string) {
			rewrite(t, filepath.Join(keys, "epoch-salts"), func(b []byte) []byte { copy(b[3*32:4*32], make([]byte, 32)); return b })
		},
	} {
		keys := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		copyDir(t, keysCopy, keys)
		edit(keys)
		code, out := verifyExit("--log", honest, "--anchors", anchorsFile, "--level", "open", "--keys", keys)
		if code != 0 && code != exitIncomplete {
			t.Errorf("%s: exit %d, want a verdict that is not tampered (0 or %d)\n%s", name, code, exitIncomplete, out)
		}
		if _, err := os.Stat(filepath.Join(keys, "epoch-salts")); name == "salts file deleted" && err == nil {
			t.Errorf("%s: verify created keys/epoch-salts; a verifier never writes", name)
		}
	}
}

// editManifest sets one string field of a log's MANIFEST.
func editManifest(t *testing.T, dir, field, value string) {
	t.Helper()
	rewrite(t, filepath.Join(dir, "MANIFEST"), func(b []byte) []byte {
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), fmt.Sprintf("%q:", field)) {
				l = fmt.Sprintf("  %q: %q,", field, value)
			}
			lines = append(lines, l)
		}
		return []byte(strings.Join(lines, "\n"))
	})
}
