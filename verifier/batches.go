package verifier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// Batch is one aggregate batch of an operator (docs/SPEC.md, "Aggregate
// batches"): the root anchored as batch Number of the operator's batch
// chain and, when the operator published them, the entries it commits.
type Batch struct {
	Number   uint64
	Root     format.Digest // the anchored batch root
	PrevRoot format.Digest // the root anchored for batch Number − 1 (zero for batch 0)
	// Entries are the batch's contents, nil when they are not available
	// (not published, or withheld). Contents that do not give Root are
	// treated as unavailable.
	Entries []format.BatchEntry
	// Where the batch came from, for reports (e.g. a transaction hash).
	Source string
}

// BatchSource supplies every batch an operator anchored, in any order.
// An error means the batches could not be read at all, never a verdict.
type BatchSource interface {
	Batches(ctx context.Context) ([]Batch, error)
}

// BatchList is an in-memory BatchSource.
type BatchList []Batch

// Batches implements BatchSource.
func (l BatchList) Batches(context.Context) ([]Batch, error) { return l, nil }

// AnchorChecker is an AnchorSource that judges the anchors it derives as
// it reads them (BatchAnchors: withheld batch contents, an epoch in two
// batches). VerifyLog and VerifyBundle use CheckAnchors when a source
// implements it and add its findings to their report.
type AnchorChecker interface {
	AnchorSource
	CheckAnchors(ctx context.Context) (*CheckedAnchors, error)
}

// CheckedAnchors is what an AnchorChecker read.
type CheckedAnchors struct {
	Anchors  []Anchor
	Findings []Finding
	// Partial says that anchors may be missing from Anchors for a reason
	// the findings name (contents not available): a gap in the epochs is
	// then not a conflict, and the findings keep the verdict incomplete.
	Partial bool
}

// BatchAnchors is the AnchorSource of one log anchored in an operator's
// aggregate batches: the entries of log Log, each an Anchor whose Source
// names its batch and position.
//
// EpochAnchor enforces no gap, no rewrite and no fork for the batch chain
// itself; for each log the verifier enforces the same from the batches'
// contents, which is why it needs all of them: a batch whose contents are
// not available could hold a second root for one of this log's epochs, so
// it makes the verdict at best incomplete (batch_withheld). Within the
// available contents, the log's entries must name consecutive epochs in
// batch order, each at most once (anchor_conflict otherwise); gaps,
// back-pointers and epoch 0 are checked with every other anchor.
type BatchAnchors struct {
	Batches BatchSource
	Log     format.Digest
}

