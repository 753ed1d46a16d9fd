// Tests of the Solidity toolchain that make setup installs: forge compiles
// through contracts/solc, the solc-js wrapper, with no compiler download.
package contracts_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func forgeBin(t *testing.T) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "node_modules", ".bin", "forge")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("forge not installed at %s (hint: run make setup)", p)
	}
	return p
}

func TestSolcWrapperVersion(t *testing.T) {
	out, err := exec.Command(filepath.Join(repoRoot(t), "contracts", "solc"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	// forge parses the line "Version: X.Y.Z+commit…" as native solc prints it.
	if !regexp.MustCompile(`(?m)^Version: 0\.8\.\d+\+commit\.[0-9a-f]+`).Match(out) {
		t.Fatalf("unexpected --version output:\n%s", out)
	}
}

// TestForgeCompilesThroughWrapper builds a trivial contract in a fresh
// Foundry project whose compiler is the wrapper, offline.
func TestForgeCompilesThroughWrapper(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(repoRoot(t), "contracts", "solc")
	toml := "[profile.default]\nsrc = \"src\"\nout = \"out\"\noffline = true\nsolc = \"" + wrapper + "\"\n"
	os.WriteFile(filepath.Join(dir, "foundry.toml"), []byte(toml), 0o644)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	src := "// SPDX-License-Identifier: Apache-2.0\npragma solidity ^0.8.0;\ncontract Trivial { uint256 public x; function set(uint256 v) external { x = v; } }\n"
	os.WriteFile(filepath.Join(dir, "src", "Trivial.sol"), []byte(src), 0o644)

	cmd := exec.Command(forgeBin(t), "build", "--root", dir)
	cmd.Env = append(os.Environ(), "FOUNDRY_OFFLINE=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("forge build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "Trivial.sol", "Trivial.json"))
	if err != nil {
		t.Fatal(err)
	}
	var art struct {
		Bytecode struct{ Object string } `json:"bytecode"`
		ABI      []struct{ Name string } `json:"abi"`
	}
	if err := json.Unmarshal(b, &art); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(art.Bytecode.Object, "0x6080") || len(art.ABI) != 2 {
		t.Fatalf("artifact without bytecode or ABI: %d ABI entries, bytecode %.10s", len(art.ABI), art.Bytecode.Object)
	}
}

// A compile error must surface as a forge failure, not an empty artifact.
func TestForgeReportsCompileErrors(t *testing.T) {
	dir := t.TempDir()
	toml := "[profile.default]\nsrc = \"src\"\nout = \"out\"\noffline = true\nsolc = \"" + filepath.Join(repoRoot(t), "contracts", "solc") + "\"\n"
	os.WriteFile(filepath.Join(dir, "foundry.toml"), []byte(toml), 0o644)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "Bad.sol"), []byte("pragma solidity ^0.8.0;\ncontract Bad { function f() { } }\n"), 0o644)
	out, err := exec.Command(forgeBin(t), "build", "--root", dir).CombinedOutput()
	if err == nil {
		t.Fatalf("forge accepted invalid Solidity:\n%s", out)
	}
	if !strings.Contains(string(out), "Error") {
		t.Fatalf("no compiler error shown:\n%s", out)
	}
}
