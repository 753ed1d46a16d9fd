package main

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/tracesim"
)

func init() {
	register(&command{name: "simulate", summary: "simulate a call or signed transaction on a fork of a chain", run: runSimulate, usage: `
Usage: afr simulate --rpc URL --block N --from ADDR [--to ADDR] [--data 0x…] [--value WEI] [--gas G] [flags]
       afr simulate --rpc URL --block N --raw 0xSIGNEDTX [flags]

Forks the chain's state at block N (a number, a block hash, or "latest",
which is pinned to the current block number first and printed) in AFR's
in-process EVM, executes the call as a transaction from --from (with its
nonce and no fee; the gas limit defaults to the block's), traces it and
discards every change. It prints, as afr replay does, the intent, the call
tree, the events, token transfers and balance and storage changes. Nothing
is sent to the chain.

--raw takes a signed transaction of any type (the bytes
eth_sendRawTransaction takes): its sender is recovered from the signature
with the signer of the fork's rules, and it is simulated with every field it
carries: nonce (a nonce other than the sender's at block N is reported, and
used), gas price or fee caps (charged, so GASPRICE and balances are what
they would be), access list, EIP-7702 authorization list (delegations show
as code changes), blob hashes and blob fee cap.

` + rulesUsage + `

--state-override and --block-override are JSON files in the format of
eth_call's third and fourth arguments, e.g.
  {"0xabc…": {"balance": "0xde0b6b3a7640000", "stateDiff": {"0x0…0": "0x…01"}}}
  {"number": "0x1000", "time": "0x6700000"}

Calldata, events and custom errors decode with --abi as in afr replay.
--json prints the simulation as JSON (docs/SPEC.md, "Tracesim output").

Exit codes: 0 simulated (the call's own outcome, success or reverted, is in
the output); 1 the simulation could not run (unreachable endpoint, unknown
block, invalid message); 2 usage.

Examples:
  afr simulate --rpc http://127.0.0.1:8545 --block latest --from 0xf39F… --to 0x5FbD… --data 0xd09de08a
  afr simulate --rpc http://127.0.0.1:8545 --block 19000000 --raw 0x02f8… --abi ./contracts/out --json
  afr simulate --rpc http://127.0.0.1:8545 --block latest --from 0xf39F… --to 0x5FbD… --data 0x… \
      --state-override overrides.json`})
}

func runSimulate(e *env, args []string) error {
	fs := commands["simulate"].flags(e)
	rpcURL := fs.String("rpc", "", "JSON-RPC endpoint of the chain to fork")
	block := fs.String("block", "", `block to fork at: a number, a block hash, or "latest"`)
	from := fs.String("from", "", "sender address")
	to := fs.String("to", "", "target address (none: a contract creation with --data as initcode)")
	data := fs.String("data", "", "calldata, 0x-hex")
	value := fs.String("value", "", "value in wei, decimal or 0x-hex")
	gas := fs.Uint64("gas", 0, "gas limit (default: the block gas limit)")
	raw := fs.String("raw", "", "a signed transaction, 0x-hex, instead of --from/--to/--data/--value/--gas")
	stateFile := fs.String("state-override", "", "JSON file of state overrides (eth_call's third argument)")
	blockFile := fs.String("block-override", "", "JSON file of block overrides (eth_call's fourth argument)")
	var abis repeated
	fs.Var(&abis, "abi", "ABI JSON file, build artifact or directory of them (repeatable)")
	jsonOut := fs.Bool("json", false, "print the simulation as JSON")
	rules := addRulesFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected arguments %q", fs.Args())}
	}
	if *rpcURL == "" {
		return usageError{"no endpoint: give --rpc URL"}
	}
	if *block == "" {
		return usageError{`no block: give --block N (a number, a block hash, or "latest")`}
	}
	callFlags := *from != "" || *to != "" || *data != "" || *value != "" || *gas != 0
	if (*raw != "") == callFlags {
		return usageError{"give either --raw SIGNEDTX or a call (--from, and --to, --data, --value, --gas as needed)"}
	}
	var opts tracesim.SimOptions
	if *stateFile != "" {
		if err := readOverrides(*stateFile, "--state-override", &opts.State); err != nil {
			return err
		}
	}
	if *blockFile != "" {
		opts.Block = new(evm.BlockOverrides)
		if err := readOverrides(*blockFile, "--block-override", opts.Block); err != nil {
			return err
		}
	}
	var call tracesim.CallRequest
	var tx *types.Transaction
	if *raw != "" {
		var err error
		if tx, err = decodeRawTx(*raw); err != nil {
			return err
		}
	} else {
		var err error
		if call, err = parseCall(*from, *to, *data, *value, *gas); err != nil {
			return err
		}
	}
	reg, err := loadRegistry(abis)
	if err != nil {
		return err
	}
	opts.Registry = reg

	ctx := context.Background()
	pinned := *block
	if isBlockTag(pinned) {
		if pinned != "latest" {
			return usageError{fmt.Sprintf("--block %s: give a number, a block hash or latest", pinned)}
		}
		if pinned, err = evm.PinLatest(ctx, *rpcURL); err != nil {
			return fmt.Errorf("%w (hint: is the node at %s running?)", err, *rpcURL)
		}
		fmt.Fprintf(e.stderr, "afr simulate: latest is block %s\n", pinned)
	}
	chainConfig, hardfork, err := rules.resolve()
	if err != nil {
		return err
	}
	fork, err := evm.OpenFork(ctx, evm.ForkConfig{URL: *rpcURL, Block: pinned, Mode: evm.Live, ChainConfig: chainConfig, Hardfork: hardfork})
	if err != nil {
		if isUnreachable(err) {
			return fmt.Errorf("%w (hint: is the node at %s running?)", err, *rpcURL)
		}
		return rulesHint(err)
	}
	defer fork.Close()
	env, err := evm.New(evm.Config{Fork: fork})
	if err != nil {
		return err
	}
	if tx != nil {
		if call, err = rawCall(e, env, tx); err != nil {
			return err
		}
	}
	sim, err := tracesim.Simulate(ctx, env, call, &opts)
	if err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(e.stdout, sim)
	}
	fmt.Fprintf(e.stdout, "Simulated on chain %d at block %d (%s)\n\n", sim.ChainID, sim.Block, sim.BlockHash.Hex())
	for _, c := range sim.Calls {
		printIntent(e.stdout, c.Intent)
		printEffects(e.stdout, c.Effects)
	}
	return nil
}