// Anchors implements AnchorSource; CheckAnchors also returns the findings.
func (b BatchAnchors) Anchors(ctx context.Context) ([]Anchor, error) {
	ca, err := b.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements AnchorChecker.
func (b BatchAnchors) CheckAnchors(ctx context.Context) (*CheckedAnchors, error) {
	batches, err := b.Batches.Batches(ctx)
	if err != nil {
		return nil, err
	}
	batches = append([]Batch(nil), batches...)
	sort.SliceStable(batches, func(i, j int) bool { return batches[i].Number < batches[j].Number })
	var (
		out      []Anchor
		findings []Finding
		seen     = map[uint64]string{} // epoch → where it was anchored
		next     uint64                // the epoch the log's next entry must name
		started  bool
		expected uint64 // the batch number expected next
		partial  bool
	)
	// unavailable records a batch (or a run of batches) whose contents are
	// unknown: it may hold any number of this log's epochs, so the next
	// entry need not follow the last one seen.
	unavailable := func(f Finding) {
		findings = append(findings, f)
		partial, started = true, false
	}
	conflict := func(epoch uint64, detail string) {
		findings = append(findings, Finding{Kind: KindAnchorConflict, Epoch: u64(epoch), Detail: detail})
	}
	for i, bt := range batches {
		if i > 0 && bt.Number == batches[i-1].Number {
			if bt.Root != batches[i-1].Root {
				findings = append(findings, Finding{Kind: KindAnchorConflict, Expected: batches[i-1].Root.String(), Found: bt.Root.String(),
					Detail: fmt.Sprintf("two roots anchored for batch %d (equivocation by the operator key)", bt.Number)})
			}
			continue
		}
		if bt.Number != expected {
			// EpochAnchor accepts batch b only after b − 1: missing batches
			// could hold this log's epochs.
			unavailable(Finding{Kind: KindBatchWithheld,
				Detail: fmt.Sprintf("batches %d..%d are not among the anchored batches given: an anchor of this log in them cannot be excluded", expected, bt.Number-1)})
		}
		switch {
		case bt.Number == 0 && !bt.PrevRoot.IsZero():
			findings = append(findings, Finding{Kind: KindAnchorConflict, Found: bt.PrevRoot.String(),
				Detail: "batch 0 has a non-zero back-pointer"})
		case i > 0 && batches[i-1].Number == bt.Number-1 && batches[i-1].Root != bt.PrevRoot:
			findings = append(findings, Finding{Kind: KindAnchorConflict, Expected: batches[i-1].Root.String(), Found: bt.PrevRoot.String(),
				Detail: fmt.Sprintf("batch %d's back-pointer is not the root of batch %d", bt.Number, bt.Number-1)})
		}
		expected = bt.Number + 1
		if bt.Entries == nil {
			unavailable(Finding{Kind: KindBatchWithheld,
				Detail: fmt.Sprintf("the contents of batch %d are not available: an anchor of this log in it cannot be excluded", bt.Number)})
			continue
		}
		if root, err := format.BatchRoot(bt.Number, bt.Entries); err != nil || root != bt.Root {
			unavailable(Finding{Kind: KindBatchWithheld, Expected: bt.Root.String(), Found: root.String(),
				Detail: fmt.Sprintf("the published contents of batch %d do not give its anchored root: its real contents are not available", bt.Number)})
			continue
		}
		for j, e := range bt.Entries {
			if e.Log != b.Log {
				continue
			}
			where := fmt.Sprintf("batch %d entry %d", bt.Number, j)
			if bt.Source != "" {
				where += " (" + bt.Source + ")"
			}
			if prev, dup := seen[e.Epoch]; dup {
				conflict(e.Epoch, fmt.Sprintf("epoch %d of this log is anchored twice: in %s and in %s", e.Epoch, prev, where))
				continue
			}
			if started && e.Epoch != next {
				conflict(e.Epoch, fmt.Sprintf("%s anchors epoch %d of this log where epoch %d comes next: the batches skip or reorder its epochs", where, e.Epoch, next))
			}
			seen[e.Epoch] = where
			started, next = true, e.Epoch+1
			out = append(out, Anchor{Epoch: e.Epoch, Root: e.Root, PrevRoot: e.PrevRoot, Source: where})
		}
	}
	return &CheckedAnchors{Anchors: out, Findings: findings, Partial: partial}, nil
}

// readAnchors reads the anchors of src, adding the findings of an
// AnchorChecker to c. complete says that a gap in the anchors' epochs is a
// conflict (false when the source says anchors may be missing).
func readAnchors(ctx context.Context, src AnchorSource, c *collector) (as []Anchor, complete bool, err error) {
	if src == nil {
		return nil, true, nil
	}
	if ac, ok := src.(AnchorChecker); ok {
		ca, err := ac.CheckAnchors(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("verifier: reading anchors: %w", err)
		}
		for _, f := range ca.Findings {
			c.add(f)
		}
		return ca.Anchors, !ca.Partial, nil
	}
	if as, err = src.Anchors(ctx); err != nil {
		return nil, false, fmt.Errorf("verifier: reading anchors: %w", err)
	}
	return as, true, nil
}

// BatchesFile is a BatchSource reading a batches file: JSON lines, one
// batch per line, {"batch": b, "root": "0x…", "prev_root": "0x…",
// "entries": [{"log": "0x…", "epoch": t, "root": "0x…", "prev_root":
// "0x…"}, …]} (docs/SPEC.md, "Batches file"). The operator's anchorer
// appends a line before it submits the batch, so a file may hold batches
// that were never anchored, or two lines for one batch number after a
// crash; a reader of the chain keeps the line whose root was anchored
// (see ParseBatches). A file that breaks the format is an error wrapping
// ErrBatchesFile.
type BatchesFile string

// ErrBatchesFile is wrapped by the errors of a malformed batches file.
var ErrBatchesFile = errors.New("verifier: malformed batches file")

// Batches implements BatchSource: every batch in the file, taken as
// anchored. Use it for batches whose roots come from a trusted copy;
// verifier/onchain reads the anchored roots from the chain and the
// contents from this file.
func (f BatchesFile) Batches(context.Context) ([]Batch, error) {
	b, err := os.ReadFile(string(f))
	if err != nil {
		return nil, err
	}
	bs, err := ParseBatches(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
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
		if len(bytes.TrimSpace(line)) == 0 {
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

const batchesFileHint = `want one {"batch": b, "root": "0x…", "prev_root": "0x…", "entries": [{"log": "0x…", "epoch": t, "root": "0x…", "prev_root": "0x…"}, …]} per line, see docs/SPEC.md "Batches file"`

func parseBatchLine(line []byte) (Batch, error) {
	var doc struct {
		Batch    *uint64        `json:"batch"`
		Root     *format.Digest `json:"root"`
		PrevRoot *format.Digest `json:"prev_root"`
		Entries  []*struct {
			Log      *format.Digest `json:"log"`
			Epoch    *uint64        `json:"epoch"`
			Root     *format.Digest `json:"root"`
			PrevRoot *format.Digest `json:"prev_root"`
		} `json:"entries"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return Batch{}, err
	}
	if _, err := d.Token(); err != io.EOF {
		return Batch{}, errors.New("data after the object")
	}
	if doc.Batch == nil || doc.Root == nil || doc.PrevRoot == nil {
		return Batch{}, errors.New("batch, root and prev_root are required")
	}
	if len(doc.Entries) == 0 || len(doc.Entries) > format.MaxBatchEntries {
		return Batch{}, fmt.Errorf("batch %d: %d entries (want 1..%d)", *doc.Batch, len(doc.Entries), format.MaxBatchEntries)
	}
	bt := Batch{Number: *doc.Batch, Root: *doc.Root, PrevRoot: *doc.PrevRoot, Entries: make([]format.BatchEntry, len(doc.Entries))}
	for i, e := range doc.Entries {
		if e == nil || e.Log == nil || e.Epoch == nil || e.Root == nil || e.PrevRoot == nil {
			return Batch{}, fmt.Errorf("batch %d entry %d: log, epoch, root and prev_root are required", bt.Number, i)
		}
		bt.Entries[i] = format.BatchEntry{Log: *e.Log, Epoch: *e.Epoch, Root: *e.Root, PrevRoot: *e.PrevRoot}
	}
	if root, _ := format.BatchRoot(bt.Number, bt.Entries); root != bt.Root {
		return Batch{}, fmt.Errorf("batch %d: root %s is not the root of its entries (%s)", bt.Number, bt.Root, root)
	}
	return bt, nil
}

// AppendBatch appends one batch as a line of a batches file and syncs it,
// so the contents are durable before the batch is anchored.
func AppendBatch(path string, number uint64, prevRoot format.Digest, entries []format.BatchEntry) (format.Digest, error) {
	root, err := format.BatchRoot(number, entries)
	if err != nil {
		return format.Digest{}, err
	}
	line, err := json.Marshal(struct {
		Batch    uint64              `json:"batch"`
		Root     format.Digest       `json:"root"`
		PrevRoot format.Digest       `json:"prev_root"`
		Entries  []format.BatchEntry `json:"entries"`
	}{number, root, prevRoot, entries})
	if err != nil {
		return format.Digest{}, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return format.Digest{}, err
	}
	if _, err = f.Write(append(line, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return root, err
}
