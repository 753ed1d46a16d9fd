package world_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
)

// TestCoverNeedsInProcess: the in-process chain collects coverage; the
// embedded node does not, and Cover says so, naming the backend.
func TestCoverNeedsInProcess(t *testing.T) {
	ctx := context.Background()
	for _, k := range []backend.Kind{backend.KindInProcess, backend.KindEmbedded} {
		w, err := world.New(ctx, world.Config{Backend: k})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Cover(backend.NewCoverage())
		if k == backend.KindInProcess && err != nil {
			t.Errorf("in-process: Cover = %v", err)
		}
		if k == backend.KindEmbedded && (!errors.Is(err, world.ErrNoCoverage) || !strings.Contains(err.Error(), "embedded")) {
			t.Errorf("embedded: Cover = %v, want world.ErrNoCoverage naming the backend", err)
		}
		_ = w.Close()
	}
}
