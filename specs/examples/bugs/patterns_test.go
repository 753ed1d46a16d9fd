package bugs

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// Campaign shape: forge's [invariant] runs and depth in foundry.toml.
const (
	runs  = 64
	depth = 15
)

// payee is the treasury's payee (forge: address(0xFEE)).
var payee = common.HexToAddress("0x0000000000000000000000000000000000000FEE")

// pattern is one planted bug: its forge tests are Planted<Forge>Test and
// Fixed<Forge>Test, their invariant invariant_<Forge>; shrunk and last are
// what the afrspec campaign's shrunk sequence must be (its length and the
// method of its last call); labels are its specs' Ginkgo labels besides
// fuzz.
type pattern struct {
	name, forge string
	shrunk      int
	last        string
	labels      []string
}

// patterns are the five planted bugs, in the order of the README.
var patterns = []pattern{
	{name: "accounting drift", forge: "Drift", shrunk: 2, last: "unstakeAll"},
	{name: "re-entrancy", forge: "Reentrancy", shrunk: 2, last: "withdraw"},
	{name: "oracle manipulation", forge: "Oracle", shrunk: 2, last: "borrow"},
	{name: "rounding", forge: "Rounding", shrunk: 2, last: "withdraw"},
	// On anvil too (make test-specs runs the anvil-labelled specs there):
	// the quickest, its calls are mostly refused before they are mined.
	{name: "access control", forge: "Access", shrunk: 1, last: "setPayee", labels: []string{"anvil"}},
}

// twins are a pattern's two campaigns: on the planted bug and on its fix.
type twins struct{ planted, fixed fuzz.Campaign }

// contracts are the example's contracts, by source file.
var contracts = map[string][]string{
	"Drift.sol":      {"Staking", "FixedStaking"},
	"Reentrancy.sol": {"EtherBank", "FixedEtherBank", "Reenterer"},
	"Oracle.sol":     {"SpotMarket", "DelayedMarket", "Trader"},
	"Rounding.sol":   {"RoundDownVault", "RoundUpVault", "Depositor"},
	"Access.sol":     {"Treasury", "FixedTreasury"},
}

// deployer deploys the example's contracts on a World, keeping the first
// error.
type deployer struct {
	w    *world.World
	arts map[string]*world.Artifact // by contract name
	err  error
}

// newDeployer loads the contracts forge built from src/.
func newDeployer(w *world.World) (*deployer, error) {
	d := &deployer{w: w, arts: map[string]*world.Artifact{}}
	for file, names := range contracts {
		for _, name := range names {
			a, err := world.LoadForgeArtifact(filepath.Join("out", file, name+".json"))
			if err != nil {
				return nil, fmt.Errorf("%w (run forge build in specs/examples/bugs)", err)
			}
			d.arts[name] = a
		}
	}
	return d, nil
}

func (d *deployer) deploy(name string, args ...any) common.Address {
	if d.err != nil {
		return common.Address{}
	}
	at, err := d.w.DeployArtifact(context.Background(), d.w.Deployer(), d.arts[name], args...)
	d.err = err
	return at
}

// send sends a transaction that must succeed.
func (d *deployer) send(from *world.Actor, to common.Address, value *big.Int, data []byte) {
	if d.err != nil {
		return
	}
	if res := d.w.Send(context.Background(), from, to, value, data); !res.Succeeded() {
		d.err = fmt.Errorf("setup: %s", res)
	}
}

// address is a view method's address result, e.g. the market a Trader
// deployed.
func (d *deployer) address(name string, at common.Address, method string) common.Address {
	if d.err != nil {
		return common.Address{}
	}
	v, err := view(context.Background(), d.w, d.arts[name], at, method)
	if err != nil {
		d.err = err
		return common.Address{}
	}
	return v.(common.Address)
}

// view calls a view method of the contract at and returns its one result.
func view(ctx context.Context, w *world.World, a *world.Artifact, at common.Address, method string, args ...any) (any, error) {
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &at, Data: a.Pack(method, args...)}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", a.Name, method, err)
	}
	vals, err := a.ABI.Unpack(method, out)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", a.Name, method, err)
	}
	return vals[0], nil
}

