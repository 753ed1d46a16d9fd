package pdr_test

import (
	"bytes"
	"crypto/ecdsa"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/pdr"
)

// Permit2-like application: its domain has no account and its struct no owner field.
const permitType = "PermitTransfer(address token,uint256 amount,address spender,uint256 nonce,uint256 deadline)"

var (
	permitApp = crypto.Keccak256Hash(
		crypto.Keccak256([]byte("EIP712Domain(string name,uint256 chainId,address verifyingContract)")),
		crypto.Keccak256([]byte("Permit2")),
		common.LeftPadBytes([]byte{0x05, 0x39}, 32), // chain id 1337
		common.LeftPadBytes(common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3").Bytes(), 32),
	)
	permitContents = crypto.Keccak256Hash(crypto.Keccak256([]byte(permitType)), common.LeftPadBytes([]byte{0xda, 0x01}, 32))
)

// deployAccount deploys another PaceSmartAccount on c's chain with owner as its owner.
func deployAccount(c *chain, owner *ecdsa.PrivateKey) pdr.Domain {
	c.t.Helper()
	p := bindings.NewPaceSmartAccount()
	input := p.PackConstructor(crypto.PubkeyToAddress(owner.PublicKey), crypto.PubkeyToAddress(c.policy.PublicKey), nil, 0)
	addr, tx, err := bind.DeployContract(c.opts(c.funder), common.FromHex(bindings.PaceSmartAccountMetaData.Bin), c.client, input)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mine(tx)
	return pdr.Domain{ChainID: c.dom.ChainID, Account: addr}
}

// isValidSignature calls the account d names through the binding (eth_call); it fails the test
// when the call reverts.
func isValidSignature(c *chain, d pdr.Domain, hash common.Hash, sig []byte) [4]byte {
	c.t.Helper()
	p := bindings.NewPaceSmartAccount()
	got, err := bind.Call(p.Instance(c.client, d.Account), nil, p.PackIsValidSignature(hash, sig), p.UnpackIsValidSignature)
	if err != nil {
		c.t.Fatalf("isValidSignature reverted: %v", err)
	}
	return got
}

// TestERC1271BoundToAccount runs pdr's owner-side helpers against the contract on the
// simulated chain: a signature they make for account A validates on A and on no other account
// of the same owner, in both ERC-7739 forms (finding 5 of issue 12).
func TestERC1271BoundToAccount(t *testing.T) {
	c := newChain(t, 1)
	a := c.dom
	b := deployAccount(c, c.owner)

	p := bindings.NewPaceSmartAccount()
	if sep := view(c, p.PackDomainSeparator(), p.UnpackDomainSeparator); common.Hash(sep) != a.Separator() {
		t.Fatalf("domainSeparator %x, want %x", sep, a.Separator())
	}

	hash := crypto.Keccak256Hash([]byte("message"))
	sigA, err := pdr.SignERC1271(c.owner, a, hash)
	if err != nil {
		t.Fatal(err)
	}
	sigB, err := pdr.SignERC1271(c.owner, b, hash)
	if err != nil {
		t.Fatal(err)
	}
	permit := pdr.TypedDataHash(permitApp, permitContents)
	permitA, err := pdr.SignERC1271TypedData(c.owner, a, permitApp, permitContents, permitType)
	if err != nil {
		t.Fatal(err)
	}
	permitB, err := pdr.SignERC1271TypedData(c.owner, b, permitApp, permitContents, permitType)
	if err != nil {
		t.Fatal(err)
	}
	rawSig, err := pdr.Sign(c.owner, hash)
	if err != nil {
		t.Fatal(err)
	}
	otherChain := pdr.Domain{ChainID: a.ChainID + 1, Account: a.Account}
	sigOtherChain, err := pdr.SignERC1271(c.owner, otherChain, hash)
	if err != nil {
		t.Fatal(err)
	}
	notOwner, err := pdr.SignERC1271(c.policy, a, hash)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		acct pdr.Domain
		hash common.Hash
		sig  []byte
		want [4]byte
	}{
		{"personal sign for A on A", a, hash, sigA, pdr.ERC1271Magic},
		{"personal sign for A on B", b, hash, sigA, pdr.ERC1271Invalid},
		{"personal sign for B on B", b, hash, sigB, pdr.ERC1271Magic},
		{"personal sign for B on A", a, hash, sigB, pdr.ERC1271Invalid},
		{"typed data sign for A on A", a, permit, permitA, pdr.ERC1271Magic},
		{"typed data sign for A on B", b, permit, permitA, pdr.ERC1271Invalid},
		{"typed data sign for B on B", b, permit, permitB, pdr.ERC1271Magic},
		{"typed data sign for B on A", a, permit, permitB, pdr.ERC1271Invalid},
		{"raw signature of the hash", a, hash, rawSig.RSV(), pdr.ERC1271Invalid},
		{"compact signature", a, hash, sigA[:64], pdr.ERC1271Invalid},
		{"another chain id", a, hash, sigOtherChain, pdr.ERC1271Invalid},
		{"not the owner", a, hash, notOwner, pdr.ERC1271Invalid},
		{"another hash", a, crypto.Keccak256Hash([]byte("other")), sigA, pdr.ERC1271Invalid},
		{"ERC-7739 probe", a, pdr.ERC7739Probe, nil, pdr.ERC7739Supported},
	} {
		if got := isValidSignature(c, tc.acct, tc.hash, tc.sig); got != tc.want {
			t.Errorf("%s: isValidSignature = %x, want %x", tc.name, got, tc.want)
		}
	}
}

