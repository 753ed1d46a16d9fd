package pdr_test

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

func randHash(r *rand.Rand) (h common.Hash) {
	for i := range h {
		h[i] = byte(r.UintN(256))
	}
	return h
}

func randAddr(r *rand.Rand) common.Address { return common.BytesToAddress(randHash(r).Bytes()) }

func randBytes(r *rand.Rand, max int) []byte {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

func randUint256(r *rand.Rand) *big.Int {
	switch r.IntN(3) {
	case 0:
		return new(big.Int)
	case 1:
		return big.NewInt(r.Int64N(1 << 40))
	}
	return new(big.Int).SetBytes(randHash(r).Bytes())
}

func randTerms(r *rand.Rand) pdr.Terms {
	return pdr.Terms{
		Nonce: r.Uint64(), PolicyID: randHash(r), Decision: pdr.DecisionFromChain(uint8(r.UintN(256))), ApprovalRequired: r.IntN(2) == 0,
		Expiry: r.Uint64(), EventID: randHash(r),
	}
}

func randDelegation(r *rand.Rand) pdr.Delegation {
	d := pdr.Delegation{
		Delegator: randAddr(r), Delegate: randAddr(r), Parent: randHash(r),
		MaxValuePerCall: randUint256(r), MaxValueTotal: randUint256(r), Expiry: r.Uint64(), Salt: randHash(r),
	}
	for range r.IntN(4) {
		d.Targets = append(d.Targets, randAddr(r))
	}
	for range r.IntN(4) {
		d.Selectors = append(d.Selectors, [4]byte(randHash(r).Bytes()[:4]))
	}
	return d
}

// TestDifferentialDigests: Go and the contract compute the same EIP-712 digests for random
// PDRs (policy-signed and delegated), batches and delegations.
func TestDifferentialDigests(t *testing.T) {
	c := newChain(t, 1)
	p := bindings.NewPaceSmartAccount()
	r := rand.New(rand.NewPCG(42, 4))
	if got := view(c, p.PackDomainSeparator(), p.UnpackDomainSeparator); common.Hash(got) != c.dom.Separator() {
		t.Fatalf("domain separator: contract %x, go %x", got, c.dom.Separator())
	}
	for i := range 64 {
		call := pdr.Call{Target: randAddr(r), Value: randUint256(r), Data: randBytes(r, 100)}
		terms := randTerms(r)
		want := pdr.ForCall(c.dom, call, terms)
		got := view(c, p.PackHashPDR(call.Target, call.Value, call.Data, terms.Binding()), p.UnpackHashPDR)
		if common.Hash(got) != want.Digest() {
			t.Fatalf("case %d: hashPDR: contract %x, go %x", i, got, want.Digest())
		}
		gotDel := view(c, p.PackHashDelegatedPDR(call.Target, call.Value, call.Data, terms.Binding()), p.UnpackHashDelegatedPDR)
		if common.Hash(gotDel) != want.DelegatedDigest() || want.DelegatedDigest() == want.Digest() {
			t.Fatalf("case %d: hashDelegatedPDR: contract %x, go %x (policy-signed %x)", i, gotDel, want.DelegatedDigest(), want.Digest())
		}

		calls := make([]pdr.Call, 1+r.IntN(3))
		bc := make([]bindings.IPaceSmartAccountCall, len(calls))
		for j := range calls {
			calls[j] = pdr.Call{Target: randAddr(r), Value: big.NewInt(r.Int64N(1 << 50)), Data: randBytes(r, 70)}
			bc[j] = calls[j].Binding()
		}
		batch := pdr.ForBatch(c.dom, calls, terms)
		gotB := view(c, p.PackHashBatch(bc, terms.Binding()), p.UnpackHashBatch)
		if common.Hash(gotB) != batch.Digest() {
			t.Fatalf("case %d: hashBatch: contract %x, go %x", i, gotB, batch.Digest())
		}

		d := randDelegation(r)
		gotD := view(c, p.PackHashDelegation(d.Binding()), p.UnpackHashDelegation)
		if common.Hash(gotD) != d.Digest(c.dom) {
			t.Fatalf("case %d: hashDelegation: contract %x, go %x", i, gotD, d.Digest(c.dom))
		}
	}
}

// scenario is one randomly mutated submission.
type scenario struct {
	name          string
	s             pdr.SignedPDR
	call          pdr.Call
	withApprovals bool
}

// TestDifferentialVerify: on random valid and mutated submissions, pdr.Verify and the contract
// (eth_call of execute / executeWithApprovals / executeDelegated, and of the compact calldata
// for every undelegated submission) accept the same ones and reject the others with the same
// custom error.
func TestDifferentialVerify(t *testing.T) {
	c := newChain(t, 2)
	r := rand.New(rand.NewPCG(7, 11))
	delegate, sub, attacker := mustKey(t), mustKey(t), mustKey(t)

	// Move the nonce off zero with real executions first.
	for range 2 {
		st := c.state()
		call := pdr.Call{Target: sinkAddr, Data: []byte{1, 2, 3, 4}}
		s, err := pdr.SignPDR(c.policy, pdr.ForCall(c.dom, call, pdr.Terms{Nonce: st.Nonce, Decision: format.DecisionAllow, Expiry: c.now() + 3600}))
		if err != nil {
			t.Fatal(err)
		}
		data, err := s.Calldata(call)
		if err != nil {
			t.Fatal(err)
		}
		c.send(data)
	}

	counts := map[string]int{}
	for i := range 300 {
		st := c.state()
		now := c.now()
		sc := randomScenario(t, r, c, st, now, delegate, sub, attacker)
		goErr := pdr.Verify(st, &sc.s, sc.call, now, sc.withApprovals)
		want := ""
		if goErr != nil {
			e, ok := goErr.(*pdr.Error)
			if !ok {
				t.Fatalf("case %d (%s): non-pdr error %v", i, sc.name, goErr)
			}
			want = e.Name
		}
		data, err := sc.s.Calldata(sc.call)
		if err != nil {
			t.Fatalf("case %d (%s): calldata: %v", i, sc.name, err)
		}
		if len(sc.s.Delegations) == 0 && !sc.withApprovals {
			p := bindings.NewPaceSmartAccount()
			data = p.PackExecute(sc.call.Target, valueOf(sc.call.Value), sc.call.Data, sc.s.PDR.Terms().Binding(), sc.s.Signature.Binding())
		} else if len(sc.s.Delegations) == 0 {
			p := bindings.NewPaceSmartAccount()
			data = p.PackExecuteWithApprovals(sc.call.Target, valueOf(sc.call.Value), sc.call.Data, sc.s.PDR.Terms().Binding(), sc.s.Signature.Binding(), pdr.BindingSigs(sc.s.Approvals))
		}
		got := c.call(data)
		if got != want {
			t.Fatalf("case %d (%s): contract %q, go %q (%v)", i, sc.name, got, want, goErr)
		}
		if len(sc.s.Delegations) == 0 {
			// The compact calldata is executeWithApprovals in another encoding: same outcome.
			cd, err := pdr.CompactCalldata(&sc.s, sc.call)
			if err != nil {
				t.Fatal(err)
			}
			wantC := errName(t, pdr.Verify(st, &sc.s, sc.call, now, true))
			if gotC := c.call(cd); gotC != wantC {
				t.Fatalf("case %d (%s), compact: contract %q, go %q", i, sc.name, gotC, wantC)
			}
			counts[sc.name+" (compact) → "+orAccepted(wantC)]++
			ps, pc, err := pdr.ParseCompactCalldata(c.dom, cd)
			if err != nil {
				t.Fatalf("case %d: parse compact: %v", i, err)
			}
			wantPDR := pdr.ForCall(c.dom, sc.call, sc.s.PDR.Terms())
			if ps.PDR.Digest() != wantPDR.Digest() || ps.Signature != sc.s.Signature ||
				len(ps.Approvals) != len(sc.s.Approvals) || pc.Target != sc.call.Target || valueOf(pc.Value).Cmp(valueOf(sc.call.Value)) != 0 {
				t.Fatalf("case %d: compact calldata does not round-trip", i)
			}
		}
		if want == "" {
			want = "accepted"
		}
		counts[sc.name+" → "+want]++
	}
	for k, n := range counts {
		t.Logf("%4d %s", n, k)
	}
	if len(counts) < 20 {
		t.Fatalf("only %d distinct scenario outcomes; the generator is too narrow", len(counts))
	}
}

// errName is the contract error name of a pdr.Verify outcome, "" for acceptance.
func errName(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := err.(*pdr.Error)
	if !ok {
		t.Fatalf("non-pdr error %v", err)
	}
	return e.Name
}

func orAccepted(name string) string {
	if name == "" {
		return "accepted"
	}
	return name
}

func valueOf(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

func randomScenario(t *testing.T, r *rand.Rand, c *chain, st *pdr.State, now uint64, delegate, sub, attacker *ecdsa.PrivateKey) scenario {
	t.Helper()
	call := pdr.Call{Target: sinkAddr, Value: big.NewInt(r.Int64N(1000)), Data: []byte{0xde, 0xad, 0xbe, 0xef, byte(r.UintN(256))}}
	terms := pdr.Terms{Nonce: st.Nonce, PolicyID: randHash(r), Decision: format.DecisionAllow, Expiry: now + 100, EventID: randHash(r)}
	sc := scenario{call: call, withApprovals: r.IntN(2) == 0}
	signer := c.policy
	approvers := []*ecdsa.PrivateKey{}

	own, other := st.Nonce, st.DelegatedNonce // the PDR's nonce space and the other one
	kind := r.IntN(6)
	switch kind {
	case 0: // plain policy-signed
		sc.name = "policy"
	case 1: // with approvals
		sc.name = "approval"
		terms.ApprovalRequired = true
		approvers = append(approvers, c.approvers[0], c.approvers[1])
	case 2, 3, 4: // delegated, depth 1 or 2: the delegated nonce space
		sc.name = "delegated"
		own, other = st.DelegatedNonce, st.Nonce
		sc.withApprovals = true
		root := scopeFor(call, crypto.PubkeyToAddress(c.owner.PublicKey), crypto.PubkeyToAddress(delegate.PublicKey), common.Hash{}, now)
		links := []pdr.SignedDelegation{mustSignDelegation(t, c.owner, c.dom, root)}
		signer = delegate
		if kind == 4 {
			sc.name = "subdelegated"
			child := scopeFor(call, root.Delegate, crypto.PubkeyToAddress(sub.PublicKey), root.Digest(c.dom), now)
			links = append(links, mustSignDelegation(t, delegate, c.dom, child))
			signer = sub
		}
		sc.s.Delegations = mutateChain(r, &sc, links, []*ecdsa.PrivateKey{c.owner, delegate}, c.dom, attacker, now)
	case 5: // issue 25: the owner delegates to the policy signer's own key
		sc.name = "delegated-to-policy-signer"
		own, other = st.DelegatedNonce, st.Nonce
		sc.withApprovals = true
		root := scopeFor(call, crypto.PubkeyToAddress(c.owner.PublicKey), crypto.PubkeyToAddress(c.policy.PublicKey), common.Hash{}, now)
		sc.s.Delegations = []pdr.SignedDelegation{mustSignDelegation(t, c.owner, c.dom, root)}
	}

	terms.Nonce = own

	// PDR-level mutations.
	switch r.IntN(15) {
	case 0:
		sc.name += "/wrong-signer"
		signer = attacker
	case 1:
		sc.name += "/replayed-nonce"
		terms.Nonce = own + 1 // nothing to replay yet: a future nonce
		if own > 0 {
			terms.Nonce = own - 1 - r.Uint64N(own)
		}
	case 2:
		sc.name += "/future-nonce"
		terms.Nonce = own + 1 + r.Uint64N(5)
	case 9:
		sc.name += "/other-space-nonce" // finding 7: the other space's counter never fits
		terms.Nonce = other
		if other == own {
			terms.Nonce = own + 1
		}
	case 3:
		sc.name += "/deny"
		terms.Decision = pdr.DecisionFromChain(uint8(r.UintN(256)))
		if terms.Decision == format.DecisionAllow {
			terms.Decision = format.DecisionDeny
		}
	case 4:
		sc.name += "/expired"
		terms.Expiry = now - 1 - r.Uint64N(100)
	case 5:
		sc.name += "/approval-required"
		terms.ApprovalRequired = true
		approvers = []*ecdsa.PrivateKey{c.approvers[r.IntN(3)]}
	case 6:
		sc.name += "/duplicate-approver"
		terms.ApprovalRequired = true
		approvers = []*ecdsa.PrivateKey{c.approvers[0], c.approvers[0]}
	case 7:
		sc.name += "/outsider-approver"
		terms.ApprovalRequired = true
		approvers = []*ecdsa.PrivateKey{c.approvers[2], attacker}
	case 8:
		sc.name += "/three-approvers"
		terms.ApprovalRequired = true
		approvers = c.approvers
	}
	sc.s.PDR = pdr.ForCall(c.dom, call, terms)
	digest := sc.s.Digest()
	if r.IntN(8) == 0 { // issue 25: signed (and approved) as the other kind of PDR
		sc.name += "/other-type"
		if digest == sc.s.PDR.Digest() {
			digest = sc.s.PDR.DelegatedDigest()
		} else {
			digest = sc.s.PDR.Digest()
		}
	}
	sig, err := pdr.Sign(signer, digest)
	if err != nil {
		t.Fatal(err)
	}
	sc.s.Signature = sig
	for _, k := range approvers {
		a, err := pdr.Sign(k, digest)
		if err != nil {
			t.Fatal(err)
		}
		sc.s.Approvals = append(sc.s.Approvals, a)
	}
	if r.IntN(4) != 0 { // usually sorted; sometimes left in key order
		_ = pdr.SortApprovals(digest, sc.s.Approvals)
	} else {
		sc.name += "/unsorted?"
	}

	// Call and signature mutations after signing.
	switch r.IntN(12) {
	case 0:
		sc.name += "/other-target"
		sc.call.Target = randAddr(r)
	case 1:
		sc.name += "/other-value"
		sc.call.Value = new(big.Int).Add(sc.call.Value, big.NewInt(1))
	case 2:
		sc.name += "/other-data"
		sc.call.Data = append([]byte{}, sc.call.Data...)
		sc.call.Data[4] ^= 1
	case 3:
		sc.name += "/high-s"
		highS := new(big.Int).Add(new(big.Int).Rsh(crypto.S256().Params().N, 1), big.NewInt(r.Int64N(1000)+1))
		highS.FillBytes(sc.s.Signature[32:])
	case 4:
		sc.name += "/garbage-sig"
		copy(sc.s.Signature[:], randBytes(r, 0)) // no-op length 0
		for i := range sc.s.Signature {
			sc.s.Signature[i] = byte(r.UintN(256))
		}
		sc.s.Signature[32] &= 0x7f
	}
	return sc
}

func scopeFor(call pdr.Call, delegator, delegate common.Address, parent common.Hash, now uint64) pdr.Delegation {
	return pdr.Delegation{
		Delegator: delegator, Delegate: delegate, Parent: parent,
		Targets:         []common.Address{{1}, call.Target},
		Selectors:       [][4]byte{call.Selector(), {9, 9, 9, 9}},
		MaxValuePerCall: big.NewInt(1000), MaxValueTotal: big.NewInt(5000), Expiry: now + 1000,
	}
}

func mustSignDelegation(t *testing.T, k *ecdsa.PrivateKey, dom pdr.Domain, d pdr.Delegation) pdr.SignedDelegation {
	s, err := pdr.SignDelegation(k, dom, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mutateChain breaks one link's scope or signature (re-signing where the break is in scope).
func mutateChain(r *rand.Rand, sc *scenario, links []pdr.SignedDelegation, keys []*ecdsa.PrivateKey, dom pdr.Domain, attacker *ecdsa.PrivateKey, now uint64) []pdr.SignedDelegation {
	i := r.IntN(len(links))
	d := &links[i].Delegation
	resign := true
	switch r.IntN(12) {
	case 0:
		sc.name += fmt.Sprintf("/link%d-target", i)
		d.Targets = d.Targets[:1]
	case 1:
		sc.name += fmt.Sprintf("/link%d-selector", i)
		d.Selectors = d.Selectors[1:]
	case 2:
		sc.name += fmt.Sprintf("/link%d-call-cap", i)
		d.MaxValuePerCall = big.NewInt(r.Int64N(1000))
	case 3:
		sc.name += fmt.Sprintf("/link%d-total-cap", i)
		d.MaxValueTotal = big.NewInt(r.Int64N(1000))
	case 4:
		sc.name += fmt.Sprintf("/link%d-expired", i)
		d.Expiry = now - 1
	case 5:
		sc.name += fmt.Sprintf("/link%d-forged", i)
		links[i].Signature, _ = pdr.Sign(attacker, d.Digest(dom))
		resign = false
	case 6:
		sc.name += fmt.Sprintf("/link%d-delegator", i)
		d.Delegator = crypto.PubkeyToAddress(attacker.PublicKey)
	case 7:
		sc.name += fmt.Sprintf("/link%d-parent", i)
		d.Parent = common.Hash{1}
	case 8:
		sc.name += "/too-long"
		for len(links) < pdr.MaxDelegationDepth+1 {
			links = append(links, links[0])
		}
		return links
	default:
		resign = false
	}
	if resign { // the rightful delegator signs the out-of-scope link
		links[i].Signature, _ = pdr.Sign(keys[i], d.Digest(dom))
	}
	return links
}

// TestDifferentialDelegationScopeEdges (issue 12, finding 3): a 0x00000000 entry in a
// delegation's selectors allows plain transfers (empty data) only. For every kind of call data
// around the zero selector, under chains of one and two links whose selectors include 0x00000000
// or not, pdr.Verify and executeDelegated agree, and both refuse 1–3 bytes and a 0x00000000
// selector with UndelegableCalldata.
func TestDifferentialDelegationScopeEdges(t *testing.T) {
	c := newChain(t, 1)
	delegate, sub := mustKey(t), mustKey(t)
	bump := [4]byte{0xd0, 0x9d, 0xe0, 0x8a}
	datas := []struct {
		name string
		data []byte
		want string // the outcome whenever the chain allows the selector
	}{
		{"empty", nil, ""},
		{"1 byte", []byte{0xff}, "UndelegableCalldata"},
		{"1 zero byte", []byte{0}, "UndelegableCalldata"},
		{"2 bytes", []byte{0, 0}, "UndelegableCalldata"},
		{"3 bytes of bump", bump[:3], "UndelegableCalldata"},
		{"zero selector", []byte{0, 0, 0, 0}, "UndelegableCalldata"},
		{"zero selector with arguments", append([]byte{0, 0, 0, 0}, common.LeftPadBytes([]byte{7}, 32)...), "UndelegableCalldata"},
		{"bump", append(bump[:], common.LeftPadBytes([]byte{7}, 32)...), ""},
		{"selector 0x00000001", []byte{0, 0, 0, 1}, ""},
	}
	selectorSets := map[string][][4]byte{
		"[0]":       {{}},
		"[0, bump]": {{}, bump},
		"[bump, 0]": {bump, {}},
		"[bump]":    {bump},
		"[1]":       {{0, 0, 0, 1}},
	}
	owner := crypto.PubkeyToAddress(c.owner.PublicKey)
	for _, dd := range datas {
		for setName, set := range selectorSets {
			for depth := 1; depth <= 2; depth++ {
				name := fmt.Sprintf("%s/%s/depth %d", dd.name, setName, depth)
				st := c.state()
				now := c.now()
				call := pdr.Call{Target: sinkAddr, Value: big.NewInt(3), Data: dd.data}
				root := pdr.Delegation{
					Delegator: owner, Delegate: crypto.PubkeyToAddress(delegate.PublicKey),
					Targets: []common.Address{sinkAddr}, Selectors: set,
					MaxValuePerCall: big.NewInt(10), MaxValueTotal: big.NewInt(1000), Expiry: now + 1000,
				}
				chain := []pdr.SignedDelegation{mustSignDelegation(t, c.owner, c.dom, root)}
				signer := delegate
				if depth == 2 {
					child := root
					child.Delegator, child.Delegate, child.Parent = root.Delegate, crypto.PubkeyToAddress(sub.PublicKey), root.Digest(c.dom)
					chain = append(chain, mustSignDelegation(t, delegate, c.dom, child))
					signer = sub
				}
				s, err := pdr.SignDelegatedPDR(signer, pdr.ForCall(c.dom, call, pdr.Terms{Nonce: st.DelegatedNonce, Decision: format.DecisionAllow, Expiry: now + 100}), chain)
				if err != nil {
					t.Fatal(err)
				}
				want := dd.want
				if want == "" {
					allowed := false
					for _, sel := range set {
						allowed = allowed || sel == call.Selector()
					}
					if !allowed {
						want = "SelectorNotDelegated"
					}
				}
				goErr := errName(t, pdr.Verify(st, &s, call, now, true))
				data, err := s.Calldata(call)
				if err != nil {
					t.Fatal(err)
				}
				got := c.call(data)
				if goErr != want || got != want {
					t.Errorf("%s: go %q, contract %q, want %q", name, orAccepted(goErr), orAccepted(got), orAccepted(want))
				}
			}
		}
	}
}
