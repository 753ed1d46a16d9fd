package world

// Traces of the World's transactions, as forge test -vvvv prints them, and
// decoding by the contract actually at an address.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/artifacts"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/tracesim"
)

// Trace is the call tree of one transaction of the World, re-executed with
// go-ethereum's call tracer on the state before it: a mined transaction
// replayed after the transactions before it in its block (World.Replay), a
// call refused in simulation re-executed on the block it was simulated on.
type Trace struct {
	// Calls is the call tree as go-ethereum's call tracer records it, with
	// the logs of each frame.
	Calls evm.CallFrame
	// Revert is the revert decoded with the ABI of the contract that
	// produced it, RevertedBy (tracesim.RevertOrigin: the frame where the
	// failure started, which every caller above passed on); nil when the
	// transaction did not revert.
	Revert     *calldata.Revert
	RevertedBy common.Address
	// Note says what is uncertain about the trace (a replay that disagrees
	// with the receipt); "" when nothing is.
	Note string

	text string
}

// String renders the trace as forge test -vvvv does (tracesim.FormatTrace),
// with the World's actors and contracts named.
func (t *Trace) String() string { return t.text }

// ErrNoWorld is returned by TxResult.Trace for a result that no World's
// Send or Submit made (one built by hand): there is no chain to trace on.
var ErrNoWorld = errors.New("world: trace: not a result of a World's Send or Submit")

// traceTimeout bounds a trace made for a failure message or a decode, which
// have no context of their own.
const traceTimeout = 30 * time.Second

// Trace re-executes the transaction of r with tracing and decodes it; the
// result is kept, so later calls cost nothing. A result that was neither
// mined nor refused in simulation (an RPC error) has no trace.
func (r *TxResult) Trace(ctx context.Context) (*Trace, error) {
	if r == nil || r.w == nil {
		return nil, ErrNoWorld
	}
	if r.trace == nil && r.traceErr == nil {
		r.trace, r.traceErr = r.w.traceOf(ctx, r)
	}
	return r.trace, r.traceErr
}

// traceOf traces r (see TxResult.Trace) on the chain it was sent on: on
// the chain's own state where the backend traces in process, else through
// its JSON-RPC endpoint.
func (w *World) traceOf(ctx context.Context, r *TxResult) (*Trace, error) {
	on := r.on
	t := &Trace{}
	var res *evm.Result
	var err error
	call := tracesim.CallRequest{From: r.From.Address, To: &r.To, Value: r.Value, Data: r.Data}
	if tr, ok := on.chain.(backend.Tracer); ok {
		switch {
		case r.Receipt != nil:
			res, err = tr.TraceTransaction(ctx, r.Receipt.TxHash)
		case r.Reverted && r.simulatedAt != nil:
			res, err = tr.TraceCall(ctx, r.simulatedAt.number, r.simulatedAt.hash, ethereum.CallMsg{From: call.From, To: call.To, Value: call.Value, Data: call.Data})
		default:
			return nil, fmt.Errorf("world: trace: the transaction was neither mined nor refused in simulation (%v)", r.Err)
		}
		if err != nil {
			return nil, fmt.Errorf("world: trace: %w", err)
		}
		t.Calls = res.Trace.Calls
	} else {
		if r.Receipt != nil && r.From != nil && r.From.Key == nil {
			return nil, ErrPrankedReplay
		}
		url := on.chain.URL()
		if url == "" {
			return nil, fmt.Errorf("world: trace: the %s backend serves no JSON-RPC endpoint", on.kind)
		}
		rp, err := tracesim.NewReplayer(url, &tracesim.ReplayOptions{Registry: w.registry, ChainID: on.chainID})
		if err != nil {
			return nil, err
		}
		defer rp.Close()
		switch {
		case r.Receipt != nil:
			res, err := rp.Replay(ctx, r.Receipt.TxHash)
			var fe *tracesim.FidelityError
			switch {
			case errors.As(err, &fe) && res != nil:
				t.Note = err.Error()
			case err != nil:
				return nil, fmt.Errorf("world: trace: %w", err)
			}
			t.Calls = res.Trace.Calls
		case r.Reverted && r.simulatedAt != nil:
			res, err := rp.TraceCall(ctx, r.simulatedAt.number, r.simulatedAt.hash, call)
			if err != nil {
				return nil, fmt.Errorf("world: trace: %w", err)
			}
			t.Calls = res.Trace.Calls
		default:
			return nil, fmt.Errorf("world: trace: the transaction was neither mined nor refused in simulation (%v)", r.Err)
		}
	}
	w.identifyAll(ctx, on.client, &t.Calls)
	if o := tracesim.RevertOrigin(&t.Calls); o != nil && o.Reverted() && o.To != nil {
		t.Revert, t.RevertedBy = calldata.DecodeRevert(w.registry, o.Output, *o.To), *o.To
	}
	t.text = tracesim.FormatTrace(w.registry, &t.Calls, func(a common.Address) string { return show.Address(w.registry, a) })
	if t.Note != "" {
		t.text += "\n(" + t.Note + ")"
	}
	return t, nil
}

