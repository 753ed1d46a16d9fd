package verifier

import "context"

// Completeness checks a log against an outside record of the actions it
// must hold (Options.Completeness). Package verifier/onchain implements it
// for the executions of a PaceSmartAccount.
type Completeness interface {
	// Check returns its findings about the log indexed in ix (payloads
	// opened with Options.Keys where they open), given the report so far
	// (rep.AnchoredEpochs, rep.Findings), and a summary of what it read. An
	// error means the check could not run (the chain is unreachable, a node
	// misbehaves); problems with the log are findings.
	Check(ctx context.Context, ix *Index, rep *Report) (*ExecutionReport, []Finding, error)
}

// ExecutionReport summarises a completeness check.
type ExecutionReport struct {
	Executions int `json:"executions"` // Executed events read
	Recorded   int `json:"recorded"`   // whose event id is in the log
	Matched    int `json:"matched"`    // whose recorded intent matches the call
	Unchecked  int `json:"unchecked"`  // found by event id, intent not compared
}

// checkCompleteness runs Options.Completeness on the log's index. A damaged
// stream end does not stop it: VerifyLog has reported it already.
func (v *logVerifier) checkCompleteness(ctx context.Context, src Source) error {
	ix, err := IndexLog(src, v.opts.Keys)
	if err != nil {
		return err
	}
	v.rep.Findings, v.rep.Verdict = v.c.findings, v.c.verdict
	xr, fs, err := v.opts.Completeness.Check(ctx, ix, &v.rep)
	if err != nil {
		return err
	}
	for _, f := range fs {
		v.c.add(f)
	}
	v.rep.Executions = xr
	return nil
}
