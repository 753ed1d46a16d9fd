package tracesim

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
)

// eraRuntime is runtime code valid under every fork since Frontier: with no
// calldata it stores NUMBER in slot 0, emits LOG1(NUMBER) and stores
// DIFFICULTY (PREVRANDAO since Paris) in slot 1; with calldata it ends in
// REVERT (an invalid opcode before Byzantium, which fails all the same).
var eraRuntime = []byte{
	0x36, 0x60, 0x13, 0x57, // CALLDATASIZE PUSH1 19 JUMPI
	0x43, 0x60, 0x00, 0x55, // NUMBER PUSH1 0 SSTORE
	0x43, 0x60, 0x00, 0x60, 0x00, 0xa1, // NUMBER PUSH1 0 PUSH1 0 LOG1
	0x44, 0x60, 0x01, 0x55, // DIFFICULTY PUSH1 1 SSTORE
	0x00,                               // STOP
	0x5b, 0x60, 0x00, 0x60, 0x00, 0xfd, // JUMPDEST PUSH1 0 PUSH1 0 REVERT
}

// eraInitcode deploys runtime unchanged.
func eraInitcode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x80, 0x60, 11, 0x60, 0, 0x39, 0x60, 0, 0xf3}, runtime...)
}

// Every hardfork anvil runs by the rules go-ethereum has for it replays
// exactly, with the rules read from the node (anvil_nodeInfo) rather than
// given: a deployment, a call that writes storage and logs, a revert and a
// failed creation, each by hash, fidelity OK (status, gas used, cumulative
// gas, logs, created address).
//
// anvil 1.7.1 runs the forks before Berlin with rules of its own: it charges
// EIP-2929's cold-access gas (an SSTORE from zero costs 22,100 under
// --hardfork istanbul, 20,000 on mainnet) and, before Spurious Dragon,
// signs with EIP-155 replay protection, which those forks reject. For these
// the replay must say that the chain did not follow the rules it reports:
// an error, never a silent OK.
func TestReplayEveryAnvilHardfork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts one anvil per hardfork (-short)")
	}
	deviant := map[string]bool{"frontier": true, "homestead": true, "tangerine": true, "spuriousdragon": true, "byzantium": true,
		"constantinople": true, "petersburg": true, "istanbul": true, "muirglacier": true}
	for _, hf := range []string{"frontier", "homestead", "tangerine", "spuriousdragon", "byzantium", "constantinople", "petersburg",
		"istanbul", "muirglacier", "berlin", "london", "arrowglacier", "grayglacier", "paris", "shanghai", "cancun", "prague", "osaka"} {
		t.Run(hf, func(t *testing.T) {
			t.Parallel()
			n := anviltest.Start(t, anvil.Options{Hardfork: hf, Accounts: 1})
			client, err := rpc.Dial(n.URL())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(client.Close)
			c := &chain{t: t, node: n, rpc: client}
			from := n.Accounts()[0]
			// Legacy transactions with a gas price: anvil refuses to fill in
			// EIP-1559 fees before London.
			submit := func(to *common.Address, data []byte) common.Hash {
				tx := map[string]any{"from": from, "data": hexutil.Bytes(data), "gas": hexutil.Uint64(300_000), "gasPrice": hexutil.Uint64(3_000_000_000)}
				if to != nil {
					tx["to"] = *to
				}
				var h common.Hash
				c.call(&h, "eth_sendTransaction", tx)
				return h
			}
			deploy := submit(nil, eraInitcode(eraRuntime))
			addr := c.receipt(deploy).ContractAddress
			txs := map[string]common.Hash{
				"deploy":      deploy,
				"call":        submit(&addr, nil),
				"revert":      submit(&addr, []byte{0xff}),
				"create-fail": submit(nil, []byte{0x60, 0, 0x60, 0, 0xfd}),
			}
			want := map[string]string{"deploy": StatusSuccess, "call": StatusSuccess, "revert": StatusReverted, "create-fail": StatusReverted}
			r, err := NewReplayer(n.URL(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if deviant[hf] {
				c.receipt(txs["call"])
				res, err := r.Replay(context.Background(), txs["call"])
				if err == nil {
					t.Fatalf("%s: anvil's gas or signatures differ from the fork's rules, yet the replay says OK: %+v", hf, res.Fidelity)
				}
				t.Logf("%s: flagged as it should be: %v", hf, err)
				return
			}
			for name, h := range txs {
				c.receipt(h)
				res, err := r.Replay(context.Background(), h)
				if err != nil {
					t.Fatalf("%s %s: %v", hf, name, err)
				}
				if !res.Fidelity.OK || res.Effects.Status != want[name] {
					t.Fatalf("%s %s: fidelity %+v, status %s (want %s)", hf, name, res.Fidelity, res.Effects.Status, want[name])
				}
				if name == "call" && (len(res.Effects.Storage) != 1 || len(res.Effects.Events) != 1) {
					t.Fatalf("%s call: storage %+v, events %d", hf, res.Effects.Storage, len(res.Effects.Events))
				}
			}
		})
	}
}
