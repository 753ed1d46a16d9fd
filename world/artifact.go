package world

import (
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/agentflightrecorder/afr/contracts/artifacts"
)

// Artifact is a compiled contract: its name, ABI and creation bytecode.
type Artifact struct {
	Name string
	ABI  abi.ABI
	Bin  []byte
	// Runtime is the deployed bytecode and Immutables its spans that each
	// deployment fills in, when the artifact has them (forge artifacts):
	// instances of the contract are then recognised by their code whatever
	// their immutables (World.LoadArtifacts).
	Runtime    []byte
	Immutables []artifacts.Span
}

// runtimeOr is the artifact's deployed bytecode when it has it, else code
// (one deployment's code, immutables included).
func (a *Artifact) runtimeOr(code []byte) []byte {
	if len(a.Runtime) > 0 {
		return a.Runtime
	}
	return code
}

// Pack packs a call of method with args; it panics on a programming error
// (unknown method, wrong arguments), as specs want.
func (a *Artifact) Pack(method string, args ...any) []byte {
	b, err := a.ABI.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("world: pack %s.%s: %v", a.Name, method, err))
	}
	return b
}

// LoadForgeArtifact reads a contract of your own from forge's build output,
// out/<File>.sol/<Name>.json (see docs/SPECS.md, "Your own contracts"). It
// fails when the artifact is stale — a source file it was compiled from (the
// contract's .sol or one it imports) has changed since — naming the file and
// `forge build`; see artifacts.ReadForge.
func LoadForgeArtifact(path string) (*Artifact, error) {
	a, err := artifacts.ReadForge(path)
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	return &Artifact{Name: a.Name, ABI: a.ABI, Bin: a.Bin, Runtime: a.Runtime, Immutables: a.Immutables}, nil
}

// TargetArtifact loads one of AFR's contracts embedded in the Go module
// (package contracts/artifacts): the call targets of AFR's own contract tests
// (contracts/test/utils/Targets.sol: Sink, Counter, Reenterer, AdminTarget,
// Hungry, Relay), EpochAnchor or PaceSmartAccount. It needs no AFR checkout,
// no forge build.
func TargetArtifact(name string) (*Artifact, error) {
	a, err := artifacts.Load(name)
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	return &Artifact{Name: a.Name, ABI: a.ABI, Bin: a.Bin}, nil
}
