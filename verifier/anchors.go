package verifier

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// AnchorSource supplies the anchored roots of one operator. Implementations
// return every anchor they know, in any order; the verifier checks them for
// consistency itself. An error means the anchors could not be read at all
// (unreachable chain, unreadable file), never a verdict.
type AnchorSource interface {
	Anchors(ctx context.Context) ([]format.Anchor, error)
}

// AnchorList is an in-memory AnchorSource.
type AnchorList []format.Anchor

// Anchors implements AnchorSource.
func (l AnchorList) Anchors(context.Context) ([]format.Anchor, error) { return l, nil }

// AnchorsFile is an AnchorSource reading an anchors file
// (format.ReadAnchorsFile; docs/SPEC.md, "Anchors file"). A file that
// breaks the format's rules is an error wrapping format.ErrAnchorsFile.
type AnchorsFile string

// Anchors implements AnchorSource.
func (f AnchorsFile) Anchors(context.Context) ([]format.Anchor, error) {
	return format.ReadAnchorsFile(string(f))
}

// AnchorsFromLog returns the anchors an honest operator would have
// committed for the epochs of a log: for tests, demos and local use.
func AnchorsFromLog(src Source) ([]format.Anchor, error) {
	var out []format.Anchor
	err := src.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		out = append(out, format.Anchor{Epoch: t, Root: format.EpochRoot(raw), PrevRoot: h.PrevRoot})
		return nil
	})
	return out, err
}

// anchorIndex checks the anchors for consistency and indexes them by epoch.
// complete says the list holds every anchor of the operator, so a gap in
// it is a finding.
func anchorIndex(anchors []format.Anchor, complete bool, c *collector) map[uint64]format.Anchor {
	sorted := append([]format.Anchor(nil), anchors...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Epoch < sorted[j].Epoch })
	idx := make(map[uint64]format.Anchor, len(sorted))
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
