package afrspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Artifact is a compiled contract: its name, ABI and creation bytecode.
type Artifact struct {
	Name string
	ABI  abi.ABI
	Bin  []byte
}

// Pack packs a call of method with args; it panics on a programming error
// (unknown method, wrong arguments), as specs want.
func (a *Artifact) Pack(method string, args ...any) []byte {
	b, err := a.ABI.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("afrspec: pack %s.%s: %v", a.Name, method, err))
	}
	return b
}

// LoadForgeArtifact reads a forge build artifact (out/<File>.sol/<Name>.json).
func LoadForgeArtifact(path string) (*Artifact, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("afrspec: %w (hint: build the contracts with `forge build`, or `make test-forge`)", err)
	}
	var f struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode struct {
			Object hexutil.Bytes `json:"object"`
		} `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("afrspec: forge artifact %s: %w", path, err)
	}
	a, err := abi.JSON(bytes.NewReader(f.ABI))
	if err != nil {
		return nil, fmt.Errorf("afrspec: forge artifact %s: %w", path, err)
	}
	name := filepath.Base(path)
	return &Artifact{Name: name[:len(name)-len(filepath.Ext(name))], ABI: a, Bin: f.Bytecode.Object}, nil
}

// TargetArtifact loads one of the call targets of AFR's own contract tests
// (contracts/test/utils/Targets.sol: Sink, Counter, Reenterer, AdminTarget)
// from the forge output under the AFR module root.
func TargetArtifact(name string) (*Artifact, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	return LoadForgeArtifact(filepath.Join(root, "contracts", "out", "Targets.sol", name+".json"))
}

// ModuleRoot returns the AFR module root: the nearest directory at or above
// the working directory holding a go.mod of module
// github.com/agentflightrecorder/afr, or $AFR_ROOT when set.
func ModuleRoot() (string, error) {
	if r := os.Getenv("AFR_ROOT"); r != "" {
		return r, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/agentflightrecorder/afr\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("afrspec: not inside the AFR module (hint: set AFR_ROOT to its checkout)")
		}
		dir = parent
	}
}
