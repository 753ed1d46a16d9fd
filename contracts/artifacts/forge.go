package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// ReadForge reads a forge build artifact (<out>/<File>.sol/<Name>.json): the contract's ABI,
// its creation bytecode and the source file it was compiled from.
//
// It refuses a stale artifact. forge records in the artifact's metadata the keccak256 of every
// source file of the compilation (the contract's file and every file it imports); ReadForge
// hashes those files as they are now and fails, naming the changed file and `forge build`, when
// one differs — the case of a .sol edited after the last build. Content is compared, not
// modification times: forge does not rewrite an artifact whose sources were only touched, so
// a time comparison would call it stale after every `forge build`. Source paths are relative
// to the forge project root, taken as the nearest directory above the artifact that holds the
// contract's source file; an artifact copied without its sources (no such directory) and files
// that cannot be found (e.g. libraries installed elsewhere) are not checked.
//
// A contract that needs library linking is refused; an interface or abstract contract loads
// with an empty Bin.
func ReadForge(path string) (*Artifact, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("artifacts: %w (hint: compile the contracts with `forge build`)", err)
	}
	var f struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode struct {
			Object         string                     `json:"object"`
			LinkReferences map[string]json.RawMessage `json:"linkReferences"`
		} `json:"bytecode"`
		DeployedBytecode struct {
			Object              string `json:"object"`
			ImmutableReferences map[string][]struct {
				Start  int `json:"start"`
				Length int `json:"length"`
			} `json:"immutableReferences"`
		} `json:"deployedBytecode"`
		Metadata struct {
			Settings struct {
				CompilationTarget map[string]string `json:"compilationTarget"`
			} `json:"settings"`
			Sources map[string]struct {
				Keccak256 common.Hash `json:"keccak256"`
			} `json:"sources"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("artifacts: forge artifact %s: %w", path, err)
	}
	if len(f.ABI) == 0 {
		return nil, fmt.Errorf("artifacts: %s is not a forge contract artifact: it has no \"abi\"", path)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if len(f.Bytecode.LinkReferences) != 0 {
		libs := make([]string, 0, len(f.Bytecode.LinkReferences))
		for l := range f.Bytecode.LinkReferences {
			libs = append(libs, l)
		}
		sort.Strings(libs)
		return nil, fmt.Errorf("artifacts: %s needs library linking (%s), which is not supported: make the library functions internal", path, strings.Join(libs, ", "))
	}
	var bin []byte
	if f.Bytecode.Object != "" && f.Bytecode.Object != "0x" {
		if bin, err = hexutil.Decode(f.Bytecode.Object); err != nil {
			return nil, fmt.Errorf("artifacts: %s bytecode: %w", path, err)
		}
	}
	var source string
	for src, contract := range f.Metadata.Settings.CompilationTarget {
		source, name = src, contract
	}
	root := projectRoot(path, source)
	srcs := make([]string, 0, len(f.Metadata.Sources))
	for s := range f.Metadata.Sources {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		file := filepath.FromSlash(s)
		if !filepath.IsAbs(file) {
			if root == "" {
				continue
			}
			file = filepath.Join(root, file)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if common.BytesToHash(crypto.Keccak256(b)) != f.Metadata.Sources[s].Keccak256 {
			return nil, fmt.Errorf("artifacts: %s is stale: %s changed after it was compiled (hint: run `forge build`)", path, file)
		}
	}
	a, err := newArtifact(name, source, bytes.Clone(f.ABI), bin)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	if o := f.DeployedBytecode.Object; o != "" && o != "0x" {
		if a.Runtime, err = hexutil.Decode(o); err != nil {
			return nil, fmt.Errorf("artifacts: %s deployed bytecode: %w", path, err)
		}
		for _, refs := range f.DeployedBytecode.ImmutableReferences {
			for _, r := range refs {
				if r.Start < 0 || r.Length < 0 || r.Start+r.Length > len(a.Runtime) {
					return nil, fmt.Errorf("artifacts: %s: immutable reference [%d, +%d) outside the deployed bytecode", path, r.Start, r.Length)
				}
				a.Immutables = append(a.Immutables, Span{Start: r.Start, Length: r.Length})
			}
		}
		sort.Slice(a.Immutables, func(i, j int) bool { return a.Immutables[i].Start < a.Immutables[j].Start })
	}
	return a, nil
}

// Span is a byte range of code: Length bytes from Start.
type Span struct{ Start, Length int }

// RuntimeMatches reports whether code is the artifact's deployed bytecode
// (Runtime), the bytes of its immutables (set by each deployment's
// constructor) aside. An artifact without deployed bytecode matches nothing.
func (a *Artifact) RuntimeMatches(code []byte) bool {
	if len(a.Runtime) == 0 || len(code) != len(a.Runtime) {
		return false
	}
	at := 0
	for _, s := range a.Immutables {
		if s.Start > at && !bytes.Equal(code[at:s.Start], a.Runtime[at:s.Start]) {
			return false
		}
		at = max(at, s.Start+s.Length)
	}
	return bytes.Equal(code[at:], a.Runtime[at:])
}

// projectRoot returns the nearest directory above the artifact at path that holds source (a
// path relative to the forge project root), or "" when there is none.
func projectRoot(path, source string) string {
	if source == "" || filepath.IsAbs(source) {
		return ""
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return ""
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(source))); err == nil && !st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
