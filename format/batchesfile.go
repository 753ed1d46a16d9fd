package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Batch is one aggregate batch of an operator (docs/SPEC.md, "Aggregate
// batches"): the root anchored as batch Number of the operator's batch
// chain and, when the operator published them, the entries it commits. A
// line of a batches file is one Batch with its entries.
type Batch struct {
	Number   uint64
	Root     Digest // the anchored batch root
	PrevRoot Digest // the root anchored for batch Number − 1 (zero for batch 0)
	// Entries are the batch's contents, nil when they are not available
	// (not published, or withheld). Contents that do not give Root are
	// treated as unavailable.
	Entries []BatchEntry
	// Where the batch came from, for reports (e.g. a transaction hash); not
	// part of the batches file.
	Source string
}

// ErrBatchesFile is wrapped by the errors of a malformed batches file.
var ErrBatchesFile = errors.New("format: malformed batches file")

const batchesFileHint = `want one {"batch": b, "root": "0x…", "prev_root": "0x…", "entries": [{"log": "0x…", "epoch": t, "root": "0x…", "prev_root": "0x…"}, …]} per line, see docs/SPEC.md "Batches file"`

// ReadBatchesFile reads a batches file: JSON lines, one batch per line,
// {"batch": b, "root": "0x…", "prev_root": "0x…", "entries": [{"log":
// "0x…", "epoch": t, "root": "0x…", "prev_root": "0x…"}, …]} (docs/SPEC.md,
// "Batches file"), as ParseBatches does. The operator's anchorer appends a
// line before it submits the batch (AppendBatch), so a file may hold
// batches that were never anchored, or two lines for one batch number
// after a crash; a reader of the chain keeps the line whose root was
// anchored. A file that breaks the format is an error wrapping
// ErrBatchesFile.
func ReadBatchesFile(path string) ([]Batch, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bs, err := ParseBatches(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bs, nil
}

// ParseBatches reads the content of a batches file. Each batch's root is
// checked against its entries: a line whose root is not the BatchRoot of
// its entries is malformed, and any malformed line makes the file invalid.
// A malformed final line without a newline is a torn write and is ignored.
func ParseBatches(b []byte) ([]Batch, error) {
	bs, errs := ScanBatches(b)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return bs, nil
}

// ScanBatches reads the well-formed lines of a batches file and returns
// the errors of the malformed ones (each wrapping ErrBatchesFile and
// naming its line), for a reader that needs only some batches — those
// whose roots were anchored — and treats a damaged line as contents it
// does not have. A torn final line is neither.
func ScanBatches(b []byte) ([]Batch, []error) {
	var (
		out  []Batch
		errs []error
	)
	lines := bytes.Split(b, []byte("\n"))
	for n, line := range lines {
		if BlankLine(line) {
			continue
		}
		bt, err := parseBatchLine(line)
		if err != nil && n == len(lines)-1 {
			// A final line without its newline is a write torn by a crash:
			// it was never synced, so never anchored.
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: line %d: %w (%s)", ErrBatchesFile, n+1, err, batchesFileHint))
			continue
		}
		out = append(out, bt)
	}
	return out, errs
}

func parseBatchLine(line []byte) (Batch, error) {
	var doc struct {
		Batch    *uint64 `json:"batch"`
		Root     *Digest `json:"root"`
		PrevRoot *Digest `json:"prev_root"`
		Entries  []*struct {
			Log      *Digest `json:"log"`
			Epoch    *uint64 `json:"epoch"`
			Root     *Digest `json:"root"`
			PrevRoot *Digest `json:"prev_root"`
		} `json:"entries"`
	}
	if err := decodeJSONObject(line, &doc); err != nil {
		return Batch{}, err
	}
	if doc.Batch == nil || doc.Root == nil || doc.PrevRoot == nil {
		return Batch{}, errors.New("batch, root and prev_root are required")
	}
	if len(doc.Entries) == 0 || len(doc.Entries) > MaxBatchEntries {
		return Batch{}, fmt.Errorf("batch %d: %d entries (want 1..%d)", *doc.Batch, len(doc.Entries), MaxBatchEntries)
	}
	bt := Batch{Number: *doc.Batch, Root: *doc.Root, PrevRoot: *doc.PrevRoot, Entries: make([]BatchEntry, len(doc.Entries))}
	for i, e := range doc.Entries {
		if e == nil || e.Log == nil || e.Epoch == nil || e.Root == nil || e.PrevRoot == nil {
			return Batch{}, fmt.Errorf("batch %d entry %d: log, epoch, root and prev_root are required", bt.Number, i)
		}
		bt.Entries[i] = BatchEntry{Log: *e.Log, Epoch: *e.Epoch, Root: *e.Root, PrevRoot: *e.PrevRoot}
	}
	if root, _ := BatchRoot(bt.Number, bt.Entries); root != bt.Root {
		return Batch{}, fmt.Errorf("batch %d: root %s is not the root of its entries (%s)", bt.Number, bt.Root, root)
	}
	return bt, nil
}

// AppendBatch appends one batch as a line of the batches file at path and
// syncs it, so the contents are durable before the batch is anchored. It
// returns the batch's root.
func AppendBatch(path string, number uint64, prevRoot Digest, entries []BatchEntry) (Digest, error) {
	root, err := BatchRoot(number, entries)
	if err != nil {
		return Digest{}, err
	}
	line, err := json.Marshal(struct {
		Batch    uint64       `json:"batch"`
		Root     Digest       `json:"root"`
		PrevRoot Digest       `json:"prev_root"`
		Entries  []BatchEntry `json:"entries"`
	}{number, root, prevRoot, entries})
	if err != nil {
		return Digest{}, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return Digest{}, err
	}
	if _, err = f.Write(append(line, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return root, err
}