// simulatedAt is the block a refused call was simulated on.
type simulatedAt struct {
	number uint64
	hash   common.Hash
}

// refusedAt returns the block a call just refused in simulation on c ran
// on: the latest, as nothing of the World mines between the two (anchoring
// is on demand unless Config.Anchoring says otherwise).
func refusedAt(ctx context.Context, c chain.Client) *simulatedAt {
	h, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil
	}
	return &simulatedAt{number: h.Number.Uint64(), hash: h.Hash()}
}

// Label names addr in the World's messages and traces ("alice (0x…)"), as
// forge's vm.label does. Actors are labelled with their names when created.
func (w *World) Label(addr common.Address, name string) { w.registry.SetLabel(addr, name) }

// ---- decoding by the contract actually at an address ----

// knowCode remembers the code of contract a: an address later found with
// that code (its immutables aside) decodes with a's ABI.
func (w *World) knowCode(a *artifacts.Artifact) {
	if len(a.Runtime) > 0 {
		w.codes = append(w.codes, a)
	}
}

// identify binds addr, when no contract is bound to it, to the known
// contract whose deployed code is at addr on the chain of c; it reports the
// contract bound.
func (w *World) identify(ctx context.Context, c chain.Client, addr common.Address) (string, bool) {
	if n, ok := w.registry.BoundTo(addr); ok {
		return n, true
	}
	code, err := c.CodeAt(ctx, addr, nil)
	if err != nil || len(code) == 0 {
		return "", false
	}
	for _, a := range w.codes {
		if a.RuntimeMatches(code) {
			if w.registry.Bind(addr, a.Name) == nil {
				return a.Name, true
			}
		}
	}
	return "", false
}

// identifyAll identifies the target of every frame of a call tree on the
// chain of c.
func (w *World) identifyAll(ctx context.Context, c chain.Client, f *evm.CallFrame) {
	if f.To != nil {
		w.identify(ctx, c, *f.To)
	}
	for i := range f.Calls {
		w.identifyAll(ctx, c, &f.Calls[i])
	}
}

// UnmatchedCodeError is returned by LoadArtifacts for addresses whose code is
// no contract of the directory (their ABIs stay unbound).
type UnmatchedCodeError struct {
	Dir       string
	Addresses []common.Address
}

func (e *UnmatchedCodeError) Error() string {
	s := make([]string, len(e.Addresses))
	for i, a := range e.Addresses {
		s[i] = a.Hex()
	}
	return fmt.Sprintf("world: no contract of %s has the code at %s", e.Dir, strings.Join(s, ", "))
}

// LoadArtifacts registers every contract of a forge build directory (out/,
// read with artifacts.ReadForge: stale artifacts are refused) in the World's
// registry and binds each of addrs — contracts that already exist, on a fork
// say — to the contract whose deployed bytecode is the code at it, its
// immutables aside: calls, events and reverts of that address decode with
// the ABI of the contract actually there, whatever its name. Later traces
// bind other addresses with the code of one of these contracts the same
// way. It returns the contract bound to each address; addresses whose code
// no contract of dir has are left unbound and listed in an
// *UnmatchedCodeError. Files that are not contract artifacts (build-info,
// caches) are skipped; a contract already registered under its name keeps
// that ABI, and the artifact's code identifies its instances too.
func (w *World) LoadArtifacts(ctx context.Context, dir string, addrs ...common.Address) (map[common.Address]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "build-info":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".json"):
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("world: artifacts: %w", err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("world: artifacts: %w", err)
		}
		if !strings.Contains(string(raw), `"abi"`) {
			continue
		}
		a, err := artifacts.ReadForge(p)
		if err != nil {
			return nil, fmt.Errorf("world: %w", err)
		}
		if _, dup := w.registry.Contract(a.Name); !dup {
			if err := w.registry.Add(a.Name, p, a.ABI); err != nil {
				return nil, fmt.Errorf("world: %w", err)
			}
		}
		w.knowCode(a)
	}
	bound := map[common.Address]string{}
	var missed []common.Address
	for _, addr := range addrs {
		if n, ok := w.identify(ctx, w.client, addr); ok {
			bound[addr] = n
		} else {
			missed = append(missed, addr)
		}
	}
	if len(missed) > 0 {
		return bound, &UnmatchedCodeError{Dir: dir, Addresses: missed}
	}
	return bound, nil
}
