// Package artifacts holds AFR's compiled contracts inside the Go module, so that a program or a
// spec suite that imports AFR (`go get`) can deploy them without an AFR checkout, forge or solc:
//
//   - EpochAnchor and PaceSmartAccount, whose ABI and creation bytecode are those of the Go
//     bindings (package contracts/bindings);
//   - the call targets of AFR's own contract tests (contracts/test/utils/Targets.sol: Sink,
//     Counter, Reenterer, AdminTarget, Hungry, Relay), embedded from targets.json.
//
// Load returns one of them by name, Names lists them. ReadForge reads a contract of one's own
// from forge's build output (<out>/<File>.sol/<Name>.json) and refuses an artifact whose
// sources changed after it was built.
//
// targets.json is generated from forge's output; regenerate it after changing Targets.sol
// (needs forge from `make setup`):
//
//	go generate ./contracts/artifacts
//
// TestEmbeddedUpToDate fails when the committed file differs from what the generator writes
// from the current contracts/out, which `make test` builds first.
package artifacts

//go:generate go run ../internal/artgen -root ../.. -out targets.json

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/contracts/bindings"
)

// Artifact is a compiled contract.
type Artifact struct {
	// Name is the contract's name.
	Name string
	// Source is the file it was compiled from, relative to the root of its forge project
	// (as forge records it, e.g. "contracts/src/EpochAnchor.sol").
	Source string
	// ABI is the parsed ABI and ABIJSON the same ABI as JSON.
	ABI     abi.ABI
	ABIJSON json.RawMessage
	// Bin is the creation bytecode (constructor arguments are appended to it).
	Bin []byte
	// Runtime is the deployed bytecode and Immutables the spans of it that
	// each deployment fills in (forge artifacts only: ReadForge).
	Runtime    []byte
	Immutables []Span
}

// File is the layout of targets.json, the embedded artifacts: written by the generator
// (contracts/internal/artgen), read by Load.
type File struct {
	Note      string  `json:"note"`
	Contracts []Entry `json:"contracts"`
}

// Entry is one contract of File.
type Entry struct {
	Name     string          `json:"name"`
	Source   string          `json:"source"`
	ABI      json.RawMessage `json:"abi"`
	Bytecode hexutil.Bytes   `json:"bytecode"`
}

//go:embed targets.json
var targetsJSON []byte

var embedded = sync.OnceValues(func() (map[string]Entry, error) {
	var f File
	if err := json.Unmarshal(targetsJSON, &f); err != nil {
		return nil, fmt.Errorf("artifacts: embedded targets.json: %w", err)
	}
	m := map[string]Entry{}
	for _, e := range f.Contracts {
		m[e.Name] = e
	}
	for name, md := range map[string]*struct{ abi, bin, src string }{
		"EpochAnchor":      {bindings.EpochAnchorMetaData.ABI, bindings.EpochAnchorMetaData.Bin, "contracts/src/EpochAnchor.sol"},
		"PaceSmartAccount": {bindings.PaceSmartAccountMetaData.ABI, bindings.PaceSmartAccountMetaData.Bin, "contracts/src/PaceSmartAccount.sol"},
	} {
		bin, err := hexutil.Decode(md.bin)
		if err != nil {
			return nil, fmt.Errorf("artifacts: %s bytecode of the bindings: %w", name, err)
		}
		m[name] = Entry{Name: name, Source: md.src, ABI: json.RawMessage(md.abi), Bytecode: bin}
	}
	return m, nil
})

// Names returns the names of the embedded contracts, sorted.
func Names() []string {
	m, err := embedded()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Load returns the embedded contract name (one of Names), with its own copy of the bytecode.
func Load(name string) (*Artifact, error) {
	m, err := embedded()
	if err != nil {
		return nil, err
	}
	e, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("artifacts: no embedded contract %q (embedded: %s); load a contract of your own with ReadForge", name, strings.Join(Names(), ", "))
	}
	return newArtifact(e.Name, e.Source, e.ABI, slices.Clone([]byte(e.Bytecode)))
}

func newArtifact(name, source string, abiJSON json.RawMessage, bin []byte) (*Artifact, error) {
	a, err := abi.JSON(strings.NewReader(string(abiJSON)))
	if err != nil {
		return nil, fmt.Errorf("artifacts: %s ABI: %w", name, err)
	}
	return &Artifact{Name: name, Source: source, ABI: a, ABIJSON: abiJSON, Bin: bin}, nil
}
