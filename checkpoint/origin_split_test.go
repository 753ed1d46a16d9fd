package checkpoint_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// A witness keeps one latest checkpoint per origin. An operator that
// registers two origins for one log ("a.example/<id>" and "b.example/<id>")
// could get a fork cosigned by the same witnesses — each witness sees two
// unrelated logs, each consistent with itself — and show one branch to each
// verifier. The verifier therefore accepts exactly one origin per log
// (Policy.OriginPrefix). (Found by an outside review: both branches
// verified before.)
func TestOriginPrefixSplitView(t *testing.T) {
	lg := makeLog(t, 80, 10, 5)
	op, w := newKey(t, 1, "example.com/operator"), newKey(t, 2, "w.example")
	p := policy(t, op, 1, w)
	forkImg := lg.img.Clone()
	if err := forkImg.Fork(23); err != nil { // rewrites epochs 2 … 7
		t.Fatal(err)
	}
	forkLeaves := leavesOf(t, forkImg)
	pub := func(prefix string, leaves []format.Anchor) checkpoint.Published {
		origin, err := checkpoint.Origin(prefix, lg.id)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := checkpoint.Sign(origin, checkpoint.Roots(leaves), op.signer)
		if err != nil {
			t.Fatal(err)
		}
		return checkpoint.Published{Name: origin, Note: cosign(t, cp, witnessSigner(t, w)), Leaves: leaves}
	}
	honest, forked := pub("a.example", lg.leaves), pub("b.example", forkLeaves)
	// A verifier accepts one origin per log: the operator's declared prefix
	// (here a.example); the other origin's checkpoint is refused, so the
	// fork under it verifies nothing.
	p.OriginPrefix = "a.example"
	if rep := verify(t, lg.img, checkpoint.Anchors{Checkpoints: []checkpoint.Published{honest}, Policy: p, LogID: lg.id}); rep.Verdict != verifier.Verified {
		t.Fatalf("the honest branch under the accepted origin: %s %v", rep.Verdict, rep.Findings)
	}
	_, err := verifier.VerifyLog(context.Background(), forkImg, checkpoint.Anchors{Checkpoints: []checkpoint.Published{forked}, Policy: p, LogID: lg.id}, verifier.Options{})
	var oe *checkpoint.OriginError
	if !errors.Is(err, checkpoint.ErrPolicy) || !errors.As(err, &oe) || !strings.HasPrefix(oe.Origin, "b.example/") || !strings.HasPrefix(oe.Want, "a.example/") {
		t.Fatalf("a checkpoint under a second origin of the log: %v, want an *OriginError (ErrPolicy) naming both origins", err)
	}
	// With the default prefix neither is accepted.
	p.OriginPrefix = ""
	for _, c := range []checkpoint.Published{honest, forked} {
		if _, err := checkpoint.Verify(c.Note, p, lg.id); !errors.Is(err, checkpoint.ErrPolicy) {
			t.Fatalf("%s under the default prefix: %v", c.Name, err)
		}
	}
}
