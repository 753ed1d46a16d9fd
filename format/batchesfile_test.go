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
