package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/tracesim"
)

// exitMismatch is the exit code of afr replay when the replay disagrees with
// the chain's receipt (the full result is still printed).
const exitMismatch = 6

func init() {
	register(&command{name: "replay", summary: "re-execute a mined transaction and print its decoded trace", run: runReplay, usage: `
Usage: afr replay TXHASH --rpc URL [--abi FILE|DIR ...] [--json]
       afr replay TXHASH --rpc URL --cache DIR      (record block and state)
       afr replay TXHASH --offline --cache DIR      (no network)
       afr replay TXHASH --rpc URL --fixture DIR    (write a test fixture)

Fetches the transaction, its block and receipts, forks the state at the
parent block in AFR's in-process EVM, executes the transactions before it in
the block, then executes it with tracing, as "cast run" does. It prints:

  - the intent: sender, target, value and the decoded function call;
  - the call tree: each frame's call type, target, decoded function and
    arguments, value, gas used, and how it ended (returned, reverted with the
    decoded reason, failed);
  - the events, decoded; token transfers; balance and storage changes;
  - the fidelity verdict: OK when status, gas used, logs and created address
    equal the receipt's (and every transaction before it in the block
    replayed with its receipt's status and gas), else each mismatch with the
    receipt's and the replay's value.

Calldata, events and custom errors decode with the ABIs given by --abi: an
ABI JSON file, a build artifact (forge, hardhat, truffle, waffle) or a
directory searched recursively (a forge out/ directory). AFR's own contracts
(EpochAnchor, PaceSmartAccount) and the standard Error/Panic reverts and
ERC-20/721 events are always known. What does not decode is shown raw.

--json prints the result as JSON (docs/SPEC.md, "Tracesim output").

--cache DIR keeps the block (with receipts) and the fork state the replay
read under DIR, reusing what is there; --offline then replays from DIR alone
and sends nothing anywhere (--rpc is not needed). --fixture DIR records into
DIR like --cache, checks that the fixture replays offline, and prints the
command that does.

` + rulesUsage + `

Exit codes: 0 replayed, fidelity OK; 6 replayed, but the replay does not
match the receipt (everything is still printed); 1 the replay could not run
(unreachable endpoint, unknown transaction, state missing from the cache);
2 usage (a malformed hash, conflicting flags).

Examples:
  afr replay 0x5c50…e1f2 --rpc http://127.0.0.1:8545 --abi ./contracts/out
  afr replay 0x5c50…e1f2 --rpc http://127.0.0.1:8545 --json | jq .effects.events
  afr replay 0x5c50…e1f2 --rpc https://rpc.example --fixture testdata/tx1
  afr replay 0x5c50…e1f2 --offline --cache testdata/tx1 --abi ./abi`})
}

