package pdr_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/pdr"
)

// sinkAddr holds a contract whose code is STOP: the "trivial target" of the gas figures.
var sinkAddr = common.HexToAddress("0x5151515151515151515151515151515151515151")

// chain is a PaceSmartAccount deployed on go-ethereum's in-process simulated chain.
type chain struct {
	t         testing.TB
	backend   *simulated.Backend
	client    simulated.Client
	funder    *ecdsa.PrivateKey
	owner     *ecdsa.PrivateKey
	policy    *ecdsa.PrivateKey
	approvers []*ecdsa.PrivateKey
	acct      *bind.BoundContract
	abi       *abi.ABI
	dom       pdr.Domain
}

func mustKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// osaka runs the simulated chain on today's mainnet rules (Prague + Osaka). go-ethereum's dev
// chain otherwise starts on every scheduled fork, including Bogota (Amsterdam's EIP-8037/8038
// state-access repricing), which is not live on any chain yet.
func osaka(_ *node.Config, ec *ethconfig.Config) {
	cfg := *ec.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime, cfg.UBTTime = nil, nil, nil
	ec.Genesis.Config = &cfg
}

func newChain(t testing.TB, threshold uint8, options ...func(*node.Config, *ethconfig.Config)) *chain {
	t.Helper()
	c := &chain{t: t, funder: mustKey(t), owner: mustKey(t), policy: mustKey(t)}
	for range 3 {
		c.approvers = append(c.approvers, mustKey(t))
	}
	eth := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	alloc := types.GenesisAlloc{
		crypto.PubkeyToAddress(c.funder.PublicKey): {Balance: new(big.Int).Mul(eth, big.NewInt(1000))},
		crypto.PubkeyToAddress(c.owner.PublicKey):  {Balance: new(big.Int).Mul(eth, big.NewInt(10))},
		sinkAddr: {Code: []byte{0x00}, Nonce: 1},
	}
	c.backend = simulated.NewBackend(alloc, options...)
	t.Cleanup(func() { c.backend.Close() })
	c.client = c.backend.Client()

	approvers := make([]common.Address, len(c.approvers))
	for i, k := range c.approvers {
		approvers[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	p := bindings.NewPaceSmartAccount()
	input := p.PackConstructor(crypto.PubkeyToAddress(c.owner.PublicKey), crypto.PubkeyToAddress(c.policy.PublicKey), approvers, threshold)
	addr, tx, err := bind.DeployContract(c.opts(c.funder), common.FromHex(bindings.PaceSmartAccountMetaData.Bin), c.client, input)
	if err != nil {
		t.Fatal(err)
	}
	c.mine(tx)
	c.acct = p.Instance(c.client, addr)
	c.abi, _ = bindings.PaceSmartAccountMetaData.ParseABI()
	id, err := c.client.ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.dom = pdr.Domain{ChainID: id.Uint64(), Account: addr}
	// Fund the account so calls with value can succeed.
	fund := c.opts(c.funder)
	fund.Value = new(big.Int).Mul(eth, big.NewInt(100))
	tx, err = c.acct.Transfer(fund)
	if err != nil {
		t.Fatal(err)
	}
	c.mine(tx)
	return c
}

func (c *chain) opts(k *ecdsa.PrivateKey) *bind.TransactOpts {
	id := big.NewInt(1337)
	return bind.NewKeyedTransactor(k, id)
}

// mine commits a block and returns tx's receipt, failing the test if it reverted.
func (c *chain) mine(tx *types.Transaction) *types.Receipt {
	c.t.Helper()
	c.backend.Commit()
	r, err := c.client.TransactionReceipt(context.Background(), tx.Hash())
	if err != nil {
		c.t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}

// send submits calldata to the account as a real transaction and returns the receipt.
func (c *chain) send(data []byte) *types.Receipt {
	c.t.Helper()
	tx, err := c.acct.RawTransact(c.opts(c.funder), data)
	if err != nil {
		c.t.Fatalf("transact: %v (%s)", err, c.revertName(err))
	}
	return c.mine(tx)
}

// call runs calldata against the account with eth_call at the latest block; it returns the
// name of the custom error it reverts with, or "" when it does not revert.
func (c *chain) call(data []byte) string {
	c.t.Helper()
	addr := c.dom.Account
	_, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: data}, nil)
	if err == nil {
		return ""
	}
	return c.revertName(err)
}

func (c *chain) revertName(err error) string {
	var de interface{ ErrorData() any }
	if !errors.As(err, &de) {
		c.t.Fatalf("call failed without revert data: %v", err)
	}
	s, _ := de.ErrorData().(string)
	raw, _ := hexutil.Decode(s)
	if len(raw) < 4 {
		return "revert(" + s + ")"
	}
	for name, e := range c.abi.Errors {
		if [4]byte(e.ID[:4]) == [4]byte(raw[:4]) {
			return name
		}
	}
	return "unknown(" + s + ")"
}

// view calls a view method through the binding.
func view[T any](c *chain, data []byte, unpack func([]byte) (T, error)) T {
	c.t.Helper()
	v, err := bind.Call(c.acct, nil, data, unpack)
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

func (c *chain) now() uint64 {
	h, err := c.client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return h.Time
}

func (c *chain) state() *pdr.State {
	p := bindings.NewPaceSmartAccount()
	st := &pdr.State{
		Owner:          crypto.PubkeyToAddress(c.owner.PublicKey),
		PolicySigner:   view(c, p.PackPolicySigner(), p.UnpackPolicySigner),
		Threshold:      view(c, p.PackThreshold(), p.UnpackThreshold),
		Nonce:          view(c, p.PackNonce(), p.UnpackNonce),
		DelegatedNonce: view(c, p.PackDelegatedNonce(), p.UnpackDelegatedNonce),
		Approvers:      map[common.Address]bool{},
		Revoked:        map[common.Hash]bool{},
		Spent:          map[common.Hash]*big.Int{},
	}
	for _, k := range c.approvers {
		st.Approvers[crypto.PubkeyToAddress(k.PublicKey)] = true
	}
	return st
}
