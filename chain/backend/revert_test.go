package backend_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
)

// TestReverted: both local chains answer a call that reverts with an error
// chain.Reverted recognises by its code, carrying the revert data even when
// it is empty or shorter than a selector; a call that fails otherwise is no
// revert.
func TestReverted(t *testing.T) {
	for name, start := range fixedTime {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := start(t)
			c, key := b.Client(), b.Keys()[0]
			for _, tc := range []struct {
				runtime string // code of the called contract
				data    []byte // the revert data it returns
			}{
				{"5f5ffd", []byte{}},                                         // revert(0, 0)
				{"61abcd5f526002601efd", []byte{0xab, 0xcd}},                 // mstore(0, 0xabcd); revert(30, 2)
				{"63deadbeef5f526004601cfd", []byte{0xde, 0xad, 0xbe, 0xef}}, // mstore(0, 0xdeadbeef); revert(28, 4)
			} {
				addr := deployCode(t, ctx, c, key, tc.runtime)
				_, err := c.CallContract(ctx, ethereum.CallMsg{From: chain.Address(key), To: &addr}, nil)
				data, ok := chain.Reverted(err)
				if !ok || string(data) != string(tc.data) {
					t.Errorf("code %s: Reverted(%v) = %x, %v; want %x, true", tc.runtime, err, data, ok, tc.data)
				}
				if rd, ok := chain.RevertData(err); ok != (len(tc.data) >= 4) || ok && string(rd) != string(tc.data) {
					t.Errorf("code %s: RevertData(%v) = %x, %v", tc.runtime, err, rd, ok)
				}
			}
			// Not a revert: a transfer beyond the sender's balance.
			poor := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
			_, err := c.CallContract(ctx, ethereum.CallMsg{From: poor, To: &poor, Value: common.Big1}, nil)
			if data, ok := chain.Reverted(err); err == nil || ok {
				t.Errorf("transfer from an empty account: err %v, Reverted = %x, %v; want an error that is no revert", err, data, ok)
			}
		})
	}
}

// deployCode creates a contract whose code is the hex runtime and returns
// its address.
func deployCode(t *testing.T, ctx context.Context, c chain.Client, key *ecdsa.PrivateKey, runtime string) common.Address {
	t.Helper()
	code := common.FromHex(runtime)
	// codecopy(0, 12, n); return(0, n), then the runtime code
	init := append(common.FromHex(fmt.Sprintf("60%02x600c60003960%02x6000f3", len(code), len(code))), code...)
	rc, err := chain.Transact(ctx, c, key, nil, nil, init)
	if err != nil {
		t.Fatal(err)
	}
	return rc.ContractAddress
}
