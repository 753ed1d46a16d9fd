package pdr_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// echoAddr holds a contract that returns address(this) ‖ msg.value ‖ msg.data, so an eth_call
// of the account shows exactly which call it made.
var echoAddr = common.HexToAddress("0xec40ec40ec40ec40ec40ec40ec40ec40ec40ec40")

// ADDRESS PUSH0 MSTORE  CALLVALUE PUSH1 0x20 MSTORE  CALLDATASIZE PUSH0 PUSH1 0x40 CALLDATACOPY
// CALLDATASIZE PUSH1 0x40 ADD PUSH0 RETURN
var echoCode = common.FromHex("0x305f5234602052365f604037366040015ff3")

func withEcho(_ *node.Config, ec *ethconfig.Config) {
	ec.Genesis.Alloc[echoAddr] = types.Account{Code: echoCode, Nonce: 1}
}

// rawCall runs data against the account with eth_call and returns its output, or its revert
// data and true.
func (c *chain) rawCall(t testing.TB, data []byte) (out []byte, revertData []byte, reverted bool) {
	t.Helper()
	addr := c.dom.Account
	out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: data}, nil)
	if err == nil {
		return out, nil, false
	}
	var de interface{ ErrorData() any }
	if !errors.As(err, &de) {
		t.Fatalf("call failed without revert data: %v", err)
	}
	s, _ := de.ErrorData().(string)
	raw, _ := hexutil.Decode(s)
	return nil, raw, true
}

