package tracesim

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/agentflightrecorder/afr/evm"
)

// deployRuntime deploys runtime code unchanged and returns its address.
func deployRuntime(t *testing.T, env *evm.Env, from common.Address, runtime []byte) common.Address {
	t.Helper()
	n := byte(len(runtime))
	initcode := append([]byte{0x60, n, 0x80, 0x60, 11, 0x60, 0, 0x39, 0x60, 0, 0xf3}, runtime...)
	res, err := env.Deploy(context.Background(), from, initcode, nil)
	if err != nil || res.Failed() {
		t.Fatalf("deploy: %v %v", err, res)
	}
	return res.ContractAddress
}

// A simulation carries the fields of the transaction it stands for: a gas
// price that GASPRICE reads, a nonce, and an EIP-7702 authorization list,
// whose delegation shows as a code change (not a plain call).
func TestSimulateTransactionFields(t *testing.T) {
	ctx := context.Background()
	env, err := evm.New(evm.Config{FundedAccounts: 2, Block: &evm.Block{Number: 5, Time: 1_700_000_000, GasLimit: 30_000_000, BaseFee: big.NewInt(7)}})
	if err != nil {
		t.Fatal(err)
	}
	sender, authority := env.Accounts()[0], env.Accounts()[1]
	// GASPRICE PUSH1 0 SSTORE STOP
	priced := deployRuntime(t, env, sender.Address, []byte{0x3a, 0x60, 0, 0x55, 0x00})

	sim, err := Simulate(ctx, env, CallRequest{From: sender.Address, To: &priced, GasPrice: big.NewInt(50)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := sim.Calls[0].Effects
	if len(e.Storage) != 1 || e.Storage[0].Slots[0].After != common.BigToHash(big.NewInt(50)) {
		t.Fatalf("GASPRICE stored %+v, want 50", e.Storage)
	}
	if len(e.Balances) == 0 {
		t.Fatal("a priced simulation paid no fee")
	}

	nonce := uint64(40)
	sim, err = Simulate(ctx, env, CallRequest{From: sender.Address, Data: []byte{0x60, 0, 0x60, 0, 0xf3}, Nonce: &nonce}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Calls[0].Effects.Nonces) == 0 || sim.Calls[0].Effects.Nonces[0].After != 41 {
		t.Fatalf("nonce changes %+v, want the sender at 41", sim.Calls[0].Effects.Nonces)
	}

	chainID := uint256.MustFromBig(env.ChainConfig().ChainID)
	auth, err := types.SignSetCode(authority.Key, types.SetCodeAuthorization{ChainID: *chainID, Address: priced, Nonce: 0})
	if err != nil {
		t.Fatal(err)
	}
	bystander := common.HexToAddress("0xb157a4de7")
	sim, err = Simulate(ctx, env, CallRequest{From: sender.Address, To: &bystander, AuthorizationList: []types.SetCodeAuthorization{auth}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e = sim.Calls[0].Effects
	if e.GasUsed <= params.TxGas {
		t.Fatalf("set-code simulation used %d gas: the authorization was not sent", e.GasUsed)
	}
	var found bool
	for _, c := range e.Code {
		if c.Address == authority.Address && c.Kind == CodeDelegated && c.Delegate != nil && *c.Delegate == priced {
			found = true
		}
	}
	if !found {
		t.Fatalf("code changes %+v, want the authority delegated to %s", e.Code, priced.Hex())
	}
	if code, _ := env.Code(authority.Address); len(code) != 0 {
		t.Fatal("the simulation left the delegation in the state")
	}
}

// RequestOf carries every field of a signed transaction.
func TestRequestOf(t *testing.T) {
	key := evm.DevAccounts(1)[0]
	to := common.HexToAddress("0x7e57")
	signer := types.LatestSignerForChainID(big.NewInt(1337))
	tx, err := types.SignNewTx(key.Key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: 7, GasTipCap: big.NewInt(2), GasFeeCap: big.NewInt(9),
		Gas: 60_000, To: &to, Value: big.NewInt(3), Data: []byte{1, 2}, AccessList: types.AccessList{{Address: to}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := RequestOf(tx, signer)
	if err != nil {
		t.Fatal(err)
	}
	if r.From != key.Address || *r.To != to || r.Nonce == nil || *r.Nonce != 7 || r.Gas != 60_000 || r.GasFeeCap.Int64() != 9 ||
		r.GasTipCap.Int64() != 2 || r.GasPrice != nil || r.Value.Int64() != 3 || len(r.AccessList) != 1 || len(r.Data) != 2 {
		t.Fatalf("request %+v", r)
	}
	if _, err := RequestOf(tx, types.LatestSignerForChainID(big.NewInt(5))); err == nil {
		t.Fatal("a transaction of chain 1337 recovered a sender with chain 5's signer")
	}
}
