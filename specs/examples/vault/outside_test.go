package vault

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOutsideModule is what a protocol team does from an empty folder
// (docs/SPECS.md): a module of its own, outside AFR, that requires AFR as a
// dependency (through a replace line until the module is published), has
// its own contracts compiled by forge with its own foundry.toml, and runs
// afrspec specs against them — with no AFR checkout built: no contracts/out,
// the working directory outside AFR. The module is this
// example's files, copied.
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
	for _, f := range []string{"attacks_test.go", "vault_suite_test.go", "gas-baseline.json", "src/Vault.sol", "src/FixedVault.sol", "src/Reenter.sol"} {
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

	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(withoutEnv(os.Environ(), "GOFLAGS", "AFR_GAS_UPDATE"), "GOFLAGS=-mod=mod")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s in the outside module: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(forge, "build")
	run("go", "mod", "tidy")
	out := run("go", "test", "-count=1", "-v", "./...")
	if !strings.Contains(out, "Ran 7 of 7 Specs") || !strings.Contains(out, "SUCCESS!") {
		t.Fatalf("the outside module's specs did not all run and pass:\n%s", out)
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