// TestERC1271ContentsDescrMatchesContract compares ParseContentsDescr with the contract's
// descriptor parsing (OpenZeppelin's ERC7739Utils) on random descriptors over the characters
// that matter: a descriptor Go accepts yields a nested signature the contract accepts (so both
// split it into the same name and type), one Go refuses is refused on chain.
func TestERC1271ContentsDescrMatchesContract(t *testing.T) {
	c := newChain(t, 1)
	const alphabet = "AAbb(), \x00"
	rng := rand.New(rand.NewPCG(1, 2))
	descrs := []string{permitType, permitType + "PermitTransfer", "", "(a)", "A(", "A)", ")A", "A", "A B(x)", "A(x)B", "A(x)B C"}
	word := func(n int) string {
		var s strings.Builder
		for range rng.IntN(n) {
			s.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return s.String()
	}
	for i := range 400 {
		if i%2 == 0 {
			descrs = append(descrs, word(8))
		} else { // the shape of a type string, name(…)…, with a name in front or behind
			descrs = append(descrs, word(3)+"("+word(3)+")"+word(3))
		}
	}
	var accepted, refused int
	for _, descr := range descrs {
		hash := pdr.TypedDataHash(permitApp, permitContents)
		sig, err := pdr.SignERC1271TypedData(c.owner, c.dom, permitApp, permitContents, descr)
		if err != nil {
			if !errors.Is(err, pdr.ErrContentsDescr) {
				t.Fatalf("%q: %v", descr, err)
			}
			// Refused in Go: the contract must refuse the descriptor whatever the signature; sign
			// the digest of the descriptor taken whole as the name and as the type.
			typeHash := crypto.Keccak256([]byte("TypedDataSign(" + descr + " contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)" + descr))
			var chainID [32]byte
			chainID[31] = byte(c.dom.ChainID)
			chainID[30] = byte(c.dom.ChainID >> 8)
			structHash := crypto.Keccak256(typeHash, permitContents[:], crypto.Keccak256([]byte(pdr.DomainName)),
				crypto.Keccak256([]byte(pdr.DomainVersion)), chainID[:], common.LeftPadBytes(c.dom.Account[:], 32), make([]byte, 32))
			inner, err := pdr.Sign(c.owner, pdr.TypedDataHash(permitApp, common.Hash(structHash)))
			if err != nil {
				t.Fatal(err)
			}
			sig = append(append(append(inner.RSV(), permitApp[:]...), permitContents[:]...), descr...)
			sig = append(sig, byte(len(descr)>>8), byte(len(descr)))
			if got := isValidSignature(c, c.dom, hash, sig); got != pdr.ERC1271Invalid {
				t.Errorf("descriptor %q refused by pdr, isValidSignature = %x", descr, got)
			}
			refused++
			continue
		}
		if got := isValidSignature(c, c.dom, hash, sig); got != pdr.ERC1271Magic {
			t.Errorf("descriptor %q accepted by pdr, isValidSignature = %x", descr, got)
		}
		accepted++
	}
	t.Logf("%d descriptors accepted, %d refused", accepted, refused)
	if accepted < 20 || refused < 20 {
		t.Fatalf("%d descriptors accepted, %d refused: the generator no longer covers both", accepted, refused)
	}
}

func TestParseContentsDescr(t *testing.T) {
	for _, tc := range []struct {
		descr, name, typ string
		ok               bool
	}{
		{permitType, "PermitTransfer", permitType, true},
		{permitType + "PermitTransfer", "PermitTransfer", permitType, true},
		{"A(B b)B(uint256 x)", "A", "A(B b)B(uint256 x)", true},
		{"B(uint256 x)A(B b)A", "A", "B(uint256 x)A(B b)", true},
		{"", "", "", false},
		{"(uint256 x)", "", "", false},
		{"A B(uint256 x)", "", "", false},
		{"A,B(uint256 x)", "", "", false},
		{"A\x00(uint256 x)", "", "", false},
		{"A(uint256 x)B C", "", "", false},
		{"A(uint256 x) ", "", "", false},
		{"A", "", "", false},
	} {
		name, typ, err := pdr.ParseContentsDescr(tc.descr)
		if tc.ok != (err == nil) || name != tc.name || typ != tc.typ {
			t.Errorf("ParseContentsDescr(%q) = %q, %q, %v; want %q, %q, ok %v", tc.descr, name, typ, err, tc.name, tc.typ, tc.ok)
		}
		if err != nil && !errors.Is(err, pdr.ErrContentsDescr) {
			t.Errorf("ParseContentsDescr(%q): error %v does not wrap ErrContentsDescr", tc.descr, err)
		}
	}
}

// TestERC1271DigestsBindDomain: the digests change with the account and with the chain id,
// and the PersonalSign digest is the EIP-712 formula written out.
func TestERC1271DigestsBindDomain(t *testing.T) {
	hash := crypto.Keccak256Hash([]byte("message"))
	a := pdr.Domain{ChainID: 1, Account: common.HexToAddress("0x00000000000000000000000000000000000000aa")}
	b := pdr.Domain{ChainID: 1, Account: common.HexToAddress("0x00000000000000000000000000000000000000bb")}
	other := pdr.Domain{ChainID: 10, Account: a.Account}
	sep := a.Separator()
	want := crypto.Keccak256Hash([]byte{0x19, 0x01}, sep[:], crypto.Keccak256(crypto.Keccak256([]byte("PersonalSign(bytes prefixed)")), hash[:]))
	if got := pdr.PersonalSignDigest(a, hash); got != want {
		t.Fatalf("PersonalSignDigest = %x, want %x", got, want)
	}
	if pdr.PersonalSignDigest(a, hash) == pdr.PersonalSignDigest(b, hash) || pdr.PersonalSignDigest(a, hash) == pdr.PersonalSignDigest(other, hash) {
		t.Fatal("PersonalSignDigest does not depend on the account or chain id")
	}
	da, _ := pdr.TypedDataSignDigest(a, permitApp, permitContents, permitType)
	db, _ := pdr.TypedDataSignDigest(b, permitApp, permitContents, permitType)
	dc, _ := pdr.TypedDataSignDigest(other, permitApp, permitContents, permitType)
	if da == db || da == dc {
		t.Fatal("TypedDataSignDigest does not depend on the account or chain id")
	}
	enc, err := pdr.EncodeTypedDataSig([]byte{1, 2, 3}, permitApp, permitContents, "A(uint256 x)")
	if err != nil {
		t.Fatal(err)
	}
	wantEnc := append(append(append([]byte{1, 2, 3}, permitApp[:]...), permitContents[:]...), "A(uint256 x)\x00\x0c"...)
	if !bytes.Equal(enc, wantEnc) {
		t.Fatalf("EncodeTypedDataSig = %x, want %x", enc, wantEnc)
	}
	if _, err := pdr.EncodeTypedDataSig(nil, permitApp, permitContents, "A(x)"+strings.Repeat("y", 0xffff)); !errors.Is(err, pdr.ErrContentsDescr) {
		t.Fatalf("descriptor of 65,540 bytes: err %v, want ErrContentsDescr", err)
	}
}