func runReplay(e *env, args []string) error {
	fs := commands["replay"].flags(e)
	rpcURL := fs.String("rpc", "", "JSON-RPC endpoint of the chain the transaction was mined on")
	var abis repeated
	fs.Var(&abis, "abi", "ABI JSON file, build artifact or directory of them (repeatable)")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	cacheDir := fs.String("cache", "", "directory to keep block and fork state in (and read them from)")
	offline := fs.Bool("offline", false, "replay from --cache only; send nothing to any endpoint")
	fixture := fs.String("fixture", "", "record block and fork state into this directory for a test, and check it replays offline")
	rules := addRulesFlags(fs)
	// The hash may come before or after the flags.
	var hashArg string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		hashArg, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if hashArg == "" && len(rest) > 0 {
		// The hash between flags: parse the flags after it too.
		hashArg = rest[0]
		if err := parse(fs, rest[1:]); err != nil {
			return err
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected arguments %q: give one transaction hash", rest)}
	}
	if hashArg == "" {
		return usageError{"no transaction hash: give TXHASH (0x and 64 hex digits)"}
	}
	hash, err := parseTxHash(hashArg)
	if err != nil {
		return err
	}
	opts := tracesim.ReplayOptions{Mode: evm.Live}
	if opts.ChainConfig, opts.Hardfork, err = rules.resolve(); err != nil {
		return err
	}
	switch {
	case *fixture != "" && (*cacheDir != "" || *offline):
		return usageError{"--fixture records into its own directory: give it without --cache and --offline"}
	case *fixture != "":
		opts.Mode, opts.CacheDir = evm.Record, *fixture
	case *offline:
		if *cacheDir == "" {
			return usageError{"--offline replays from a cache: give --cache DIR (written by an earlier --cache or --fixture run)"}
		}
		opts.Mode, opts.CacheDir = evm.ReplayOnly, *cacheDir
	case *cacheDir != "":
		opts.Mode, opts.CacheDir = evm.Record, *cacheDir
	}
	if opts.Mode != evm.ReplayOnly && *rpcURL == "" {
		return usageError{"no endpoint: give --rpc URL (or --offline --cache DIR to replay a recorded transaction)"}
	}
	if opts.Mode == evm.ReplayOnly {
		*rpcURL = ""
	}
	reg, err := loadRegistry(abis)
	if err != nil {
		return err
	}
	opts.Registry = reg
	ctx := context.Background()
	res, err := tracesim.Replay(ctx, *rpcURL, hash, &opts)
	var fe *tracesim.FidelityError
	if err != nil && !errors.As(err, &fe) {
		return replayError(err, *rpcURL, hash, opts)
	}
	if *fixture != "" {
		if err := checkFixture(ctx, hash, opts, res); err != nil {
			return err
		}
	}
	if *jsonOut {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		printReplay(e.stdout, res)
	}
	if *fixture != "" {
		fmt.Fprintf(e.stderr, "afr replay: fixture written to %s; replay it offline with:\n  afr replay %s --offline --cache %s%s\n",
			*fixture, hash.Hex(), *fixture, abiFlags(abis))
	}
	if fe != nil {
		return codeError{code: exitMismatch, err: fmt.Errorf("the replay does not match the chain's receipt (%d mismatches, listed under Fidelity)", len(fe.Mismatches))}
	}
	return nil
}

// parseTxHash accepts 0x and exactly 64 hex digits.
func parseTxHash(s string) (common.Hash, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) != 64 || len(h) == len(s) {
		return common.Hash{}, usageError{fmt.Sprintf("transaction hash %q: want 0x and 64 hex digits", s)}
	}
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return common.Hash{}, usageError{fmt.Sprintf("transaction hash %q: %q is not a hex digit", s, c)}
		}
	}
	return common.HexToHash(s), nil
}

// replayError adds what to do to the errors a user can act on.
func replayError(err error, url string, hash common.Hash, opts tracesim.ReplayOptions) error {
	var miss *evm.MissError
	switch {
	case errors.Is(err, tracesim.ErrTxNotFound) && opts.Mode == evm.ReplayOnly:
		return fmt.Errorf("%w (hint: record it first with --rpc URL --cache %s)", err, opts.CacheDir)
	case errors.Is(err, tracesim.ErrTxNotFound):
		return fmt.Errorf("%w (hint: check the hash, and that %s is the chain it was mined on)", err, url)
	case errors.As(err, &miss):
		return fmt.Errorf("%w (hint: the cache in %s lacks it; replay once with --rpc URL --cache %s to complete it)", err, opts.CacheDir, opts.CacheDir)
	case opts.Mode != evm.ReplayOnly && isUnreachable(err):
		return fmt.Errorf("%w (hint: is the node at %s running? --offline --cache DIR replays a recorded transaction without one)", err, url)
	}
	return rulesHint(err)
}

// isUnreachable reports errors of an endpoint that did not answer (refused,
// unresolvable, timed out), as opposed to one that answered with an error.
func isUnreachable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr)
}

// checkFixture replays the transaction again from the fixture alone and
// requires the same result, so a committed fixture is known to be complete.
func checkFixture(ctx context.Context, hash common.Hash, opts tracesim.ReplayOptions, want *tracesim.ReplayResult) error {
	opts.Mode = evm.ReplayOnly
	got, err := tracesim.Replay(ctx, "", hash, &opts)
	if err != nil && !errors.Is(err, tracesim.ErrFidelity) {
		return fmt.Errorf("fixture %s does not replay offline: %w", opts.CacheDir, err)
	}
	a, err := json.Marshal(got)
	if err != nil {
		return err
	}
	b, err := json.Marshal(withStats(want, got.Stats))
	if err != nil {
		return err
	}
	if string(a) != string(b) {
		return fmt.Errorf("fixture %s replays offline to another result than the live replay", opts.CacheDir)
	}
	return nil
}

// withStats returns a copy of r with other stats (request counts differ
// between a live and an offline replay; nothing else may).
func withStats(r *tracesim.ReplayResult, s tracesim.Stats) *tracesim.ReplayResult {
	c := *r
	c.Stats = s
	return &c
}

