package backend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/evm"
)

// TestForkRulesFromEmbedded: AFR's embedded chain answers debug_chainConfig
// with the rules it runs.
func TestForkRulesFromEmbedded(t *testing.T) {
	e, err := embedded.New(backend.EmbeddedOptions{HTTP: "127.0.0.1:0", BlockPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Commit()
	f, err := evm.OpenFork(context.Background(), evm.ForkConfig{URL: e.URL(), Block: "1", Mode: evm.Live})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.RulesSource() != "debug_chainConfig" {
		t.Errorf("rules source %q", f.RulesSource())
	}
	got, _ := json.Marshal(f.ChainConfig())
	want, _ := json.Marshal(e.ChainConfig())
	if !bytes.Equal(got, want) {
		t.Errorf("fork rules\n%s\nbackend rules\n%s", got, want)
	}
	if e.ChainConfig().ChainID.Uint64() != backend.EmbeddedChainID || e.ChainConfig().AmsterdamTime != nil {
		t.Errorf("backend rules: chain %v, amsterdam %v", e.ChainConfig().ChainID, e.ChainConfig().AmsterdamTime)
	}
}
