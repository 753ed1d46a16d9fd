package backend_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
)

// TestDialChecksChainID: Dial accepts the target's chain (or any, for
// chain id 0) and refuses another with a *chain.ChainIDError naming both.
func TestDialChecksChainID(t *testing.T) {
	e, err := embedded.New(backend.EmbeddedOptions{Keys: 1, BlockPeriod: -1, HTTP: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, id := range []uint64{0, backend.EmbeddedChainID} {
		b, err := backend.Dial(ctx, chain.Target{RPC: e.URL(), ChainID: id})
		if err != nil {
			t.Fatalf("Dial(chain id %d): %v", id, err)
		}
		b.Close()
	}
	b, err := backend.Dial(ctx, chain.Target{RPC: e.URL(), ChainID: 5})
	var ce *chain.ChainIDError
	if b != nil || !errors.As(err, &ce) || ce.Got != backend.EmbeddedChainID || ce.Want != 5 || ce.RPC != e.URL() {
		t.Fatalf("Dial(chain id 5) = %v, %v; want a *chain.ChainIDError got 1337, want 5", b, err)
	}
	if want := "chain: " + e.URL() + " serves chain 1337, want chain 5"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}