// loadRegistry builds the ABI registry: AFR's own contracts, then every
// --abi path (a file or a directory searched recursively).
func loadRegistry(paths []string) (*calldata.Registry, error) {
	reg := calldata.NewRegistry()
	for name, abiJSON := range map[string]string{
		"EpochAnchor":      bindings.EpochAnchorMetaData.ABI,
		"PaceSmartAccount": bindings.PaceSmartAccountMetaData.ABI,
	} {
		if err := reg.AddJSON(name, "afr", []byte(abiJSON)); err != nil {
			return nil, err
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageError{fmt.Sprintf("--abi %s: %v", p, err)}
		}
		if st.IsDir() {
			rep, err := reg.LoadDir(p)
			if err != nil {
				return nil, fmt.Errorf("--abi %s: %w", p, err)
			}
			if len(rep.Loaded) == 0 {
				return nil, usageError{fmt.Sprintf("--abi %s: no ABI found in the directory (%d JSON files skipped)", p, len(rep.Skipped))}
			}
			continue
		}
		if _, err := reg.LoadFile(p); err != nil {
			return nil, fmt.Errorf("--abi %s: %w", p, err)
		}
	}
	return reg, nil
}

// abiFlags renders the --abi flags again, for a suggested command line.
func abiFlags(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(" --abi " + p)
	}
	return b.String()
}

// printReplay prints a replay as text.
func printReplay(w io.Writer, r *tracesim.ReplayResult) {
	fmt.Fprintf(w, "Transaction %s\n  block %d (%s), index %d, chain %d\n\n", r.TxHash.Hex(), r.Block, r.BlockHash.Hex(), r.Index, r.ChainID)
	printIntent(w, r.Intent)
	printEffects(w, r.Effects)
	status := "none (before Byzantium)"
	if r.Receipt.Status != nil {
		status = strconv.FormatUint(*r.Receipt.Status, 10)
	}
	fmt.Fprintf(w, "\nReceipt: status %s, gas used %d, %d logs\n", status, r.Receipt.GasUsed, r.Receipt.Logs)
	if r.Fidelity.OK {
		fmt.Fprintf(w, "Fidelity: OK (the replay matches the receipt; %d transactions executed)\n", r.Stats.Executed)
		return
	}
	fmt.Fprintf(w, "Fidelity: MISMATCH (%d)\n", len(r.Fidelity.Mismatches))
	for _, m := range r.Fidelity.Mismatches {
		fmt.Fprintf(w, "  %s: receipt %s, replay %s\n", m.Field, m.Receipt, m.Replay)
	}
}

// printIntent prints who called what.
func printIntent(w io.Writer, in calldata.Intent) {
	to := "(contract creation)"
	if in.Target != nil {
		to = in.Target.Hex()
	}
	fmt.Fprintf(w, "Intent\n  from   %s\n  to     %s\n  value  %s wei\n  call   %s\n", in.From.Hex(), to, in.Value, callString(in.Call))
	for _, inner := range in.Inner() {
		fmt.Fprintf(w, "  inner  %s %s value %s\n", inner.Target.Hex(), callString(inner.Call), inner.Value)
	}
}

// printEffects prints the outcome: status, call tree, events, transfers,
// balance and storage changes.
func printEffects(w io.Writer, ef *tracesim.Effects) {
	fmt.Fprintf(w, "\nResult: %s, gas used %d", ef.Status, ef.GasUsed)
	switch {
	case ef.Revert != nil:
		fmt.Fprintf(w, ", reverted: %s", revertString(ef.Revert))
	case ef.Error != "":
		fmt.Fprintf(w, ": %s", ef.Error)
	}
	fmt.Fprintln(w)
	if ef.Created != nil {
		fmt.Fprintf(w, "  created %s\n", ef.Created.Hex())
	}
	if ef.Calls != nil {
		fmt.Fprintln(w, "\nTrace")
		printFrame(w, ef.Calls, "  ", "  ")
	}
	if len(ef.Events) > 0 {
		fmt.Fprintln(w, "\nEvents")
		for _, l := range ef.Events {
			fmt.Fprintf(w, "  [%d] %s %s\n", l.Index, l.Address.Hex(), logString(l))
		}
	}
	if len(ef.Transfers) > 0 {
		fmt.Fprintln(w, "\nToken transfers")
		for _, t := range ef.Transfers {
			amount := "amount " + t.Amount.String()
			if t.Standard == "erc721" {
				amount = "token id " + t.TokenID.String()
			}
			fmt.Fprintf(w, "  %s %s: %s → %s, %s\n", t.Standard, t.Token.Hex(), t.From.Hex(), t.To.Hex(), amount)
		}
	}
	if len(ef.Balances) > 0 {
		fmt.Fprintln(w, "\nBalance changes (wei)")
		for _, b := range ef.Balances {
			fmt.Fprintf(w, "  %s %s → %s (%s)\n", b.Address.Hex(), b.Before, b.After, b.Delta)
		}
	}
	if len(ef.Storage) > 0 {
		fmt.Fprintln(w, "\nStorage changes")
		for _, s := range ef.Storage {
			name := ""
			if s.Contract != "" {
				name = " (" + s.Contract + ")"
			}
			fmt.Fprintf(w, "  %s%s\n", s.Address.Hex(), name)
			for _, sl := range s.Slots {
				fmt.Fprintf(w, "    %s: %s → %s\n", sl.Slot.Hex(), sl.Before.Hex(), sl.After.Hex())
			}
		}
	}
}

