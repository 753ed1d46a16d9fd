package artifacts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/contracts/artifacts"
	"github.com/agentflightrecorder/afr/contracts/internal/forgeart"
)

// project writes a forge project of one's own (the recipe of docs/SPECS.md: AFR's solc-js
// wrapper as the compiler) with a contract that imports a library file, and builds it.
func project(t *testing.T) (dir, artifact string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	toml := "[profile.default]\nsrc = \"src\"\nout = \"out\"\noffline = true\nsolc = \"" + filepath.Join(root, "contracts", "solc") + "\"\n"
	write(t, filepath.Join(dir, "foundry.toml"), toml)
	write(t, filepath.Join(dir, "src", "Lib.sol"), "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\nlibrary Lib { function twice(uint256 x) internal pure returns (uint256) { return 2 * x; } }\n")
	write(t, filepath.Join(dir, "src", "Vault.sol"), "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\nimport {Lib} from \"./Lib.sol\";\n"+
		"contract Vault { error NotOwner(address who); uint256 public total; function deposit(uint256 x) external { total += Lib.twice(x); } }\n")
	build(t, root, dir)
	return dir, filepath.Join(dir, "out", "Vault.sol", "Vault.json")
}

func build(t *testing.T, root, dir string) {
	t.Helper()
	forge, err := forgeart.Forge(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(forge, "build", "--root", dir)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("forge build: %v\n%s", err, out)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A fresh artifact loads; after an edit of the contract's file or of a file it imports it is
// refused, naming the file and `forge build`; after `forge build` it loads again.
func TestReadForgeStale(t *testing.T) {
	dir, path := project(t)
	a, err := artifacts.ReadForge(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Vault" || a.Source != "src/Vault.sol" || len(a.Bin) == 0 || a.ABI.Methods["deposit"].Name != "deposit" || a.ABI.Errors["NotOwner"].Name != "NotOwner" {
		t.Fatalf("artifact: name %q, source %q, %d bytes, methods %v, errors %v", a.Name, a.Source, len(a.Bin), a.ABI.Methods, a.ABI.Errors)
	}
	root, _ := filepath.Abs("../..")
	for _, edited := range []string{"Vault.sol", "Lib.sol"} {
		file := filepath.Join(dir, "src", edited)
		b, _ := os.ReadFile(file)
		write(t, file, string(b)+"// edited\n")
		_, err := artifacts.ReadForge(path)
		if err == nil || !strings.Contains(err.Error(), path+" is stale: "+file+" changed") || !strings.Contains(err.Error(), "`forge build`") {
			t.Fatalf("after editing %s: err = %v", edited, err)
		}
		build(t, root, dir)
		if _, err := artifacts.ReadForge(path); err != nil {
			t.Fatalf("after forge build: %v", err)
		}
	}
}

// Content is compared, not times: a source touched after the build (which forge does not
// recompile, so the artifact stays older) is not stale.
func TestReadForgeTouchedSource(t *testing.T) {
	dir, path := project(t)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "src", "Vault.sol"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.ReadForge(path); err != nil {
		t.Fatal(err)
	}
}

// An artifact copied away from its sources loads unchecked.
func TestReadForgeWithoutSources(t *testing.T) {
	_, path := project(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "Vault.json")
	write(t, copied, string(b))
	if a, err := artifacts.ReadForge(copied); err != nil || a.Name != "Vault" {
		t.Fatalf("copied artifact: %v", err)
	}
}

func TestReadForgeErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, content, want string }{
		{"Missing.json", "", "no such file or directory (hint: compile the contracts with `forge build`)"},
		{"Garbage.json", "not json", "forge artifact " + filepath.Join(dir, "Garbage.json")},
		{"NoABI.json", `{"bytecode":{"object":"0x6080"}}`, "is not a forge contract artifact: it has no \"abi\""},
		{"Linked.json", `{"abi":[],"bytecode":{"object":"0x73__$abc$__","linkReferences":{"src/L.sol":{}}}}`, "needs library linking (src/L.sol)"},
		{"BadHex.json", `{"abi":[],"bytecode":{"object":"0xzz"}}`, "BadHex.json bytecode"},
	} {
		p := filepath.Join(dir, c.name)
		if c.content != "" {
			write(t, p, c.content)
		}
		if _, err := artifacts.ReadForge(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}
