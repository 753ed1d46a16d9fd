package vault

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// TestOutsideModule is what a protocol team does from an empty folder
// (docs/SPECS.md): a module of its own, outside AFR, that requires AFR as a
// dependency (through a replace line until the module is published), has
// its own contracts compiled by forge with its own foundry.toml, and runs
// afrspec specs against them — with no AFR checkout built: no contracts/out,
// the working directory outside AFR. The module is this
// example's files, copied (cheats_test.go is also the tutorial's step 7,
// word for word: TestTutorialCheatsMatchDoc). The cheatcode specs then run
// on every backend, as step 7's commands run them: the embedded chain
// (where the refusals are asserted), anvil, and a fork of a local anvil.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a separate Go module (-short)")
	}
	forge, err := exec.LookPath("forge")
	if err != nil {
		t.Skip("forge is not on PATH (make setup installs it; make test puts it on PATH)")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyFile := func(from, to string, edit func(string) string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if edit != nil {
			s = edit(s)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"attacks_test.go", "vault_suite_test.go", "cheats_test.go", "embedded_test.go", "gas-baseline.json",
		"src/Vault.sol", "src/FixedVault.sol", "src/Reenter.sol", "src/Coin.sol"} {
		copyFile(f, filepath.Join(dir, f), nil)
	}
	// The team's own solc: here AFR's solc-js wrapper, by absolute path.
	copyFile("foundry.toml", filepath.Join(dir, "foundry.toml"), func(s string) string {
		return strings.Replace(s, `solc = "../../../contracts/solc"`, `solc = "`+filepath.Join(root, "contracts", "solc")+`"`, 1)
	})
	goVersion := regexp.MustCompile(`(?m)^go \S+$`).FindString(string(must(os.ReadFile(filepath.Join(root, "go.mod")))))
	gomod := "module example.com/myvault\n\n" + goVersion + "\n\n" +
		"require github.com/agentflightrecorder/afr v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/agentflightrecorder/afr => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(filepath.Join(root, "go.sum"), filepath.Join(dir, "go.sum"), nil)

	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(append(withoutEnv(os.Environ(), "GOFLAGS", "AFR_GAS_UPDATE", "AFR_BACKEND", "AFR_FORK_RPC", "AFR_FORK_BLOCK", "AFR_SHARD", "AFR_CAMPAIGN_SHARDS"), "GOFLAGS=-mod=mod"), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s %s in the outside module: %v\n%s", strings.Join(env, " "), name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(nil, forge, "build")
	run(nil, "go", "mod", "tidy")
	out := run(nil, "go", "test", "-count=1", "-v", "./...")
	if !strings.Contains(out, "Ran 12 of 12 Specs") || !strings.Contains(out, "SUCCESS!") {
		t.Fatalf("the outside module's specs did not all run and pass:\n%s", out)
	}

	// Step 7's commands: the cheatcode specs on the other backends.
	cheats := func(tags string, env ...string) {
		t.Helper()
		out := run(env, "go", "test", "-count=1", "-v", "-tags="+tags, "./...", "-args", "-ginkgo.label-filter=cheats")
		if !strings.Contains(out, "Ran 5 of 12 Specs") || !strings.Contains(out, "SUCCESS!") {
			t.Fatalf("the cheatcode specs did not all run and pass with %s:\n%s", env, out)
		}
	}
	cheats("embedded", "AFR_BACKEND=embedded") // embedded_test.go links the node
	if _, err := anvil.FindBinary(); err != nil {
		t.Logf("the cheatcode specs on anvil and on a fork are left out: %v", err)
		return
	}
	cheats("", "AFR_BACKEND=anvil")
	archive, err := anvil.Start(context.Background(), anvil.Options{Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer archive.Stop()
	if err := archive.Call(context.Background(), nil, "evm_mine"); err != nil { // block 1, the pinned block
		t.Fatal(err)
	}
	cheats("", "AFR_BACKEND=fork", "AFR_FORK_RPC="+archive.URL(), "AFR_FORK_BLOCK=1")
}

// TestTutorialCheatsMatchDoc: docs/SPECS.md's step 7 shows cheats_test.go
// in full, and that is the file TestOutsideModule runs.
func TestTutorialCheatsMatchDoc(t *testing.T) {
	doc := string(must(os.ReadFile("../../../docs/SPECS.md")))
	step := strings.Index(doc, "**7. Cheatcodes**")
	if step < 0 {
		t.Fatal("docs/SPECS.md has no step \"**7. Cheatcodes**\"")
	}
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(doc[step:])
	if block == nil {
		t.Fatal("docs/SPECS.md's step 7 has no Go code block")
	}
	if file := string(must(os.ReadFile("cheats_test.go"))); block[1] != file {
		t.Errorf("docs/SPECS.md's step 7 differs from specs/examples/vault/cheats_test.go: copy the file into the doc's code block")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// withoutEnv drops the named variables from env.
func withoutEnv(env []string, names ...string) []string {
	var out []string
outer:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}
