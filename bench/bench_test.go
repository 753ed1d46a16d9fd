package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/anchor"
)

// Project, given the paper's gas (91,800 for every anchor) and fees,
// reproduces the paper's Table III as printed: the column beside ours is
// the paper's own computation.
func TestProjectReproducesThePapersTableIII(t *testing.T) {
	paper := map[int][3]float64{ // epoch: anchors, L1 $, L2 $
		10:   {10_000, 68_850, 22.95},
		50:   {2_000, 13_770, 4.59},
		100:  {1_000, 6_885, 2.295},
		500:  {200, 1_377, 0.459},
		1000: {100, 688.5, 0.2295},
	}
	costs := Project(paperGas, PaperFees, EpochSizes)
	if len(costs) != len(paper) {
		t.Fatalf("%d rows, want %d", len(costs), len(paper))
	}
	for _, c := range costs {
		want := paper[c.EpochSize]
		if float64(c.Anchors) != want[0] || !near(c.L1USD, want[1]) || !near(c.L2USD, want[2]) || c.WindowSeconds != float64(c.EpochSize) {
			t.Errorf("epoch %d: %d anchors, L1 $%g, L2 $%g, window %g s; the paper: %v", c.EpochSize, c.Anchors, c.L1USD, c.L2USD, c.WindowSeconds, want)
		}
	}
}

// The first anchor costs its own gas, every later one the steady mean;
// per day at one event per second an epoch of 100 takes 864 anchors.
func TestProjectFirstAndSteady(t *testing.T) {
	g := GasOf([]anchor.Anchored{{GasUsed: 46_592}, {GasUsed: 29_993}, {GasUsed: 29_995}})
	if g.First != 46_592 || g.SteadyMean != 29_994 || g.SteadyMin != 29_993 || g.SteadyMax != 29_995 || g.Transactions != 3 {
		t.Fatalf("GasOf = %+v", g)
	}
	c := Project(g, Fees{L1Gwei: 1, L2Gwei: 1, ETHUSD: 1e9, EventsPerSecond: 1, Events: 250}, []int{100})[0]
	if c.Anchors != 3 || c.Gas != 46_592+2*29_994 || !near(c.L1USD, c.Gas) {
		t.Errorf("250 events in epochs of 100: %+v", c)
	}
	if c.AnchorsPerDay != 864 || !near(c.L1USDPerDay, 46_592+863*29_994) {
		t.Errorf("per day: %+v", c)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestParseOnly(t *testing.T) {
	ids, err := ParseOnly(" table2, rq4,")
	if err != nil || strings.Join(ids, ",") != "table2,rq4" {
		t.Fatalf("ParseOnly = %v, %v", ids, err)
	}
	if _, err := ParseOnly("table2,table5"); err == nil || !strings.Contains(err.Error(), `"table5"`) || !strings.Contains(err.Error(), "rq1") {
		t.Fatalf("ParseOnly(table5) = %v; want an error naming it and the valid tables", err)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []Config{{Out: "x", Backend: "ganache"}, {Out: "x", Seeds: -1}, {}} {
		if err := c.Check(); err == nil {
			t.Errorf("Check(%+v) = nil", c)
		}
	}
	if err := (Config{Out: "x", Backend: "anvil", Seeds: 2}).Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestComma(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 68850: "68,850", 1234567.4: "1,234,567", -4500: "-4,500"} {
		if got := comma(x); got != want {
			t.Errorf("comma(%g) = %q, want %q", x, got, want)
		}
	}
}