// printFrame prints one frame of the call tree and its subcalls, as a tree
// (first is the prefix of the frame's own line, rest of the lines below it).
func printFrame(w io.Writer, f *tracesim.Frame, first, rest string) {
	target := "(new contract)"
	if f.To != nil {
		target = f.To.Hex()
	}
	call := callString(f.Call)
	if (f.Type == "CREATE" || f.Type == "CREATE2") && f.Call != nil {
		call = fmt.Sprintf("initcode (%d bytes)", len(f.Call.Data))
	}
	value := ""
	if f.Value != nil && f.Value.Big().Sign() != 0 {
		value = " {value: " + f.Value.String() + "}"
	}
	fmt.Fprintf(w, "%s[%d] %s %s %s%s\n", first, f.GasUsed, f.Type, target, call, value)
	for _, c := range f.Calls {
		printFrame(w, c, rest+"├─ ", rest+"│  ")
	}
	var end string
	switch {
	case f.Revert != nil:
		end = "[Revert] " + revertString(f.Revert)
	case f.Error != "":
		end = "[Error] " + f.Error
	case len(f.Output) > 0:
		end = "[Return] " + shortHex(f.Output)
	default:
		end = "[Stop]"
	}
	fmt.Fprintf(w, "%s└─ ← %s\n", rest, end)
}

// callString renders decoded calldata as Contract.name(arg: value, ...), or
// the raw selector and data when it did not decode.
func callString(c *calldata.Call) string {
	if c == nil {
		return "()"
	}
	if !c.Decoded() {
		if len(c.Data) == 0 {
			return "(no calldata)"
		}
		s := "selector " + c.Selector
		if c.Selector == "" {
			s = "calldata"
		}
		return s + " " + shortHex(c.Data) + " (not decoded)"
	}
	name := c.Name
	if c.Contract != "" {
		name = c.Contract + "." + name
	}
	return name + "(" + argsString(c.Args) + ")"
}

func logString(l *calldata.DecodedLog) string {
	if l.Name == "" {
		topic := "(no topics)"
		if len(l.Topics) > 0 {
			topic = "topic " + l.Topics[0].Hex()
		}
		return fmt.Sprintf("%s data %s (not decoded)", topic, shortHex(l.Data))
	}
	name := l.Name
	if l.Contract != "" {
		name = l.Contract + "." + name
	}
	return "emit " + name + "(" + argsString(l.Args) + ")"
}

func revertString(r *calldata.Revert) string {
	if r.Reason != "" {
		return r.Reason
	}
	return r.Kind + " " + shortHex(r.Data)
}

func argsString(args []calldata.Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		v := ""
		switch x := a.Value.(type) {
		case string:
			v = x
			if a.Type == "string" {
				v = fmt.Sprintf("%q", x)
			}
		default:
			b, err := json.Marshal(x)
			if err != nil {
				v = fmt.Sprint(x)
			} else {
				v = string(b)
			}
		}
		name := a.Name
		if name == "" {
			name = fmt.Sprint(i)
		}
		parts[i] = name + ": " + v
	}
	return strings.Join(parts, ", ")
}

// shortHex renders bytes as 0x-hex, eliding the middle of long data.
func shortHex(b []byte) string {
	const keep = 36
	s := fmt.Sprintf("%#x", b)
	if len(b) == 0 {
		return "0x"
	}
	if len(b) <= keep {
		return s
	}
	return fmt.Sprintf("%s…%s (%d bytes)", s[:2+keep], s[len(s)-8:], len(b))
}
