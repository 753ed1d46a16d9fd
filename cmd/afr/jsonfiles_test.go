package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/evm"
)

// The deployment, chain and override files are read as every reader reads
// them (docs/SPEC.md, "Reading JSON"): a name given twice, or in two
// spellings equal under case folding, is refused. Before, the last one won,
// matched case-insensitively: the file below named a second contract.
func TestJSONFilesRefuseEqualNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := `"0x`+strings.Repeat("aa", 20)+`"`, `"0x`+strings.Repeat("bb", 20)+`"`
	for _, body := range []string{
		`{"chain_id":1,"epoch_anchor":` + a + `,"epoch_anchor":` + b + `}`,
		`{"chain_id":1,"epoch_anchor":` + a + `,"Epoch_Anchor":` + b + `}`,
	} {
		var dep chain.Deployment
		if err := readJSONFile(write("deployment.json", body), &dep); err == nil {
			t.Errorf("deployment %s: read %+v", body, dep)
		}
	}
	var cf chainFile
	if err := readJSONFile(write("chain.json", `{"rpc":"http://127.0.0.1:8545","RPC":"http://attacker"}`), &cf); err == nil {
		t.Errorf("chain file: read %+v", cf)
	}
	var ov evm.StateOverride
	if err := readOverrides(write("override.json", `{`+a+`:{"balance":"0x1","Balance":"0x2"}}`), "--state-override", &ov); err == nil {
		t.Errorf("override file: read %+v", ov)
	}
}

// A deployment or chain file names the chain its contracts are on: one
// without chain_id (or with 0, or null) is refused. Before, it was read as
// chain id 0, which chain.Target takes for "any chain": the endpoint's
// chain went unchecked.
func TestJSONFilesRequireChainID(t *testing.T) {
	dir := t.TempDir()
	addr := `"0x` + strings.Repeat("aa", 20) + `"`
	for _, c := range []struct{ flag, body string }{
		{"--deployment", `{"rpc":"http://127.0.0.1:8545","epoch_anchor":` + addr + `,"block":1}`},
		{"--deployment", `{"chain_id":0,"rpc":"http://127.0.0.1:8545","epoch_anchor":` + addr + `}`},
		{"--deployment", `{"chain_id":null,"rpc":"http://127.0.0.1:8545","epoch_anchor":` + addr + `}`},
		{"--chain", `{"backend":"embedded","rpc":"http://127.0.0.1:8545","keys":[]}`},
	} {
		path := filepath.Join(dir, "file.json")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		cf := addChainFlags(fs)
		if err := fs.Parse([]string{c.flag, path}); err != nil {
			t.Fatal(err)
		}
		if tg, _, err := cf.target(); err == nil || !strings.Contains(err.Error(), "chain_id is required") {
			t.Errorf("%s %s: target %+v, %v; want chain_id required", c.flag, c.body, tg, err)
		}
	}
}

// A bundle file over the 64 MiB a bundle may have is refused from its
// size, before it is read: it was read whole first (here 1 GiB allocated).
func TestReadBundleBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.afrb")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readBundle(path)
	runtime.ReadMemStats(&after)
	if err == nil || after.TotalAlloc-before.TotalAlloc > 1<<20 {
		t.Fatalf("a bundle file of 1 GiB: %v after allocating %d bytes", err, after.TotalAlloc-before.TotalAlloc)
	}
}
