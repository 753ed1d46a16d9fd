package main

import (
	"os"
	"path/filepath"
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
