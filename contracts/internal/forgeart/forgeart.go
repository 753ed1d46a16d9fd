// Package forgeart builds AFR's Solidity contracts with forge and reads the ABI and creation
// bytecode of a contract out of forge's JSON artifacts (<out>/<Name>.sol/<Name>.json).
//
// It is shared by the bindings generator (contracts/internal/bindgen, run by go generate) and
// by the test that fails when the committed bindings are stale, so both see the same bytes.
package forgeart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Contracts are the contracts that get Go bindings, in generation order.
var Contracts = []string{"EpochAnchor", "PaceSmartAccount"}

// Forge returns the forge executable: the npm-installed one under root/node_modules/.bin
// (installed by `make setup`), else forge from PATH.
func Forge(root string) (string, error) {
	p := filepath.Join(root, "node_modules", ".bin", "forge")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	p, err := exec.LookPath("forge")
	if err != nil {
		return "", errors.New("forgeart: forge not found (run `make setup`)")
	}
	return p, nil
}

// Build runs `forge build` in the repository root with artifacts written to out and the
// compiler cache kept in cache (empty strings keep foundry.toml's defaults).
func Build(root, out, cache string) error {
	forge, err := Forge(root)
	if err != nil {
		return err
	}
	args := []string{"build", "--root", root}
	if out != "" {
		args = append(args, "--out", out)
	}
	if cache != "" {
		args = append(args, "--cache-path", cache)
	}
	cmd := exec.Command(forge, args...)
	cmd.Dir = root
	// The solc wrapper is a node script; keep node_modules/.bin first on PATH as make does.
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("forgeart: forge build: %v\n%s", err, stderr.String())
	}
	return nil
}

// Artifact is the part of a forge artifact the bindings need.
type Artifact struct {
	// ABI is the contract ABI as indented JSON with a trailing newline.
	ABI []byte
	// Bin is the creation bytecode, lowercase hex without 0x prefix, as abigen --bin expects.
	Bin string
}

// Read reads contract name's artifact from the forge output directory out.
func Read(out, name string) (Artifact, error) {
	raw, err := os.ReadFile(filepath.Join(out, name+".sol", name+".json"))
	if err != nil {
		return Artifact{}, fmt.Errorf("forgeart: %w", err)
	}
	var a struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode struct {
			Object         string                     `json:"object"`
			LinkReferences map[string]json.RawMessage `json:"linkReferences"`
		} `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Artifact{}, fmt.Errorf("forgeart: %s: %w", name, err)
	}
	if len(a.Bytecode.LinkReferences) != 0 {
		return Artifact{}, fmt.Errorf("forgeart: %s: library links are not supported", name)
	}
	var abi bytes.Buffer
	if err := json.Indent(&abi, a.ABI, "", "  "); err != nil {
		return Artifact{}, fmt.Errorf("forgeart: %s abi: %w", name, err)
	}
	abi.WriteByte('\n')
	bin := strings.TrimPrefix(a.Bytecode.Object, "0x")
	if bin == "" {
		return Artifact{}, fmt.Errorf("forgeart: %s: empty bytecode", name)
	}
	return Artifact{ABI: abi.Bytes(), Bin: bin}, nil
}

// Write writes a's ABI and bytecode to dir/<name>.abi.json and dir/<name>.bin.
func Write(dir, name string, a Artifact) error {
	if err := os.WriteFile(filepath.Join(dir, name+".abi.json"), a.ABI, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".bin"), []byte(a.Bin+"\n"), 0o644)
}
