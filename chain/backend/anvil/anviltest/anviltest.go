// Package anviltest starts anvil nodes for tests and benchmarks. It is kept
// apart from package anvil so that no binary linking anvil links package
// testing.
package anviltest

import (
	"context"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// Start starts a node for a test or benchmark and stops it in t.Cleanup. It
// fails the test (t.Fatal) if anvil cannot be started, including when the
// binary is missing: the toolchain is part of `make setup`.
func Start(t testing.TB, opts anvil.Options) *anvil.Node {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	n, err := anvil.Start(ctx, opts)
	if err != nil {
		cancel()
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(); err != nil {
			t.Logf("anvil: stop: %v", err)
		}
		cancel()
	})
	return n
}
