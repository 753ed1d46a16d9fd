package tracesim

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/format"
)

func mustABI(t testing.TB, s string) abi.ABI {
	t.Helper()
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSelectorCollision: burn(uint256) and collate_propagate_storage(bytes16)
// share selector 0x42966c68. Calldata that is canonical for only one of them
// picks it; calldata valid for both picks the bound (or first) one and names
// the other.
func TestSelectorCollision(t *testing.T) {
	r := calldata.NewRegistry()
	for _, f := range []string{"Burner", "Collider"} {
		if _, err := r.LoadFile(fixtureABIs + "/" + f + ".abi.json"); err != nil {
			t.Fatal(err)
		}
	}
	sel := [4]byte{0x42, 0x96, 0x6c, 0x68}
	if n := len(r.Functions(sel, nil)); n != 2 {
		t.Fatalf("%d functions under 0x42966c68, want 2", n)
	}
	to := common.HexToAddress("0x1000")
	amount := append(sel[:], common.LeftPadBytes([]byte{5}, 32)...)
	c := r.DecodeCall(&to, amount)
	if c.Signature != "burn(uint256)" || len(c.Collisions) != 0 || c.Args[0].Value != "5" {
		t.Errorf("burn(5): %+v", c)
	}
	// Every word is a valid uint256: a clean bytes16 is ambiguous.
	tag := append(sel[:], common.RightPadBytes([]byte{0xab}, 32)...)
	c = r.DecodeCall(&to, tag)
	if c.Signature != "burn(uint256)" || len(c.Collisions) != 1 {
		t.Errorf("tag: %+v", c)
	}
	zero := append(sel[:], make([]byte, 32)...)
	c = r.DecodeCall(&to, zero)
	if c.Signature != "burn(uint256)" || len(c.Collisions) != 1 || c.Collisions[0] != "collate_propagate_storage(bytes16)" {
		t.Errorf("ambiguous, unbound: %+v", c)
	}
	if err := r.Bind(to, "Collider"); err != nil {
		t.Fatal(err)
	}
	c = r.DecodeCall(&to, zero)
	if c.Signature != "collate_propagate_storage(bytes16)" || len(c.Collisions) != 1 || c.Collisions[0] != "burn(uint256)" {
		t.Errorf("ambiguous, bound to Collider: %+v", c)
	}
}

func TestDecodeCallUnknownAndMalformed(t *testing.T) {
	r := calldata.NewRegistry()
	if err := r.Add("T", "", mustABI(t, `[{"type":"function","name":"f","inputs":[{"name":"x","type":"uint8"},{"name":"s","type":"string"}]}]`)); err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x1")
	unknown := common.FromHex("0xdeadbeef0102")
	c := r.DecodeCall(&to, unknown)
	if c.Decoded() || c.Selector != "0xdeadbeef" || !strings.Contains(c.Error, "no ABI") || hexutil.Encode(c.Data) != "0xdeadbeef0102" {
		t.Errorf("unknown selector: %+v", c)
	}
	in := calldata.IntentOf(r, 1, common.Address{}, &to, nil, unknown)
	if in.Tool != "0xdeadbeef" || !strings.EqualFold(hexutil.Encode(in.Record().Data), "0xdeadbeef0102") {
		t.Errorf("unknown selector intent: tool %q data %x", in.Tool, in.Record().Data)
	}
	// uint8 with a value above 255 does not decode.
	a, _ := r.Contract("T")
	sel := a.ABI.Methods["f"].ID
	bad := append(append([]byte{}, sel...), common.LeftPadBytes([]byte{1, 0}, 32)...)
	if c := r.DecodeCall(&to, bad); c.Decoded() || !strings.Contains(c.Error, "do not decode") {
		t.Errorf("malformed args: %+v", c)
	}
	good, err := a.ABI.Pack("f", uint8(7), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if c := r.DecodeCall(&to, append(good, 0xff)); !c.Decoded() || !c.NonCanonical {
		t.Errorf("trailing byte: %+v", c)
	}
	if c := r.DecodeCall(&to, nil); calldata.IntentOf(r, 1, common.Address{}, &to, nil, nil).Tool != calldata.ToolValueTransfer || c.Error != "" {
		t.Errorf("empty calldata: %+v", c)
	}
	if in := calldata.IntentOf(r, 1, common.Address{}, nil, nil, []byte{0x60}); in.Tool != calldata.ToolCreate || in.Target != nil {
		t.Errorf("creation: %+v", in)
	}
	if in := calldata.IntentOf(r, 1, common.Address{}, &to, nil, []byte{1, 2}); in.Tool != calldata.ToolFallback {
		t.Errorf("short calldata: %+v", in)
	}
	var nilReg *calldata.Registry
	if c := nilReg.DecodeCall(&to, unknown); c.Decoded() {
		t.Errorf("nil registry decoded %+v", c)
	}
}

// TestDecodeLogTransferShapes: ERC-20 and ERC-721 Transfer share a topic;
// the number of topics picks the definition, and Transfers reads both.
func TestDecodeLogTransferShapes(t *testing.T) {
	from, to := common.HexToAddress("0xa"), common.HexToAddress("0xb")
	tok := common.HexToAddress("0xc")
	erc20 := []common.Hash{TransferTopic, common.BytesToHash(from[:]), common.BytesToHash(to[:])}
	erc721 := append(append([]common.Hash{}, erc20...), common.BigToHash(big.NewInt(9)))
	amount := common.LeftPadBytes([]byte{42}, 32)
	var r *calldata.Registry // built-in standard events only
	e := r.DecodeLog(tok, erc20, amount)
	if e.Contract != "ERC20" || e.Args[2].Name != "value" || e.Args[2].Value != "42" {
		t.Errorf("erc20: %+v", e)
	}
	e = r.DecodeLog(tok, erc721, nil)
	if e.Contract != "ERC721" || e.Args[2].Name != "tokenId" || e.Args[2].Value != "9" || !e.Args[2].Indexed {
		t.Errorf("erc721: %+v", e)
	}
	e = r.DecodeLog(tok, []common.Hash{crypto.Keccak256Hash([]byte("Nope()"))}, nil)
	if e.Signature != "" || !strings.Contains(e.Error, "no ABI") {
		t.Errorf("unknown event: %+v", e)
	}
	dirty := append([]common.Hash{}, erc20...)
	dirty[1][0] = 1 // not a clean address
	if e := r.DecodeLog(tok, dirty, amount); e.Signature != "" {
		t.Errorf("dirty topic decoded: %+v", e)
	}
}

// TestNestedCalls decodes a Multicall3 aggregate3 carrying a PACE execute
// that carries an ERC-20 transfer.
func TestNestedCalls(t *testing.T) {
	r := testRegistry(t, nil, fixtureABIs)
	m3, _ := r.Contract("Multicall3")
	pace, _ := r.Contract("PaceSmartAccount")
	tok, _ := r.Contract("TestToken")
	bob, tka, acct := common.HexToAddress("0xb0b"), common.HexToAddress("0x7ca"), common.HexToAddress("0xacc7")
	transfer, _ := tok.ABI.Pack("transfer", bob, big.NewInt(3))
	exec, err := pace.ABI.Pack("execute", tka, big.NewInt(0), transfer, paceTerms{Decision: 1}, paceSig{})
	if err != nil {
		t.Fatal(err)
	}
	type call3 struct {
		Target       common.Address
		AllowFailure bool
		CallData     []byte
	}
	agg, err := m3.ABI.Pack("aggregate3", []call3{{acct, false, exec}, {tka, true, common.FromHex("0xdeadbeef")}})
	if err != nil {
		t.Fatal(err)
	}
	mc := common.HexToAddress("0xca11")
	in := calldata.IntentOf(r, 1, bob, &mc, nil, agg)
	if in.Tool != "aggregate3((address,bool,bytes)[])" {
		t.Fatalf("tool %q", in.Tool)
	}
	inner := in.Inner()
	if len(inner) != 2 || !strings.HasPrefix(inner[0].Tool, "execute(") || inner[1].Tool != "0xdeadbeef" {
		t.Fatalf("inner: %+v", inner)
	}
	leaf := inner[0].Inner()
	if len(leaf) != 1 || leaf[0].Tool != "transfer(address,uint256)" || *leaf[0].Target != tka || leaf[0].From != acct {
		t.Fatalf("leaf: %+v", leaf)
	}
	if a, _ := leaf[0].Call.Arg("to"); a.Value != bob.Hex() {
		t.Errorf("leaf to = %v", a.Value)
	}
}

func TestLoadDirForgeAndWaffle(t *testing.T) {
	r := calldata.NewRegistry()
	rep, err := r.LoadDir("../contracts/out")
	if err != nil {
		t.Fatalf("forge artifacts (hint: make test builds them with forge first): %v", err)
	}
	if _, ok := r.Contract("PaceSmartAccount"); !ok {
		t.Fatal("contracts/out holds no PaceSmartAccount artifact (hint: forge build)")
	}
	for p, why := range rep.Skipped {
		if strings.Contains(p, "build-info") && !strings.Contains(why, "not an ABI") {
			t.Errorf("%s skipped for %q", p, why)
		}
	}
	rep, err = r.LoadDir(uniCoreBuild)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Contract("UniswapV2Pair"); !ok {
		t.Errorf("UniswapV2Pair not loaded: %+v", rep)
	}
	if why := rep.Skipped[uniCoreBuild+"/Combined-Json.json"]; why == "" {
		t.Errorf("Combined-Json.json not reported as skipped")
	}
	if err := r.AddJSON("bad", "", []byte(`[{"type":"function","name":"f","inputs":[{"type":"strin"}]}]`)); err == nil {
		t.Error("invalid ABI type accepted")
	}
	if err := r.Bind(common.Address{}, "NoSuchContract"); err == nil {
		t.Error("bind to an unknown contract accepted")
	}
}

func TestCompareIntent(t *testing.T) {
	r := testRegistry(t, nil, fixtureABIs)
	tok, _ := r.Contract("TestToken")
	tka, bob, eve := common.HexToAddress("0x7ca"), common.HexToAddress("0xb0b"), common.HexToAddress("0xe7e")
	data, _ := tok.ABI.Pack("transfer", bob, big.NewInt(100))
	obs := calldata.IntentOf(r, 10, common.Address{}, &tka, nil, data)
	rec := obs.Record()
	// Through a CBOR round trip, as the verifier reads it.
	enc, err := format.EncodePayload(&format.Payload{Intent: &rec})
	if err != nil {
		t.Fatal(err)
	}
	p, err := format.DecodePayload(enc)
	if err != nil {
		t.Fatal(err)
	}
	if d := calldata.CompareIntent(*p.Intent, obs); len(d) != 0 {
		t.Fatalf("identical: %v", d)
	}
	// And through JSON.
	js, _ := json.Marshal(rec)
	var back format.Intent
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if d := calldata.CompareIntent(back, obs); len(d) != 0 {
		t.Fatalf("json round trip: %v", d)
	}
	lie := *p.Intent
	lie.Target = eve.Bytes()
	lie.Value = big.NewInt(1).Bytes()
	lie.Tool = "approve(address,uint256)"
	lie.ChainID = 1
	lie.Args = map[string]any{"to": map[string]any{"type": "address", "value": eve.Hex()}, "value": "100", "extra": true}
	d := calldata.CompareIntent(lie, obs)
	fields := []string{}
	for _, x := range d {
		fields = append(fields, x.Field)
	}
	want := "chain_id target value function args.extra args.to"
	if strings.Join(fields, " ") != want {
		t.Errorf("fields %q, want %q (%v)", strings.Join(fields, " "), want, d)
	}
	lie = *p.Intent
	lie.Data = append(common.CopyBytes(lie.Data), 0)
	if d := calldata.CompareIntent(lie, obs); len(d) != 1 || d[0].Field != "data" {
		t.Errorf("data: %v", d)
	}
}

// TestSimulateOnFixtureFork simulates proposed calls on the committed fork
// state (block 14, offline) with and without overrides, as a bundle, and
// checks that a read the cache lacks is an error naming the slot.
func TestSimulateOnFixtureFork(t *testing.T) {
	fi, addrs := loadFixtureInfo(t)
	reg := testRegistry(t, addrs, fixtureABIs, uniCoreBuild, uniPeriBuild)
	// The fixture cache is version 1 (no rules of its own) of a local chain.
	f, err := evm.OpenFork(context.Background(), evm.ForkConfig{Mode: evm.ReplayOnly, CacheDir: fixtureCache + "/forks",
		ChainID: fi.ChainID, Block: "14", ChainConfig: pragueConfig(fi.ChainID)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env, err := evm.New(evm.Config{Fork: f})
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := reg.Contract("TestToken")
	alice, bob := common.HexToAddress(fi.Addresses["alice"]), common.HexToAddress(fi.Addresses["bob"])
	tka := addrs["TKA"]
	data, _ := tok.ABI.Pack("transfer", bob, ether(5))
	sim, err := Simulate(context.Background(), env, CallRequest{From: alice, To: &tka, Data: data}, &SimOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	s := sim.Calls[0]
	if s.Effects.Status != StatusSuccess || len(s.Effects.Transfers) != 1 || s.Intent.Tool != "transfer(address,uint256)" || sim.Block != 14 {
		t.Fatalf("simulation: %+v %+v", s.Intent, s.Effects)
	}
	// Nothing stayed: the same simulation again gives the same storage diff.
	again, err := Simulate(context.Background(), env, CallRequest{From: alice, To: &tka, Data: data}, &SimOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(s.Effects)
	j2, _ := json.Marshal(again.Calls[0].Effects)
	if string(j1) != string(j2) {
		t.Error("simulation left state behind")
	}
	// Bob has no 5e24 TKA: a custom-error revert is a result, not an error.
	big5, _ := tok.ABI.Pack("transfer", alice, ether(5_000_000))
	bundle, err := SimulateBundle(context.Background(), env, []CallRequest{
		{From: alice, To: &tka, Data: data},
		{From: bob, To: &tka, Data: big5},
	}, &SimOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if rv := bundle.Calls[1].Effects.Revert; rv == nil || rv.Signature != "ERC20InsufficientBalance(address,uint256,uint256)" {
		t.Errorf("bundle call 1: %+v", bundle.Calls[1].Effects)
	}
	// With a balance override (eth_call semantics), bob could pay: TKA
	// balances live in mapping slot 0 of the OZ ERC20.
	slot := crypto.Keccak256Hash(common.LeftPadBytes(bob[:], 32), make([]byte, 32))
	ov := evm.StateOverride{tka: {StateDiff: map[common.Hash]common.Hash{slot: common.BigToHash(ether(10_000_000))}}}
	sim, err = Simulate(context.Background(), env, CallRequest{From: bob, To: &tka, Data: big5}, &SimOptions{Registry: reg, State: ov})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Calls[0].Effects.Status != StatusSuccess {
		t.Errorf("with override: %+v", sim.Calls[0].Effects)
	}
	// A holder the cache never saw: the error names the missing slot.
	stranger := common.HexToAddress("0x5757")
	_, err = Simulate(context.Background(), env, CallRequest{From: alice, To: &tka, Data: func() []byte { d, _ := tok.ABI.Pack("transfer", stranger, big.NewInt(1)); return d }()}, &SimOptions{Registry: reg})
	var miss *evm.MissError
	if !errors.As(err, &miss) || miss.Kind != "storage" || miss.Address != tka {
		t.Errorf("missing slot: %v", err)
	}
}
