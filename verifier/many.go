package verifier

import (
	"context"
	"sync"
)

// LogToVerify is one log of a VerifyLogs run: the log and the anchors it
// is verified against (its own: anchors are per log id), and, when set,
// its own keys and completeness check in place of the Options'.
type LogToVerify struct {
	Source       Source
	Anchors      AnchorSource
	Keys         Keys
	Completeness Completeness
}

// options returns opts with l's own keys and completeness check.
func (l LogToVerify) options(opts Options) Options {
	if l.Keys != nil {
		opts.Keys = l.Keys
	}
	if l.Completeness != nil {
		opts.Completeness = l.Completeness
	}
	return opts
}

// VerifyLogs verifies many logs with opts, each as VerifyLog would, and
// returns their reports and errors by position: reports[i] is nil where
// errs[i] says why logs[i] could not be verified; the others are still
// verified. The cores (opts.Workers, default one per core) go to logs,
// not epochs, when there are at least as many logs as workers — each log
// then verified on one goroutine, that many at once, which suits a fleet
// of small logs — and otherwise to each log's epochs, one log after
// another. The reports are the same as VerifyLog's with any Workers.
func VerifyLogs(ctx context.Context, logs []LogToVerify, opts Options) (reports []*Report, errs []error) {
	reports, errs = make([]*Report, len(logs)), make([]error, len(logs))
	w := opts.workers()
	if len(logs) < w {
		for i, l := range logs {
			reports[i], errs[i] = VerifyLog(ctx, l.Source, l.Anchors, l.options(opts))
		}
		return reports, errs
	}
	one := opts
	one.Workers = 1
	next := make(chan int)
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for i := range next {
				reports[i], errs[i] = VerifyLog(ctx, logs[i].Source, logs[i].Anchors, logs[i].options(one))
			}
		})
	}
	for i := range logs {
		next <- i
	}
	close(next)
	wg.Wait()
	return reports, errs
}