// FuzzCompactCalldataDifferential (issue 12): pdr.ParseCompactCalldata and the contract's
// executeCompact_dFki0 decode the same byte strings. For random bytes after the compact
// selector: Go rejects them as ErrMalformedCompactCall exactly when the contract reverts with
// MalformedCompactCall(); otherwise Go's decoding re-encodes to the same bytes, pdr.Verify of
// the decoded PDR and call has the contract's outcome (with the same revert data for nonce,
// decision and signer failures, whose arguments depend on every decoded field through the
// digest), and an accepted call is exactly the decoded (target, value, data), as echoed by the
// target.
func FuzzCompactCalldataDifferential(f *testing.F) {
	c := newChain(f, 1, withEcho)
	st, now := c.state(), c.now()
	balance, err := c.client.BalanceAt(context.Background(), c.dom.Account, nil)
	if err != nil {
		f.Fatal(err)
	}
	seed := func(call pdr.Call, terms pdr.Terms, approvers int) []byte {
		s, err := pdr.SignPDR(c.policy, pdr.ForCall(c.dom, call, terms))
		if err != nil {
			f.Fatal(err)
		}
		for _, k := range c.approvers[:approvers] {
			if err := s.Approve(k); err != nil {
				f.Fatal(err)
			}
		}
		cd, err := pdr.CompactCalldata(&s, call)
		if err != nil {
			f.Fatal(err)
		}
		return cd[4:]
	}
	ok := pdr.Terms{Nonce: st.Nonce, Decision: format.DecisionAllow, Expiry: now + 3600, PolicyID: common.Hash{1}, EventID: common.Hash{2}}
	approved := ok
	approved.ApprovalRequired = true
	denied := ok
	denied.Decision = format.DecisionDeny
	stale := ok
	stale.Nonce++
	seeds := [][]byte{
		seed(pdr.Call{Target: echoAddr, Data: []byte{0xde, 0xad, 0xbe, 0xef, 1}}, ok, 0),
		seed(pdr.Call{Target: echoAddr, Value: big.NewInt(12345)}, ok, 0),
		seed(pdr.Call{Target: echoAddr, Value: big.NewInt(1), Data: bytes.Repeat([]byte{0xab}, 100)}, approved, 1),
		seed(pdr.Call{Target: echoAddr, Value: new(big.Int).Lsh(big.NewInt(1), 255), Data: []byte{1}}, approved, 2),
		seed(pdr.Call{Target: sinkAddr, Data: []byte{1, 2, 3, 4}}, denied, 0),
		seed(pdr.Call{Target: echoAddr}, stale, 0),
		seed(pdr.Call{Target: c.dom.Account}, ok, 0),
	}
	for _, s := range seeds {
		f.Add(s)
		f.Add(s[:len(s)-1])                // truncated
		f.Add(s[:pdr.CompactHeaderSize-5]) // shorter than the header
		for _, mut := range []struct{ at, b int }{{37, 2}, {38, 3}, {39, 33}, {39, 1}, {36, 1}, {36, 0}, {38, 255}} {
			m := append([]byte{}, s...)
			m[mut.at] = byte(mut.b) // approvalRequired, n, L, decision
			f.Add(m)
		}
		m := append([]byte{}, s...)
		m[39]++ // one more value byte: a leading data byte, possibly zero (not minimal)
		f.Add(m)
	}
	f.Add([]byte{})
	malformedID := c.abi.Errors["MalformedCompactCall"].ID
	malformed := malformedID[:4]

	f.Fuzz(func(t *testing.T, b []byte) {
		full := append(append([]byte{}, pdr.CompactSelector[:]...), b...)
		s, call, perr := pdr.ParseCompactCalldata(c.dom, full)
		out, rev, reverted := c.rawCall(t, full)
		if perr != nil {
			if !errors.Is(perr, pdr.ErrMalformedCompactCall) {
				t.Fatalf("go: %v, not ErrMalformedCompactCall", perr)
			}
			if !reverted || !bytes.Equal(rev, malformed) {
				t.Fatalf("go rejects as malformed (%v); contract: reverted %v, data %x", perr, reverted, rev)
			}
			return
		}
		if reverted && bytes.Equal(rev, malformed) {
			t.Fatalf("contract reverts MalformedCompactCall; go decodes %+v", call)
		}
		if cd, err := pdr.CompactCalldata(&s, call); err != nil || !bytes.Equal(cd, full) {
			t.Fatalf("decoded calldata does not re-encode to the same bytes (%v)", err)
		}
		goErr := pdr.Verify(st, &s, call, now, true)
		if goErr == nil {
			if reverted {
				t.Fatalf("go accepts; contract reverts %x", rev)
			}
			res, err := c.abi.Methods["executeCompact_dFki0"].Outputs.Unpack(out)
			if err != nil {
				t.Fatal(err)
			}
			success, result := res[0].(bool), res[1].([]byte)
			v := valueOf(call.Value)
			if success != (v.Cmp(balance) <= 0) {
				t.Fatalf("call success %v with value %v (balance %v)", success, v, balance)
			}
			if success && call.Target == echoAddr {
				want := append(append(common.LeftPadBytes(echoAddr[:], 32), common.LeftPadBytes(v.Bytes(), 32)...), call.Data...)
				if !bytes.Equal(result, want) {
					t.Fatalf("the contract called (%x), go decoded target %s value %v data %x", result, call.Target, v, call.Data)
				}
			}
			return
		}
		var pe *pdr.Error
		if !errors.As(goErr, &pe) {
			t.Fatalf("go: non-pdr error %v", goErr)
		}
		if !reverted || len(rev) < 4 {
			t.Fatalf("go rejects (%v); contract: reverted %v, data %x", goErr, reverted, rev)
		}
		e, ok := c.abi.Errors[pe.Name]
		if !ok || !bytes.Equal(rev[:4], e.ID[:4]) {
			t.Fatalf("go rejects with %s (%v); contract reverts %x", pe.Name, goErr, rev)
		}
		var args []any
		switch pe.Name {
		case "InvalidNonce":
			args = []any{st.Nonce, s.PDR.Nonce}
		case "DecisionNotAllow":
			args = []any{pdr.ChainDecision(s.PDR.Decision)}
		case "UnauthorizedPolicySigner":
			signer, err := s.Signature.Recover(s.PDR.Digest())
			if err != nil {
				t.Fatal(err)
			}
			args = []any{signer}
		default:
			return
		}
		packed, err := e.Inputs.Pack(args...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rev[4:], packed) {
			t.Fatalf("%s: contract arguments %x, go %x", pe.Name, rev[4:], packed)
		}
	})
}
