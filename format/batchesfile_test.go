package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// The batches file round-trips through AppendBatch and ReadBatchesFile; a
// torn last line is ignored, a damaged earlier line is an error naming its
// line, and ScanBatches keeps the lines around it.
func TestBatchesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "batches.jsonl")
	es := testEntries(6)
	var (
		want []Batch
		prev Digest
	)
	for b := range 3 {
		entries := es[2*b : 2*b+2]
		root, err := AppendBatch(path, uint64(b), prev, entries)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Batch{Number: uint64(b), Root: root, PrevRoot: prev, Entries: entries})
		prev = root
	}
	got, err := ReadBatchesFile(path)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v (%v), want %+v", got, err, want)
	}
	raw, _ := os.ReadFile(path)
	torn := append(slices.Clone(raw), `{"batch": 3, "root": "0x`...)
	if bs, err := ParseBatches(torn); err != nil || len(bs) != 3 {
		t.Fatalf("torn tail: %d batches, %v", len(bs), err)
	}
	damaged := slices.Clone(raw)
	damaged[bytes.IndexByte(raw, '\n')+10] = '#' // in line 2
	if _, err := ParseBatches(damaged); !errors.Is(err, ErrBatchesFile) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a damaged line 2: %v, want ErrBatchesFile naming line 2", err)
	}
	bs, errs := ScanBatches(damaged)
	if len(bs) != 2 || bs[0].Number != 0 || bs[1].Number != 2 || len(errs) != 1 {
		t.Fatalf("ScanBatches of a damaged line 2: batches %+v, errors %v", bs, errs)
	}
	wrongRoot := strings.Replace(string(raw[:bytes.IndexByte(raw, '\n')+1]), want[0].Root.String()[2:], Digest{9}.String()[2:], 1)
	if _, err := ParseBatches([]byte(wrongRoot)); !errors.Is(err, ErrBatchesFile) || !strings.Contains(err.Error(), "not the root of its entries") {
		t.Fatalf("a line whose root is not its entries': %v", err)
	}
}

// A line holding only Unicode spaces (U+00A0, U+0085) is a malformed
// line, not a blank one: JSON's white space is space, tab, LF and CR, and
// a reader of JSON lines refuses it. Before, bytes.TrimSpace made it blank.
func TestBatchesFileUnicodeSpaceLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "batches.jsonl")
	if _, err := AppendBatch(path, 0, Digest{}, testEntries(2)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for _, sp := range []string{"\u00a0", "\u0085", " \u00a0\t"} {
		if bs, err := ParseBatches(append([]byte(sp+"\n"), raw...)); !errors.Is(err, ErrBatchesFile) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q line: read %d batches (%v), want ErrBatchesFile naming line 1", sp, len(bs), err)
		}
	}
	if bs, err := ParseBatches(append([]byte(" \t\r\n"), raw...)); err != nil || len(bs) != 1 {
		t.Errorf("a line of JSON white space: %d batches, %v; want it skipped", len(bs), err)
	}
}

// A line of the batches file is read as every reader reads it (docs/SPEC.md,
// "Reading JSON"): a name given twice, or in two spellings equal under case
// folding, is refused. Before, the last one won.
func TestBatchesFileRefusesEqualNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "batches.jsonl")
	es := testEntries(2)
	if _, err := AppendBatch(path, 0, Digest{}, es); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	line := strings.TrimSuffix(string(raw), "\n")
	for name, l := range map[string]string{
		"duplicate-batch":   `{"batch":7,` + line[1:],
		"case-folded-batch": `{"BATCH":7,` + line[1:],
		"duplicate-root":    `{"root":"0x` + strings.Repeat("22", 32) + `",` + line[1:],
		"folded-entry-name": strings.Replace(line, `"epoch":`, `"Epoch":9,"epoch":`, 1),
	} {
		if bs, err := ParseBatches([]byte(l + "\n")); !errors.Is(err, ErrBatchesFile) {
			t.Errorf("%s: read %+v (%v), want ErrBatchesFile", name, bs, err)
		}
	}
}

// FuzzParseBatches: no input makes the reader panic; every line holding
// more than JSON's white space is a batch whose root is its entries' or an
// error, but for a torn last line; only JSON's white space makes a line
// blank.
func FuzzParseBatches(f *testing.F) {
	path := filepath.Join(f.TempDir(), "batches.jsonl")
	root, err := AppendBatch(path, 0, Digest{}, testEntries(2))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := AppendBatch(path, 1, root, testEntries(3)[2:]); err != nil {
		f.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	f.Add(raw)
	f.Add(append([]byte("\u00a0\n \r\n"), raw...))
	f.Add(raw[:len(raw)-20])
	f.Fuzz(func(t *testing.T, b []byte) {
		bs, errs := ScanBatches(b)
		lines := bytes.Split(b, []byte("\n"))
		n := 0
		for _, l := range lines {
			if len(strictjson.TrimSpace(l)) > 0 {
				n++
			}
		}
		if got := len(bs) + len(errs); got != n && (got != n-1 || len(strictjson.TrimSpace(lines[len(lines)-1])) == 0) {
			t.Fatalf("%d batches and %d errors for %d lines", len(bs), len(errs), n)
		}
		for _, bt := range bs {
			if r, err := BatchRoot(bt.Number, bt.Entries); err != nil || r != bt.Root {
				t.Fatalf("batch %d: root %s, entries give %s (%v)", bt.Number, bt.Root, r, err)
			}
		}
	})
}
