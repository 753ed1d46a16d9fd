package world

import (
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/chain/backend"
)

// ErrNoCoverage is returned by Cover on a backend that cannot collect
// coverage: only the in-process chain executes its EVM where hooks reach.
var ErrNoCoverage = errors.New("world: the backend collects no coverage")

// Cover collects into cov the branch coverage of every call the World
// sends or simulates on its current chain from now on, until Cover(nil)
// (backend.Coverer). It fails with ErrNoCoverage, naming the backend,
// where the chain does not offer it.
func (w *World) Cover(cov *backend.Coverage) error {
	c, ok := w.chain.(backend.Coverer)
	if !ok {
		return fmt.Errorf("%w (%s; use %s)", ErrNoCoverage, w.kind, backend.KindInProcess)
	}
	c.Cover(cov)
	return nil
}