// number is view for a uint256 result.
func number(ctx context.Context, w *world.World, a *world.Artifact, at common.Address, method string, args ...any) (*big.Int, error) {
	v, err := view(ctx, w, a, at, method, args...)
	if err != nil {
		return nil, err
	}
	return v.(*big.Int), nil
}

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// setup deploys every pattern's planted contract and its fixed twin on w,
// as the forge tests' setUp does, and returns their campaigns by the
// pattern's forge name. The senders are alice, bob and carol (forge:
// 0x5001…0x5003), funded for gas.
func setup(ctx context.Context, w *world.World) (map[string]twins, error) {
	d, err := newDeployer(w)
	if err != nil {
		return nil, err
	}
	senders := []*world.Actor{w.Actor("alice"), w.Actor("bob"), w.Actor("carol")}
	saver := w.Actor("saver")
	for _, a := range senders {
		if err := w.Fund(ctx, a, ether(10)); err != nil {
			return nil, err
		}
	}
	if err := w.Fund(ctx, saver, ether(40)); err != nil {
		return nil, err
	}
	out := map[string]twins{}
	// both makes a pattern's two campaigns, of forge's runs and depth; a
	// campaign expects its violation, or none, so saves no failure file.
	both := func(name string, make func(fixed bool) fuzz.Campaign) {
		var t [2]fuzz.Campaign
		for i := range t {
			t[i] = make(i == 1)
			t[i].Runs, t[i].Depth, t[i].NoFailFile = runs, depth, true
		}
		out[name] = twins{planted: t[0], fixed: t[1]}
	}

	// Accounting drift: the total is the sum of the stakes.
	both("Drift", func(fixed bool) fuzz.Campaign {
		name := map[bool]string{false: "Staking", true: "FixedStaking"}[fixed]
		at, a := d.deploy(name), d.arts[name]
		return fuzz.Campaign{
			Targets: []fuzz.Target{{Name: name, Address: at, ABI: a.ABI}},
			Senders: senders,
			Invariants: []fuzz.Invariant{{Name: "total staked is the sum of the stakes", Check: func(ctx context.Context, w *world.World) error {
				total, err := number(ctx, w, a, at, "totalStaked")
				if err != nil {
					return err
				}
				sum := new(big.Int)
				for _, s := range senders {
					v, err := number(ctx, w, a, at, "staked", s.Address)
					if err != nil {
						return err
					}
					sum.Add(sum, v)
				}
				if total.Cmp(sum) != 0 {
					return fmt.Errorf("total staked %s != sum of the stakes %s", total, sum)
				}
				return nil
			}}},
		}
	})

	// Re-entrancy: the bank holds what it owes its depositors. The saver
	// deposits 10 ether and gives the Reenterer (the handler) 5.
	both("Reentrancy", func(fixed bool) fuzz.Campaign {
		name := map[bool]string{false: "EtherBank", true: "FixedEtherBank"}[fixed]
		bank, a := d.deploy(name), d.arts[name]
		d.send(saver, bank, ether(10), a.Pack("deposit"))
		attacker := d.deploy("Reenterer", bank)
		d.send(saver, attacker, ether(5), nil)
		return fuzz.Campaign{
			Targets: []fuzz.Target{{Name: "Reenterer", Address: attacker, ABI: d.arts["Reenterer"].ABI}},
			Senders: senders[:1],
			Invariants: []fuzz.Invariant{{Name: "the bank is solvent", Check: func(ctx context.Context, w *world.World) error {
				held, err := w.Client().BalanceAt(ctx, bank, nil)
				if err != nil {
					return err
				}
				owed := new(big.Int)
				for _, who := range []common.Address{saver.Address, attacker} {
					v, err := number(ctx, w, a, bank, "balanceOf", who)
					if err != nil {
						return err
					}
					owed.Add(owed, v)
				}
				if held.Cmp(owed) < 0 {
					return fmt.Errorf("the bank holds %s wei and owes %s", held, owed)
				}
				return nil
			}}},
		}
	})

	// Oracle manipulation: every loan is covered twice by its collateral
	// at the fair price.
	both("Oracle", func(fixed bool) fuzz.Campaign {
		trader := d.deploy("Trader", fixed)
		ma := d.arts[map[bool]string{false: "SpotMarket", true: "DelayedMarket"}[fixed]]
		market := d.address("Trader", trader, "market")
		return fuzz.Campaign{
			Targets: []fuzz.Target{{Name: "Trader", Address: trader, ABI: d.arts["Trader"].ABI}},
			Senders: senders[:1],
			Invariants: []fuzz.Invariant{{Name: "loans are covered at the fair price", Check: func(ctx context.Context, w *world.World) error {
				debt, err := number(ctx, w, ma, market, "debt", trader)
				if err != nil {
					return err
				}
				coll, err := number(ctx, w, ma, market, "collateral", trader)
				if err != nil {
					return err
				}
				worth := new(big.Int).Mul(coll, big.NewInt(1000)) // FAIR_PRICE
				if new(big.Int).Mul(debt, big.NewInt(2)).Cmp(worth) > 0 {
					return fmt.Errorf("a debt of %s against collateral worth %s at the fair price", debt, worth)
				}
				return nil
			}}},
		}
	})

	// Rounding: the assets per share never fall below the starting 3 per 2.
	both("Rounding", func(fixed bool) fuzz.Campaign {
		depositor := d.deploy("Depositor", fixed)
		va := d.arts[map[bool]string{false: "RoundDownVault", true: "RoundUpVault"}[fixed]]
		vault := d.address("Depositor", depositor, "vault")
		return fuzz.Campaign{
			Targets: []fuzz.Target{{Name: "Depositor", Address: depositor, ABI: d.arts["Depositor"].ABI}},
			Senders: senders[:1],
			Invariants: []fuzz.Invariant{{Name: "assets per share never fall", Check: func(ctx context.Context, w *world.World) error {
				assets, err := number(ctx, w, va, vault, "totalAssets")
				if err != nil {
					return err
				}
				shares, err := number(ctx, w, va, vault, "totalShares")
				if err != nil {
					return err
				}
				if new(big.Int).Mul(assets, big.NewInt(2)).Cmp(new(big.Int).Mul(shares, big.NewInt(3))) < 0 {
					return fmt.Errorf("%s assets for %s shares: below 3 per 2", assets, shares)
				}
				return nil
			}}},
		}
	})

	// Access control: only the owner (the deployer, no sender) changes the
	// payee. setFee and setPayee are the targets (forge's targetSelector).
	both("Access", func(fixed bool) fuzz.Campaign {
		name := map[bool]string{false: "Treasury", true: "FixedTreasury"}[fixed]
		at, a := d.deploy(name, payee), d.arts[name]
		return fuzz.Campaign{
			Targets: []fuzz.Target{{Name: name, Address: at, ABI: a.ABI, Include: []string{"setFee", "setPayee"}}},
			Senders: senders,
			Domain:  fuzz.Domain{Addresses: []common.Address{senders[0].Address, senders[1].Address, senders[2].Address, payee}},
			Invariants: []fuzz.Invariant{{Name: "payee unchanged", Check: func(ctx context.Context, w *world.World) error {
				v, err := view(ctx, w, a, at, "payee")
				if err != nil {
					return err
				}
				if got := v.(common.Address); got != payee {
					return fmt.Errorf("the payee is %s, want %s", got, payee)
				}
				return nil
			}}},
		}
	})
	return out, d.err
}

// TestForgeTwins checks that every pattern has its forge tests in
// test/Planted.t.sol (Planted<Forge>Test and Fixed<Forge>Test and the
// invariant invariant_<Forge>), which BenchmarkPlanted runs by those
// names, and that the forge file has no pattern the campaigns lack.
func TestForgeTwins(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("test", "Planted.t.sol"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, p := range patterns {
		known[p.forge] = true
		for _, want := range []string{"contract Planted" + p.forge + "Test is " + p.forge + "Test", "contract Fixed" + p.forge + "Test is " + p.forge + "Test", "function invariant_" + p.forge + "()"} {
			if !strings.Contains(string(src), want) {
				t.Errorf("test/Planted.t.sol has no %q (pattern %s)", want, p.name)
			}
		}
	}
	for _, m := range regexp.MustCompile(`function invariant_(\w+)\(`).FindAllStringSubmatch(string(src), -1) {
		if !known[m[1]] {
			t.Errorf("test/Planted.t.sol: invariant_%s has no campaign in patterns", m[1])
		}
	}
}
