package calldata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Registry holds the ABIs calldata, logs and revert data are decoded with.
// Functions are indexed by selector, events by topic and custom errors by
// selector; an index entry lists every distinct signature that shares the key
// (a selector collision), so a decoder can try each and say which matched.
// Addresses can be bound to a contract so that calls to them prefer that
// contract's ABI (and its argument names).
//
// A Registry is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	contracts map[string]*Contract
	funcs     map[[4]byte][]*Function
	events    map[common.Hash][]*EventDef
	errs      map[[4]byte][]*ErrorDef
	bound     map[common.Address]string
	labels    map[common.Address]string
}

// Contract is one ABI in the registry.
type Contract struct {
	Name   string
	Source string // file it was loaded from ("" when added directly)
	ABI    abi.ABI
}

// Function is a function of a registered contract.
type Function struct {
	Contract string
	Method   abi.Method
}

// Signature is the canonical signature, e.g. "transfer(address,uint256)".
func (f *Function) Signature() string { return f.Method.Sig }

// EventDef is an event of a registered contract.
type EventDef struct {
	Contract string
	Event    abi.Event
	indexed  int
}

// ErrorDef is a custom error of a registered contract.
type ErrorDef struct {
	Contract string
	Error    abi.Error
}

// ABINotFoundError reports a decode that needed an ABI the registry lacks.
type ABINotFoundError struct {
	What string // "function", "event" or "error"
	Key  string // selector or topic, 0x-hex
}

func (e *ABINotFoundError) Error() string {
	return fmt.Sprintf("tracesim: no ABI in the registry has %s %s", e.What, e.Key)
}

// ErrNoABI is matched (errors.Is) by every *ABINotFoundError.
var ErrNoABI = errors.New("tracesim: ABI not in the registry")

func (e *ABINotFoundError) Is(target error) bool { return target == ErrNoABI }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		contracts: map[string]*Contract{},
		funcs:     map[[4]byte][]*Function{},
		events:    map[common.Hash][]*EventDef{},
		errs:      map[[4]byte][]*ErrorDef{},
		bound:     map[common.Address]string{},
		labels:    map[common.Address]string{},
	}
}

// Add registers an ABI under name (replacing nothing: a second ABI under the
// same name is an error). Functions, events and errors whose signature is
// already indexed under the same key are kept once, first registration first.
func (r *Registry) Add(name, source string, a abi.ABI) error {
	if name == "" {
		return errors.New("tracesim: registry: empty contract name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.contracts[name]; ok {
		return fmt.Errorf("tracesim: registry: contract %q registered twice", name)
	}
	c := &Contract{Name: name, Source: source, ABI: a}
	r.contracts[name] = c
	for _, m := range sortedMethods(a) {
		var sel [4]byte
		copy(sel[:], m.ID)
		r.funcs[sel] = addUnique(r.funcs[sel], &Function{Contract: name, Method: m}, func(f *Function) string { return f.Method.Sig })
	}
	for _, n := range sortedKeys(a.Events) {
		ev := a.Events[n]
		if ev.Anonymous {
			continue // no topic to find it by
		}
		idx := 0
		for _, in := range ev.Inputs {
			if in.Indexed {
				idx++
			}
		}
		d := &EventDef{Contract: name, Event: ev, indexed: idx}
		// ERC-20 and ERC-721 Transfer share a signature but not the indexing:
		// keep one entry per (signature, indexed count).
		r.events[ev.ID] = addUnique(r.events[ev.ID], d, func(e *EventDef) string { return fmt.Sprintf("%s/%d", e.Event.Sig, e.indexed) })
	}
	for _, n := range sortedKeys(a.Errors) {
		e := a.Errors[n]
		var sel [4]byte
		copy(sel[:], e.ID[:4])
		r.errs[sel] = addUnique(r.errs[sel], &ErrorDef{Contract: name, Error: e}, func(e *ErrorDef) string { return e.Error.Sig })
	}
	return nil
}

func addUnique[T any](list []T, v T, key func(T) string) []T {
	k := key(v)
	for _, x := range list {
		if key(x) == k {
			return list
		}
	}
	return append(list, v)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sortedMethods(a abi.ABI) []abi.Method {
	out := make([]abi.Method, 0, len(a.Methods))
	for _, k := range sortedKeys(a.Methods) {
		out = append(out, a.Methods[k])
	}
	return out
}

// AddJSON parses ABI JSON (a plain ABI array, or an artifact object with an
// "abi" member) and registers it under name.
func (r *Registry) AddJSON(name, source string, data []byte) error {
	raw, _, err := extractABI(data)
	if err != nil {
		return fmt.Errorf("tracesim: %s: %w", displaySource(name, source), err)
	}
	a, err := abi.JSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("tracesim: %s: parse ABI: %w", displaySource(name, source), err)
	}
	return r.Add(name, source, a)
}

func displaySource(name, source string) string {
	if source != "" {
		return source
	}
	return name
}

// extractABI finds the ABI array in data: data itself when it is an array,
// else the "abi" member of an artifact object (forge, hardhat, waffle,
// truffle). The name is the artifact's "contractName" when it has one.
func extractABI(data []byte) (raw json.RawMessage, name string, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, "", errors.New("empty file")
	}
	switch data[0] {
	case '[':
		return data, "", nil
	case '{':
		var art struct {
			ABI          json.RawMessage `json:"abi"`
			ContractName string          `json:"contractName"`
		}
		if err := json.Unmarshal(data, &art); err != nil {
			return nil, "", fmt.Errorf("not JSON: %w", err)
		}
		a := bytes.TrimSpace(art.ABI)
		if len(a) == 0 || a[0] != '[' {
			return nil, "", errNotABI
		}
		return a, art.ContractName, nil
	}
	return nil, "", errNotABI
}