// isBlockTag reports a block tag rather than a number or hash.
func isBlockTag(s string) bool {
	switch s {
	case "latest", "pending", "safe", "finalized", "earliest":
		return true
	}
	return false
}

// readOverrides decodes an override file, rejecting unknown fields (a
// misspelt "stateDiff" must not be ignored).
func readOverrides(path, flagName string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usageError{fmt.Sprintf("%s: %v", flagName, err)}
	}
	if err := strictjson.UnmarshalKnown(b, v); err != nil {
		return usageError{fmt.Sprintf("%s %s: %v (want eth_call's override JSON)", flagName, path, err)}
	}
	return nil
}

// parseCall builds a call request from the flags.
func parseCall(from, to, data, value string, gas uint64) (tracesim.CallRequest, error) {
	var c tracesim.CallRequest
	if from == "" {
		return c, usageError{"no sender: give --from ADDR"}
	}
	if !common.IsHexAddress(from) {
		return c, usageError{fmt.Sprintf("--from %q: not an address (0x and 40 hex digits)", from)}
	}
	c.From = common.HexToAddress(from)
	if to != "" {
		if !common.IsHexAddress(to) {
			return c, usageError{fmt.Sprintf("--to %q: not an address (0x and 40 hex digits)", to)}
		}
		addr := common.HexToAddress(to)
		c.To = &addr
	}
	if data != "" {
		b, err := hexutil.Decode(data)
		if err != nil {
			return c, usageError{fmt.Sprintf("--data: %v (want 0x-hex calldata)", err)}
		}
		c.Data = b
	}
	if c.To == nil && len(c.Data) == 0 {
		return c, usageError{"no --to and no --data: give --to for a call, or --data with initcode for a contract creation"}
	}
	if value != "" {
		var d calldata.Dec
		if err := d.UnmarshalText([]byte(value)); err != nil || d.Big().Sign() < 0 {
			return c, usageError{fmt.Sprintf("--value %q: want a non-negative amount of wei, decimal or 0x-hex", value)}
		}
		c.Value = d.Big()
	}
	c.Gas = gas
	return c, nil
}

// decodeRawTx decodes a signed transaction in its network encoding.
func decodeRawTx(s string) (*types.Transaction, error) {
	b, err := hexutil.Decode(strings.TrimSpace(s))
	if err != nil {
		return nil, usageError{fmt.Sprintf("--raw: %v (want the signed transaction as 0x-hex)", err)}
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(b); err != nil {
		return nil, usageError{fmt.Sprintf("--raw: not a signed transaction: %v", err)}
	}
	return tx, nil
}

// rawCall is the request that sends tx on the fork's chain, its sender
// recovered with the signer of the fork's rules; a nonce other than the
// sender's at the block is noted on stderr.
func rawCall(e *env, env *evm.Env, tx *types.Transaction) (tracesim.CallRequest, error) {
	chainID := env.ChainConfig().ChainID
	if tx.Protected() && tx.ChainId().Cmp(chainID) != 0 {
		return tracesim.CallRequest{}, usageError{fmt.Sprintf("--raw: the transaction is signed for chain %s, the endpoint is chain %s", tx.ChainId(), chainID)}
	}
	call, err := tracesim.RequestOf(tx, types.MakeSigner(env.ChainConfig(), new(big.Int).SetUint64(env.Block().Number), env.Block().Time))
	if err != nil {
		return tracesim.CallRequest{}, usageError{fmt.Sprintf("--raw: %v", err)}
	}
	nonce, err := env.Nonce(call.From)
	if err != nil {
		return tracesim.CallRequest{}, err
	}
	if nonce != tx.Nonce() {
		fmt.Fprintf(e.stderr, "afr simulate: the transaction's nonce is %d, the sender's nonce at the block is %d (simulated with %d)\n", tx.Nonce(), nonce, tx.Nonce())
	}
	return call, nil
}
