package backend_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestApplyRefusesGasAndPrices: an applied call needs a gas limit and
// takes no gas price (it pays none); a plain value transfer applies, and
// moves the balance without a block.
func TestApplyRefusesGasAndPrices(t *testing.T) {
	ctx := context.Background()
	c := startInProcess(t)
	from, to := crypto.PubkeyToAddress(c.Keys()[0].PublicKey), common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	for _, msg := range []ethereum.CallMsg{
		{From: from, To: &to},
		{From: from, To: &to, Gas: 21_000, GasPrice: big.NewInt(1)},
		{From: from, To: &to, Gas: 21_000, GasFeeCap: big.NewInt(1)},
	} {
		if _, err := c.Apply(ctx, msg); err == nil || !strings.Contains(err.Error(), "chain: apply") {
			t.Errorf("Apply(gas %d, prices %v/%v) = %v, want refused", msg.Gas, msg.GasPrice, msg.GasFeeCap, err)
		}
	}
	head, _ := c.Client().BlockNumber(ctx)
	res, err := c.Apply(ctx, ethereum.CallMsg{From: from, To: &to, Gas: 21_000, Value: big.NewInt(5)})
	if err != nil || res.Err != nil {
		t.Fatalf("Apply(transfer) = %v, %v", res, err)
	}
	if bal, err := c.Client().BalanceAt(ctx, to, nil); err != nil || bal.Int64() != 5 {
		t.Errorf("balance after the applied transfer = %v (%v), want 5", bal, err)
	}
	if n, _ := c.Client().BlockNumber(ctx); n != head {
		t.Errorf("head %d → %d: Apply sealed a block", head, n)
	}
}