var errNotABI = errors.New("not an ABI or a build artifact with an \"abi\" array")

// LoadFile registers the ABI in path: a plain ABI JSON array, or a forge /
// hardhat / waffle / truffle artifact. The contract is named by the
// artifact's contractName, else by the file name without ".json" and
// ".abi". It returns the name used.
func (r *Registry) LoadFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("tracesim: %w", err)
	}
	_, name, err := extractABI(data)
	if err != nil {
		return "", fmt.Errorf("tracesim: %s: %w", path, err)
	}
	if name == "" {
		name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".json"), ".abi")
	}
	return name, r.AddJSON(name, path, data)
}

// LoadReport says what LoadDir did with each JSON file it saw.
type LoadReport struct {
	Loaded  []string          // contract names registered
	Skipped map[string]string // path -> why (not an ABI, duplicate name, empty ABI)
}

// LoadDir registers every ABI found under dir (recursively): plain ABI files
// and build artifacts, such as a forge out/ directory (out/<File>.sol/<Name>.json),
// an npm package's build/ directory or a fixtures directory. Files that are
// not ABIs (forge build-info, combined JSON, caches), ABIs with no entries and
// second artifacts of an already registered name are skipped and listed in
// the report; a file that claims to be an ABI and does not parse is an error.
func (r *Registry) LoadDir(dir string) (*LoadReport, error) {
	rep := &LoadReport{Skipped: map[string]string{}}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		raw, name, err := extractABI(data)
		if err != nil {
			rep.Skipped[path] = err.Error()
			return nil
		}
		if string(bytes.Join(bytes.Fields(raw), nil)) == "[]" {
			rep.Skipped[path] = "empty ABI"
			return nil
		}
		if name == "" {
			name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".json"), ".abi")
		}
		r.mu.RLock()
		_, dup := r.contracts[name]
		r.mu.RUnlock()
		if dup {
			rep.Skipped[path] = fmt.Sprintf("contract %q already registered", name)
			return nil
		}
		if err := r.AddJSON(name, path, data); err != nil {
			return err
		}
		rep.Loaded = append(rep.Loaded, name)
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("tracesim: load %s: %w", dir, err)
	}
	return rep, nil
}

// Bind says that addr runs contract name: calls to addr are decoded with that
// contract's ABI first, and its events by that contract's definitions.
func (r *Registry) Bind(addr common.Address, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.contracts[name]; !ok {
		return fmt.Errorf("tracesim: bind %s: no contract %q in the registry", addr.Hex(), name)
	}
	r.bound[addr] = name
	return nil
}

// BoundTo returns the contract name bound to addr, if any.
func (r *Registry) BoundTo(addr common.Address) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, ok := r.bound[addr]
	return n, ok
}

// SetLabel names addr for messages and traces ("alice", "treasury"), as
// forge's vm.label does; an empty label removes it. A label names an
// account; it decodes nothing (Bind does).
func (r *Registry) SetLabel(addr common.Address, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if label == "" {
		delete(r.labels, addr)
		return
	}
	r.labels[addr] = label
}

// Label returns the label of addr, if it has one.
func (r *Registry) Label(addr common.Address) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	l, ok := r.labels[addr]
	return l, ok
}

// Contract returns the registered contract name.
func (r *Registry) Contract(name string) (*Contract, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.contracts[name]
	return c, ok
}

// Functions returns every function with the selector, the contract bound to
// at (if any) first, then in registration order. More than one entry is a
// selector collision.
func (r *Registry) Functions(sel [4]byte, at *common.Address) []*Function {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := r.funcs[sel]
	var bound string
	if at != nil {
		bound = r.bound[*at]
	}
	if bound != "" {
		// The bound contract's own definition first (its argument names).
		if c := r.contracts[bound]; c != nil {
			for _, m := range c.ABI.Methods {
				if bytes.Equal(m.ID, sel[:]) {
					out := []*Function{{Contract: bound, Method: m}}
					for _, f := range list {
						if f.Method.Sig != m.Sig {
							out = append(out, f)
						}
					}
					return out
				}
			}
		}
	}
	return append([]*Function(nil), list...)
}

// Events returns the event definitions with topic0 = id, the contract bound
// to at (if any) first.
func (r *Registry) Events(id common.Hash, at common.Address) []*EventDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := append([]*EventDef(nil), r.events[id]...)
	if bound := r.bound[at]; bound != "" {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Contract == bound && list[j].Contract != bound })
	}
	return list
}

// Errors returns the custom errors with the selector, in registration
// order.
func (r *Registry) Errors(sel [4]byte) []*ErrorDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*ErrorDef(nil), r.errs[sel]...)
}

// errorsAt is Errors with the definition of the contract bound to at first.
// The index keeps one entry per signature, under the contract registered
// first: an error that the bound contract declares like an earlier one (both
// inherit it from a base contract) is taken from the bound contract's own
// ABI, so that it is named after that contract.
func (r *Registry) errorsAt(sel [4]byte, at common.Address) []*ErrorDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := r.errs[sel]
	if c := r.contracts[r.bound[at]]; c != nil {
		for _, e := range c.ABI.Errors {
			if [4]byte(e.ID[:4]) != sel {
				continue
			}
			out := []*ErrorDef{{Contract: c.Name, Error: e}}
			for _, d := range list {
				if d.Error.Sig != e.Sig {
					out = append(out, d)
				}
			}
			return out
		}
	}
	return append([]*ErrorDef(nil), list...)
}

// Names returns the registered contract names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedKeys(r.contracts)
}
