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

// Anchor is one epoch root as committed on chain (or by any other party the
// verifier trusts): EpochAnchor.anchor(epoch, root, prevRoot).
type Anchor struct {
	Epoch    uint64        `json:"epoch"`
	Root     format.Digest `json:"root"`
	PrevRoot format.Digest `json:"prev_root"`
	// Where the anchor came from, for reports (e.g. a transaction hash).
	Source string `json:"source,omitempty"`
}

// AnchorSource supplies the anchored roots of one operator. Implementations
// return every anchor they know, in any order; the verifier checks them for
// consistency itself. An error means the anchors could not be read at all
// (unreachable chain, unreadable file), never a verdict.
type AnchorSource interface {
	Anchors(ctx context.Context) ([]Anchor, error)
}

// AnchorList is an in-memory AnchorSource.
type AnchorList []Anchor

// Anchors implements AnchorSource.
func (l AnchorList) Anchors(context.Context) ([]Anchor, error) { return l, nil }

// AnchorsFile is an AnchorSource reading a JSON file: an object
// {"anchors": [{"epoch": 0, "root": "0x…", "prev_root": "0x…"}, …]}
// (docs/SPEC.md, "Anchors file"). A file that breaks those rules is an
// error wrapping ErrAnchorsFile.
type AnchorsFile string

// ErrAnchorsFile is wrapped by the errors of AnchorsFile for a file that is
// not a valid anchors file (unknown or missing fields, malformed digests,
// trailing data).
var ErrAnchorsFile = errors.New("verifier: malformed anchors file")

// Anchors implements AnchorSource.
func (f AnchorsFile) Anchors(context.Context) ([]Anchor, error) {
	b, err := os.ReadFile(string(f))
	if err != nil {
		return nil, err
	}
	as, err := parseAnchors(b)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w (%s)", ErrAnchorsFile, f, err, anchorsFileHint)
	}
	return as, nil
}

// anchorsFileHint ends the errors of a malformed anchors file.
const anchorsFileHint = `want {"anchors": [{"epoch": n, "root": "0x…", "prev_root": "0x…"}, …]}, see docs/SPEC.md "Anchors file"`

// ParseAnchors reads the content of an anchors file (see AnchorsFile), for
// anchors that do not come from a file, such as those a web page is given.
// Content that breaks the format's rules is an error wrapping
// ErrAnchorsFile.
func ParseAnchors(b []byte) ([]Anchor, error) {
	as, err := parseAnchors(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w (%s)", ErrAnchorsFile, err, anchorsFileHint)
	}
	return as, nil
}

func parseAnchors(b []byte) ([]Anchor, error) {
	var doc struct {
		Anchors *[]*struct {
			Epoch    *uint64        `json:"epoch"`
			Root     *format.Digest `json:"root"`
			PrevRoot *format.Digest `json:"prev_root"`
			Source   string         `json:"source"`
		} `json:"anchors"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	if doc.Anchors == nil {
		return nil, errors.New("no \"anchors\" list")
	}
	out := make([]Anchor, len(*doc.Anchors))
	for i, a := range *doc.Anchors {
		if a == nil || a.Epoch == nil || a.Root == nil || a.PrevRoot == nil {
			return nil, fmt.Errorf("anchor %d: epoch, root and prev_root are required", i)
		}
		out[i] = Anchor{Epoch: *a.Epoch, Root: *a.Root, PrevRoot: *a.PrevRoot, Source: a.Source}
	}
	return out, nil
}

// WriteAnchorsFile writes anchors in the format AnchorsFile reads.
func WriteAnchorsFile(path string, anchors []Anchor) error {
	b, err := json.MarshalIndent(struct {
		Anchors []Anchor `json:"anchors"`
	}{anchors}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// AnchorsFromLog returns the anchors an honest operator would have
// committed for the epochs of a log: for tests, demos and local use.
func AnchorsFromLog(src Source) ([]Anchor, error) {
	var out []Anchor
	err := src.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		out = append(out, Anchor{Epoch: t, Root: format.EpochRoot(raw), PrevRoot: h.PrevRoot})
		return nil
	})
	return out, err
}

// anchorIndex checks the anchors for consistency and indexes them by epoch.
// complete says the list holds every anchor of the operator, so a gap in
// it is a finding.
func anchorIndex(anchors []Anchor, complete bool, c *collector) map[uint64]Anchor {
	sorted := append([]Anchor(nil), anchors...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Epoch < sorted[j].Epoch })
	idx := make(map[uint64]Anchor, len(sorted))
	if n := len(sorted); n > 0 && complete {
		// EpochAnchor accepts epoch t only after t−1: a gap means anchors
		// were withheld or the source is not the contract.
		// One finding per gap, however wide (epoch numbers are untrusted).
		var next uint64 // the epoch the anchors should hold next
		for _, a := range sorted {
			if a.Epoch > next {
				what := fmt.Sprintf("epoch %d", next)
				if a.Epoch-next > 1 {
					what = fmt.Sprintf("epochs %d..%d", next, a.Epoch-1)
				}
				c.add(Finding{Kind: KindAnchorConflict, Epoch: u64(next),
					Detail: "the anchors skip " + what + " although later epochs are anchored (EpochAnchor forbids gaps)"})
			}
			if a.Epoch == ^uint64(0) {
				break // the last possible epoch
			}
			next = max(next, a.Epoch+1)
		}
	}
	for _, a := range sorted {
		if prev, ok := idx[a.Epoch]; ok {
			// The same anchor listed twice is one anchor; anything else
			// for the same epoch contradicts it.
			switch {
			case prev.Root != a.Root:
				c.add(Finding{Kind: KindAnchorConflict, Epoch: u64(a.Epoch), Expected: prev.Root.String(), Found: a.Root.String(),
					Detail: "two different roots anchored for one epoch (equivocation by the operator key)"})
			case prev.PrevRoot != a.PrevRoot:
				c.add(Finding{Kind: KindAnchorConflict, Epoch: u64(a.Epoch), Expected: prev.PrevRoot.String(), Found: a.PrevRoot.String(),
					Detail: "one epoch root anchored twice with different back-pointers"})
			}
			continue
		}
		idx[a.Epoch] = a
		if a.Epoch == 0 && !a.PrevRoot.IsZero() {
			c.add(Finding{Kind: KindAnchorConflict, Epoch: u64(0), Expected: format.Digest{}.String(), Found: a.PrevRoot.String(),
				Detail: "the anchor of epoch 0 has a non-zero back-pointer"})
		}
		if p, ok := idx[a.Epoch-1]; ok && a.Epoch > 0 && p.Root != a.PrevRoot {
			c.add(Finding{Kind: KindAnchorConflict, Epoch: u64(a.Epoch), Expected: p.Root.String(), Found: a.PrevRoot.String(),
				Detail: "the anchor's back-pointer is not the previous anchored root"})
		}
	}
	return idx
}
