package tracesim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/evm"
)

type fixtureInfo struct {
	ChainID   uint64            `json:"chain_id"`
	Hardfork  string            `json:"hardfork"`
	Block     uint64            `json:"block"`
	Addresses map[string]string `json:"addresses"`
}

func loadFixtureInfo(t testing.TB) (fixtureInfo, map[string]common.Address) {
	t.Helper()
	raw, err := os.ReadFile(fixtureAddrs)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./tracesim -run TestReplayAnvil -update)", err)
	}
	var fi fixtureInfo
	if err := json.Unmarshal(raw, &fi); err != nil {
		t.Fatal(err)
	}
	addrs := map[string]common.Address{}
	for k, v := range fi.Addresses {
		if k != "alice" && k != "bob" && k != "carol" {
			addrs[k] = common.HexToAddress(v)
		}
	}
	return fi, addrs
}

type vector struct {
	name string
	caseFile
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureCases, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay vectors in %s (%v)", fixtureCases, err)
	}
	var out []vector
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		if err := json.Unmarshal(raw, &v.caseFile); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		v.name = strings.TrimSuffix(filepath.Base(p), ".json")
		out = append(out, v)
	}
	return out
}

// TestReplayFixtures replays every committed vector (fixtures/tracesim/cases)
// from the committed cache, offline: the endpoint is a loopback server that
// counts requests, and there must be none. Each replay must match its
// receipt and the recorded expectation (decoded intent, effects, gas).
func TestReplayFixtures(t *testing.T) {
	fi, addrs := loadFixtureInfo(t)
	reg := testRegistry(t, addrs, fixtureABIs, uniCoreBuild, uniPeriBuild)
	url, hits := countingServer(t)
	rp, err := NewReplayer(url, &ReplayOptions{Registry: reg, Mode: evm.ReplayOnly, CacheDir: fixtureCache,
		ChainID: fi.ChainID, ChainConfig: pragueConfig(fi.ChainID)})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for _, v := range loadVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			res, err := rp.Replay(context.Background(), v.TxHash)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(summarize(res), "", "  ")
			want, _ := json.MarshalIndent(v.Expect, "", "  ")
			if string(got) != string(want) {
				t.Errorf("%s (%s):\ngot  %s\nwant %s", v.name, v.Desc, got, want)
			}
			if res.Block != fi.Block {
				t.Errorf("block %d, want %d", res.Block, fi.Block)
			}
		})
	}
	if n := hits(); n != 0 {
		t.Errorf("offline replays sent %d requests", n)
	}
	if n := rp.Requests(); n != 0 {
		t.Errorf("replayer counted %d requests", n)
	}
}

// TestReplayOfflineMisses checks that replay-only mode names what is missing.
func TestReplayOfflineMisses(t *testing.T) {
	fi, _ := loadFixtureInfo(t)
	opts := &ReplayOptions{Mode: evm.ReplayOnly, CacheDir: fixtureCache, ChainConfig: pragueConfig(fi.ChainID)}
	_, err := Replay(context.Background(), "", common.HexToHash("0x01"), opts)
	if !errorsIs(err, ErrTxNotFound) {
		t.Errorf("unknown tx: %v, want ErrTxNotFound", err)
	}
	// A cache directory holding the block but no fork state: the error
	// names the missing fork cache.
	dir := t.TempDir()
	if err := copyTree(filepath.Join(fixtureCache, "blocks"), filepath.Join(dir, "blocks")); err != nil {
		t.Fatal(err)
	}
	v := loadVectors(t)[0]
	opts.CacheDir = dir
	_, err = Replay(context.Background(), "", v.TxHash, opts)
	if err == nil || !strings.Contains(err.Error(), "replay-only mode needs a recorded cache") {
		t.Errorf("missing fork cache: %v", err)
	}
	if _, err := NewReplayer("", &ReplayOptions{}); err == nil {
		t.Error("live mode without a URL accepted")
	}
	if _, err := NewReplayer("", &ReplayOptions{Mode: evm.Record}); err == nil {
		t.Error("record mode without a cache dir accepted")
	}
}
