package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
)

// Target is a chain to talk to: a JSON-RPC endpoint and the chain it must
// serve. A deployment names its target (Deployment.Target); the endpoint
// is dialled by backend.Dial, which checks the chain id.
type Target struct {
	// RPC is the endpoint's URL (http, https, ws or wss).
	RPC string
	// ChainID is the chain id the endpoint must serve; 0 accepts any.
	ChainID uint64
}

// ChainIDError is the error of an endpoint that serves another chain than
// its target's: a deployment or chain file used against the wrong
// endpoint, whose transactions would be replayable elsewhere and whose
// events belong to another chain.
type ChainIDError struct {
	RPC       string
	Got, Want uint64
}

func (e *ChainIDError) Error() string {
	return fmt.Sprintf("chain: %s serves chain %d, want chain %d", e.RPC, e.Got, e.Want)
}

// Check returns a *ChainIDError when c serves another chain than t's, and
// nil when it serves t's chain or t accepts any.
func (t Target) Check(ctx context.Context, c ethereum.ChainIDReader) error {
	if t.ChainID == 0 {
		return nil
	}
	got, err := c.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("chain: chain id of %s: %w", t.RPC, err)
	}
	if got.Uint64() != t.ChainID {
		return &ChainIDError{RPC: t.RPC, Got: got.Uint64(), Want: t.ChainID}
	}
	return nil
}
