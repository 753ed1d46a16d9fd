package afrspec

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// Span is the events [First, First+Count) of one epoch.
type Span struct {
	Epoch, First, Count uint64
}

// Verification is a verifier report with the epoch layout of the honest log, so
// that a finding that names only an epoch (a Merkle mismatch, a replaced
// header) can be placed at the events it covers.
type Verification struct {
	*verifier.Report
	Spans []Span
}

// Spans reads the epoch layout of a log from its headers.
func Spans(src verifier.Source) ([]Span, error) {
	var out []Span
	err := src.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return nil
		}
		out = append(out, Span{Epoch: t, First: h.FirstSeq, Count: h.Count})
		return nil
	})
	return out, err
}

// epochOf returns the epoch covering seq in the layout, if any.
func (r *Verification) epochOf(seq uint64) (uint64, bool) {
	for _, s := range r.Spans {
		if seq >= s.First && seq < s.First+s.Count {
			return s.Epoch, true
		}
	}
	return 0, false
}

// LogImage returns an in-memory copy of the World's log to tamper with.
// The log on disk is never touched.
func (w *World) LogImage() (*tamper.Image, error) {
	l, err := recorder.OpenLog(w.LogDir)
	if err != nil {
		return nil, err
	}
	return tamper.Load(l)
}

// VerifyImage verifies a (tampered) copy of the log against anchors (nil:
// the World's anchors on chain), at payload level digest. Findings are
// placed with the epoch layout of the World's own log.
func (w *World) VerifyImage(ctx context.Context, img *tamper.Image, anchors verifier.AnchorSource) (*Verification, error) {
	if anchors == nil {
		anchors = w.Anchors()
	}
	rep, err := verifier.VerifyLog(ctx, img, anchors, verifier.Options{})
	if err != nil {
		return nil, err
	}
	return w.verification(rep)
}

// verification places rep's findings with the epoch layout of the World's
// log.
func (w *World) verification(rep *verifier.Report) (*Verification, error) {
	l, err := recorder.OpenLog(w.LogDir)
	if err != nil {
		return nil, err
	}
	spans, err := Spans(l)
	if err != nil {
		return nil, err
	}
	return &Verification{Report: rep, Spans: spans}, nil
}

// describeReport renders a report for failure messages: verdict, counts,
// and the findings (at most 12).
func describeReport(r *verifier.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s (%d events, %d epochs, %d anchored epochs, %d payloads opened)", r.Verdict, r.Events, r.Epochs, r.AnchoredEpochs, r.PayloadsOpened)
	if len(r.Findings) == 0 {
		b.WriteString(", no findings")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d finding(s):", len(r.Findings))
	for i, f := range r.Findings {
		if i == 12 {
			fmt.Fprintf(&b, "\n    … %d more", len(r.Findings)-i)
			break
		}
		fmt.Fprintf(&b, "\n    - %s", f)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "\n    (%d more dropped by MaxFindings)", r.Dropped)
	}
	return b.String()
}

// kindSummary is "merkle_mismatch ×1, chain_break ×2".
func kindSummary(r *verifier.Report) string {
	n := map[verifier.FindingKind]int{}
	var order []verifier.FindingKind
	for _, f := range r.Findings {
		if n[f.Kind] == 0 {
			order = append(order, f.Kind)
		}
		n[f.Kind]++
	}
	if len(order) == 0 {
		return "no findings"
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

func isKnownKind(k verifier.FindingKind) bool {
	for _, x := range verifier.Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

func kindList() string {
	kinds := verifier.Kinds()
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// Index is the verifier's forensic index (verifier.IndexLog).
type Index = verifier.Index
