package calldata_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/calldata"
)

func mustABI(t testing.TB, s string) abi.ABI {
	t.Helper()
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// revertData is the revert data of error e of a with args.
func revertData(t testing.TB, a abi.ABI, e string, args ...any) []byte {
	t.Helper()
	enc, err := a.Errors[e].Inputs.Pack(args...)
	if err != nil {
		t.Fatal(err)
	}
	id := a.Errors[e].ID
	return append(id[:4:4], enc...)
}

// standard is the revert data of Error(string) or Panic(uint256) with arg.
func standard(t testing.TB, sig string, arg any) []byte {
	t.Helper()
	typ, err := abi.NewType(sig[strings.Index(sig, "(")+1:len(sig)-1], "", nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := abi.Arguments{{Type: typ}}.Pack(arg)
	if err != nil {
		t.Fatal(err)
	}
	return append(crypto.Keccak256([]byte(sig))[:4], enc...)
}

const tooLowABI = `[{"type":"error","name":"TooLow","inputs":[{"name":"got","type":"uint256"},{"name":"who","type":"address"}]}]`

func TestDecodeRevert(t *testing.T) {
	r := calldata.NewRegistry()
	if err := r.Add("Vault", "", mustABI(t, tooLowABI)); err != nil {
		t.Fatal(err)
	}
	va, _ := r.Contract("Vault")
	who := common.HexToAddress("0xbeef")
	tooLow := revertData(t, va.ABI, "TooLow", big.NewInt(3), who)
	huge := new(big.Int).Lsh(big.NewInt(1), 255)
	for _, c := range []struct {
		name         string
		data         []byte
		kind, reason string
		// decoded: Name, Contract and Values; str: String()
		errName, contract string
		values            []any
		str               string
	}{
		{name: "custom error with arguments", data: tooLow, kind: "custom",
			reason:  "TooLow(got=3, who=0x000000000000000000000000000000000000bEEF)",
			errName: "TooLow", contract: "Vault", values: []any{big.NewInt(3), who},
			str: "TooLow(got=3, who=0x000000000000000000000000000000000000bEEF)"},
		{name: "Error(string)", data: standard(t, "Error(string)", "nope"), kind: "error", reason: "nope",
			errName: "Error", values: []any{"nope"}, str: `Error(message="nope")`},
		{name: "Error(string) empty message", data: standard(t, "Error(string)", ""), kind: "error", reason: "",
			errName: "Error", values: []any{""}, str: `Error(message="")`},
		{name: "Panic overflow", data: standard(t, "Panic(uint256)", big.NewInt(0x11)), kind: "panic",
			reason:  "panic 0x11: arithmetic overflow or underflow",
			errName: "Panic", values: []any{big.NewInt(0x11)}, str: "Panic(code=0x11: arithmetic overflow or underflow)"},
		{name: "Panic assert", data: standard(t, "Panic(uint256)", big.NewInt(0x01)), kind: "panic",
			reason: "panic 0x1: assertion failed", errName: "Panic", values: []any{big.NewInt(1)}, str: "Panic(code=0x1: assertion failed)"},
		{name: "Panic index", data: standard(t, "Panic(uint256)", big.NewInt(0x32)), kind: "panic",
			reason: "panic 0x32: array index out of bounds", errName: "Panic", values: []any{big.NewInt(0x32)}, str: "Panic(code=0x32: array index out of bounds)"},
		{name: "Panic unknown code", data: standard(t, "Panic(uint256)", big.NewInt(0x99)), kind: "panic",
			reason: "panic 0x99: unknown panic code", errName: "Panic", values: []any{big.NewInt(0x99)}, str: "Panic(code=0x99: unknown panic code)"},
		{name: "Panic code above uint64", data: standard(t, "Panic(uint256)", huge), kind: "panic",
			reason: "panic 0x8000000000000000000000000000000000000000000000000000000000000000: unknown panic code", errName: "Panic", values: []any{huge},
			str: "Panic(code=0x8000000000000000000000000000000000000000000000000000000000000000: unknown panic code)"},
		{name: "empty", data: nil, kind: "empty", reason: "execution reverted without data", str: "no revert data"},
		{name: "short", data: []byte{1, 2}, kind: "custom", reason: "malformed revert data 0x0102", str: "malformed revert data 0x0102"},
		{name: "unknown selector", data: common.FromHex("0x12345678aa"), kind: "custom", reason: "custom error 0x12345678",
			str: "unknown revert data 0x12345678aa (no known contract has an error with selector 0x12345678)"},
		{name: "garbage Error(string)", data: common.FromHex("0x08c379a00000"), kind: "error", reason: "malformed Error(string)",
			str: "undecodable revert data 0x08c379a00000 (Error(string) does not decode: abi: cannot marshal in to go type: length insufficient 2 require 32)"},
		{name: "garbage Panic(uint256)", data: common.FromHex("0x4e487b71ff"), kind: "panic", reason: "malformed Panic(uint256)",
			str: "undecodable revert data 0x4e487b71ff (Panic(uint256) does not decode: abi: cannot marshal in to go type: length insufficient 1 require 32)"},
		{name: "custom error, truncated arguments", data: tooLow[:40], kind: "custom", reason: "custom error " + hexutil.Encode(tooLow[:4]),
			str: "undecodable revert data " + hexutil.Encode(tooLow[:40]) + " (custom error does not decode: TooLow(uint256,address): abi: cannot marshal in to go type: length insufficient 36 require 64)"},
		{name: "custom error, dirty address padding", data: append(append([]byte{}, tooLow[:36]...), append([]byte{0xff}, tooLow[37:]...)...), kind: "custom",
			reason: "custom error " + hexutil.Encode(tooLow[:4]),
			str: "undecodable revert data " + hexutil.Encode(append(append([]byte{}, tooLow[:36]...), append([]byte{0xff}, tooLow[37:]...)...)) +
				" (custom error does not decode: TooLow(uint256,address): does not re-encode to the same bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rv := calldata.DecodeRevert(r, c.data, common.Address{})
			if rv.Kind != c.kind || rv.Reason != c.reason {
				t.Errorf("kind %q reason %q, want %q %q", rv.Kind, rv.Reason, c.kind, c.reason)
			}
			if rv.Name != c.errName || rv.Contract != c.contract || !reflect.DeepEqual(rv.Values, c.values) {
				t.Errorf("name %q contract %q values %v, want %q %q %v", rv.Name, rv.Contract, rv.Values, c.errName, c.contract, c.values)
			}
			if got := rv.String(); got != c.str {
				t.Errorf("String() = %q, want %q", got, c.str)
			}
			if want := c.str; c.contract != "" {
				if want = c.contract + "." + c.str; rv.Qualified() != want {
					t.Errorf("Qualified() = %q, want %q", rv.Qualified(), want)
				}
			} else if rv.Qualified() != want {
				t.Errorf("Qualified() = %q, want %q", rv.Qualified(), want)
			}
			if hexutil.Encode(rv.Data) != hexutil.Encode(c.data) {
				t.Errorf("data %x, want the raw data %x", rv.Data, c.data)
			}
			if undecoded := c.errName == "" && len(c.data) > 0; (rv.Error != "") != undecoded {
				t.Errorf("Error %q, want one only for data that did not decode", rv.Error)
			}
		})
	}
	// No registry: the standard errors decode, custom ones do not.
	if rv := calldata.DecodeRevert(nil, tooLow, common.Address{}); rv.Name != "" || !strings.HasPrefix(rv.String(), "unknown revert data") {
		t.Errorf("nil registry: %+v", rv)
	}
	if rv := calldata.DecodeRevert(nil, standard(t, "Error(string)", "x"), common.Address{}); rv.Reason != "x" {
		t.Errorf("nil registry, Error(string): %+v", rv)
	}
}

// TestDecodeRevertNamesTheRevertingContract: an error two contracts
// declare alike (from a shared base) is named after the contract bound to
// the reverting address, not after the one registered first; unbound, it is
// the first registered.
func TestDecodeRevertNamesTheRevertingContract(t *testing.T) {
	const base = `[{"type":"error","name":"NotOwner","inputs":[{"name":"caller","type":"address"}]}]`
	r := calldata.NewRegistry()
	for _, n := range []string{"Token", "Vault"} {
		if err := r.Add(n, "", mustABI(t, base)); err != nil {
			t.Fatal(err)
		}
	}
	vault, other := common.HexToAddress("0x7a"), common.HexToAddress("0x70")
	if err := r.Bind(vault, "Vault"); err != nil {
		t.Fatal(err)
	}
	if err := r.Bind(other, "Token"); err != nil {
		t.Fatal(err)
	}
	c, _ := r.Contract("Vault")
	caller := common.HexToAddress("0xca11e4")
	data := revertData(t, c.ABI, "NotOwner", caller)
	for _, tc := range []struct {
		at   common.Address
		want string
	}{
		{vault, "Vault"},
		{other, "Token"},
		{common.HexToAddress("0x99"), "Token"}, // unbound: registration order
	} {
		rv := calldata.DecodeRevert(r, data, tc.at)
		want := tc.want + ".NotOwner(caller=" + caller.Hex() + ")"
		if rv.Contract != tc.want || rv.Qualified() != want || len(rv.Collisions) != 0 {
			t.Errorf("revert at %s: contract %q %q collisions %v, want %q", tc.at.Hex(), rv.Contract, rv.Qualified(), rv.Collisions, want)
		}
	}
}

// TestDecodeRevertCollision: burn(uint256) and
// collate_propagate_storage(bytes16) share selector 0x42966c68. Data valid
// for both is named after the bound contract's error, the other listed in
// Collisions; data valid for one only picks it.
func TestDecodeRevertCollision(t *testing.T) {
	r := calldata.NewRegistry()
	if err := r.Add("Burner", "", mustABI(t, `[{"type":"error","name":"burn","inputs":[{"name":"amount","type":"uint256"}]}]`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("Collider", "", mustABI(t, `[{"type":"error","name":"collate_propagate_storage","inputs":[{"name":"key","type":"bytes16"}]}]`)); err != nil {
		t.Fatal(err)
	}
	at := common.HexToAddress("0xc0")
	if err := r.Bind(at, "Collider"); err != nil {
		t.Fatal(err)
	}
	b, _ := r.Contract("Burner")
	both := revertData(t, b.ABI, "burn", new(big.Int).Lsh(big.NewInt(1), 200)) // low 16 bytes zero: a clean bytes16 too
	onlyBurn := revertData(t, b.ABI, "burn", big.NewInt(1))
	for _, c := range []struct {
		name     string
		data     []byte
		at       common.Address
		contract string
		coll     []string
	}{
		{"both decode, unbound", both, common.Address{}, "Burner", []string{"collate_propagate_storage(bytes16)"}},
		{"both decode, bound", both, at, "Collider", []string{"burn(uint256)"}},
		{"one decodes, bound to the other", onlyBurn, at, "Burner", nil},
	} {
		rv := calldata.DecodeRevert(r, c.data, c.at)
		if rv.Contract != c.contract || !reflect.DeepEqual(rv.Collisions, c.coll) {
			t.Errorf("%s: contract %q collisions %v, want %q %v", c.name, rv.Contract, rv.Collisions, c.contract, c.coll)
		}
	}
}

// TestRevertJSON: the JSON is docs/SPEC.md's revert; Name and Values stay
// out of it.
func TestRevertJSON(t *testing.T) {
	rv := calldata.DecodeRevert(nil, standard(t, "Panic(uint256)", big.NewInt(0x12)), common.Address{})
	b, err := json.Marshal(rv)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"panic","reason":"panic 0x12: division or modulo by zero","signature":"Panic(uint256)","args":[{"name":"code","type":"uint256","value":"18"}],"data":"0x4e487b710000000000000000000000000000000000000000000000000000000000000012"}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

func ExampleDecodeRevert() {
	reg := calldata.NewRegistry()
	vault := common.HexToAddress("0x5a")
	a, _ := abi.JSON(strings.NewReader(`[{"type":"error","name":"NotOwner","inputs":[{"name":"caller","type":"address"}]}]`))
	_ = reg.Add("Vault", "", a)
	_ = reg.Bind(vault, "Vault")
	args, _ := a.Errors["NotOwner"].Inputs.Pack(common.HexToAddress("0xca11e4"))
	id := a.Errors["NotOwner"].ID
	data := append(id[:4:4], args...)

	rv := calldata.DecodeRevert(reg, data, vault)
	fmt.Println(rv.Qualified())
	fmt.Println(calldata.DecodeRevert(reg, common.FromHex("0x4e487b710000000000000000000000000000000000000000000000000000000000000011"), vault))
	fmt.Println(calldata.DecodeRevert(reg, nil, vault))
	// Output:
	// Vault.NotOwner(caller=0x0000000000000000000000000000000000CA11e4)
	// Panic(code=0x11: arithmetic overflow or underflow)
	// no revert data
}
