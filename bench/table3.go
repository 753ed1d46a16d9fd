package bench

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // Table III and RQ4 run on the embedded chain by default
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// Gas is the measured gas of one way of anchoring: the first anchor
// transaction (cold storage) and the ones after it.
type Gas struct {
	Name string `json:"name"`
	// Where it was measured: the chain backend, or the paper's testnet.
	Where        string  `json:"where"`
	First        uint64  `json:"first"`
	SteadyMean   float64 `json:"steady_mean"`
	SteadyMin    uint64  `json:"steady_min"`
	SteadyMax    uint64  `json:"steady_max"`
	Transactions int     `json:"transactions"`
}

// GasOf summarises the gas of confirmed anchors, in epoch order (Name and
// Where are left for the caller).
func GasOf(anchored []anchor.Anchored) Gas {
	g := Gas{Transactions: len(anchored)}
	var sum uint64
	for i, a := range anchored {
		if i == 0 {
			g.First = a.GasUsed
			continue
		}
		if g.SteadyMin == 0 || a.GasUsed < g.SteadyMin {
			g.SteadyMin = a.GasUsed
		}
		g.SteadyMax = max(g.SteadyMax, a.GasUsed)
		sum += a.GasUsed
	}
	if len(anchored) > 1 {
		g.SteadyMean = float64(sum) / float64(len(anchored)-1)
	}
	return g
}

// paperGas is the gas the paper's cost projection uses for every anchor:
// the average of its 100 transactions on Base Sepolia (71,680 first, 91,976
// after).
var paperGas = Gas{Name: "anchor (paper)", Where: "Base Sepolia", First: 91_800, SteadyMean: 91_800, Transactions: 100}

// Fees are the assumptions of a cost projection.
type Fees struct {
	L1Gwei, L2Gwei  float64 // gas price
	ETHUSD          float64
	EventsPerSecond float64
	Events          int // the workload projected (the paper's: 100,000 events)
}

// PaperFees are the paper's assumptions: L1 at 30 gwei, L2 at 0.01 gwei,
// ETH at $2,500, one event per second, 100,000 events.
var PaperFees = Fees{L1Gwei: 30, L2Gwei: 0.01, ETHUSD: 2500, EventsPerSecond: 1, Events: 100_000}

// EpochSizes are the epoch sizes of the paper's projection.
var EpochSizes = []int{10, 50, 100, 500, 1000}

// Cost is the cost of anchoring with gas g at one epoch size.
type Cost struct {
	Name          string  `json:"name"`
	EpochSize     int     `json:"epoch_size"`
	WindowSeconds float64 `json:"window_seconds"` // time to fill an epoch: the unanchored window
	Anchors       int     `json:"anchors"`        // for Fees.Events events
	Gas           float64 `json:"gas"`
	L1USD         float64 `json:"l1_usd"`
	L2USD         float64 `json:"l2_usd"`
	AnchorsPerDay float64 `json:"anchors_per_day"`
	L1USDPerDay   float64 `json:"l1_usd_per_day"`
	L2USDPerDay   float64 `json:"l2_usd_per_day"`
}

// Project is the cost of anchoring with gas g at each epoch size under
// fees: for fees.Events events (the first anchor at g.First, every later
// one at g.SteadyMean) and per day. Anchoring several logs in one
// transaction is another Gas to project, measured the same way.
func Project(g Gas, fees Fees, epochSizes []int) []Cost {
	usd := func(gas, gwei float64) float64 { return gas * gwei * 1e-9 * fees.ETHUSD }
	gasFor := func(anchors float64) float64 {
		if anchors <= 0 {
			return 0
		}
		return float64(g.First) + (anchors-1)*g.SteadyMean
	}
	var out []Cost
	for _, e := range epochSizes {
		c := Cost{Name: g.Name, EpochSize: e, WindowSeconds: float64(e) / fees.EventsPerSecond,
			Anchors: (fees.Events + e - 1) / e, AnchorsPerDay: 86_400 * fees.EventsPerSecond / float64(e)}
		c.Gas = gasFor(float64(c.Anchors))
		c.L1USD, c.L2USD = usd(c.Gas, fees.L1Gwei), usd(c.Gas, fees.L2Gwei)
		day := gasFor(c.AnchorsPerDay)
		c.L1USDPerDay, c.L2USDPerDay = usd(day, fees.L1Gwei), usd(day, fees.L2Gwei)
		out = append(out, c)
	}
	return out
}

// table3 measures anchor gas on a live chain and projects it.
func table3(ctx context.Context, r *run) (*Table, error) {
	r.progress(0, r.table3Steps(), "starting the %s chain", r.cfg.Backend)
	b, where, err := startChain(ctx, r.cfg.Backend, 1+2*len(r.sizes.BatchLogs))
	if err != nil {
		return nil, err
	}
	defer b.Close()
	measured, verdict, err := measureAnchorGas(ctx, r, b, where)
	if err != nil {
		return nil, err
	}
	var batches []BatchGas
	for i, logs := range r.sizes.BatchLogs {
		for j, mode := range []anchor.Publication{anchor.PublishFile, anchor.PublishEvents} {
			r.progress(3+2*i+j, r.table3Steps(), "aggregated anchoring: %d logs per batch, %s", logs, []string{"contents in the batches file", "contents in the event"}[j])
			g, err := measureBatchGas(ctx, r, b, b.Keys()[1+2*i+j], logs, mode)
			if err != nil {
				return nil, fmt.Errorf("aggregated anchoring of %d logs: %w", logs, err)
			}
			batches = append(batches, g)
		}
	}
	paper := Project(paperGas, PaperFees, EpochSizes)
	ours := Project(measured, PaperFees, EpochSizes)
	t := &Table{ID: "table3", Title: "Table III — the cost of anchoring",
		About: fmt.Sprintf("A log of %d epochs of 100 events is recorded and anchored by the anchorer (package anchor) on %s; the gas of each anchor transaction is read from its receipt, "+
			"and the log then verifies against the anchors read back from the chain (%s). One transaction anchors one epoch whatever its size, so the cost of an epoch size is the number of anchors it takes: "+
			"the first at the first anchor's gas, the rest at the mean of the others. The paper's column is the same projection of its own gas (91,800 per anchor).",
			r.sizes.AnchorEpochs, where, verdict)}
	t.Sections = append(t.Sections, Section{Title: "Gas per anchor transaction",
		Header: []string{"", "first", "after the first (mean)", "min–max after the first", "transactions", "where"},
		Rows: [][]string{
			{"paper", "71,680", "91,976 (91,800 overall)", "—", "100", paperGas.Where},
			{"ours", comma(float64(measured.First)), comma(measured.SteadyMean), comma(float64(measured.SteadyMin)) + "–" + comma(float64(measured.SteadyMax)),
				fmt.Sprint(measured.Transactions), measured.Where},
		}})
	sec := Section{Title: fmt.Sprintf("Cost of anchoring %s events at %g event/s", comma(float64(PaperFees.Events)), PaperFees.EventsPerSecond),
		Header: []string{"epoch", "window s", "anchors", "L1 $ (paper)", "L1 $", "L2 $ (paper)", "L2 $", "L1 $/day", "L2 $/day"}}
	for i := range ours {
		p, o := paper[i], ours[i]
		sec.Rows = append(sec.Rows, []string{fmt.Sprint(o.EpochSize), fmt.Sprintf("%.0f", o.WindowSeconds), comma(float64(o.Anchors)),
			dollars(p.L1USD), dollars(o.L1USD), dollars(p.L2USD), dollars(o.L2USD), dollars(o.L1USDPerDay), dollars(o.L2USDPerDay)})
	}
	t.Sections = append(t.Sections, sec)
	agg := Section{Title: "Aggregated anchoring (anchor.Batcher): many logs of one operator per transaction, steady state",
		Header: []string{"logs per batch", "contents published in", "gas of the batch", "gas per log-epoch", "÷ one log's anchor", "÷ paper's 91,800", "L1 $/log/day (epoch 100)", "L2 $/log/day (epoch 100)", "logs verified"}}
	for _, g := range batches {
		per := Project(Gas{First: uint64(g.PerLogEpoch), SteadyMean: g.PerLogEpoch}, PaperFees, []int{100})[0]
		agg.Rows = append(agg.Rows, []string{fmt.Sprint(g.Logs), g.Publication, comma(float64(g.BatchGas)), comma(g.PerLogEpoch),
			fmt.Sprintf("%.3f", g.PerLogEpoch/measured.SteadyMean), fmt.Sprintf("%.4f", g.PerLogEpoch/float64(paperGas.SteadyMean)),
			dollars(per.L1USDPerDay), dollars(per.L2USDPerDay), fmt.Sprintf("%d of %d", g.Verified, g.Logs)})
	}
	if len(batches) > 0 {
		t.Sections = append(t.Sections, agg)
	}
	t.Notes = []string{
		fmt.Sprintf("Assumptions (the paper's): L1 gas at %g gwei, L2 at %g gwei (execution gas only: an L2's data fee is not included), ETH at $%s, one event per second.", PaperFees.L1Gwei, PaperFees.L2Gwei, comma(PaperFees.ETHUSD)),
		"Our bars: ≤ 31,000 gas per anchor in steady state (docs/DESIGN.md §5); ≤ 2,000 gas per log-epoch with 100 logs per batch (the fleets issue).",
		"Aggregated anchoring: each log of a batch size records two epochs of 10 events; the Batcher anchors every log's first epoch in one batch (the operator's first, on cold storage), then every log's second epoch in a second batch, whose receipt gives the steady gas; every log then verifies against the chain (its entries in the operator's batches, contents from the batches file or from the BatchContents event). With the contents in the event, every entry's 104 bytes pay calldata at EIP-7623's floor price and log data, so that mode costs about 4,000 gas per log-epoch at any batch size.",
		"The window is the time an epoch takes to fill at one event per second: how long recorded events wait for their anchor.",
	}
	t.Data = struct {
		Fees     Fees       `json:"fees"`
		Measured []Gas      `json:"measured"`
		Paper    Gas        `json:"paper"`
		Costs    []Cost     `json:"costs"`
		Paper3   []Cost     `json:"paper_costs"`
		Verdict  string     `json:"verdict"`
		Batches  []BatchGas `json:"aggregated"`
	}{PaperFees, []Gas{measured}, paperGas, ours, paper, verdict, batches}
	var ss []series
	for _, c := range []struct {
		name  string
		costs []Cost
		l1    bool
		dash  bool
	}{{"L1 ours", ours, true, false}, {"L1 paper", paper, true, true}, {"L2 ours", ours, false, false}, {"L2 paper", paper, false, true}} {
		s := series{name: c.name, dash: c.dash}
		for _, k := range c.costs {
			v := k.L2USD
			if c.l1 {
				v = k.L1USD
			}
			s.xys = append(s.xys, plotter.XY{X: float64(k.EpochSize), Y: v})
		}
		ss = append(ss, s)
	}
	p, err := linePlot(fmt.Sprintf("Anchoring %s events: cost by epoch size", comma(float64(PaperFees.Events))), "epoch size (events, log scale)", "US$ (log scale)", true, true, legend{top: true, left: false}, ss)
	if err != nil {
		return nil, err
	}
	if err := t.savePlot(p, r.cfg.Out, "table3-cost"); err != nil {
		return nil, err
	}
	return t, nil
}

// startChain starts the chain of the run: the embedded chain, or anvil.
func startChain(ctx context.Context, kind string, keys int) (backend.Backend, string, error) {
	k, err := backend.ParseKind(kind)
	if err != nil {
		return nil, "", err
	}
	b, err := backend.Start(ctx, k, backend.Options{Embedded: backend.EmbeddedOptions{BlockPeriod: -1, Keys: keys}, Anvil: anvil.Options{Accounts: max(keys, 10)}})
	switch {
	case err != nil && k == backend.KindAnvil:
		return nil, "", fmt.Errorf("%w (hint: make setup installs anvil; or use --backend embedded)", err)
	case err != nil:
		return nil, "", err
	case k == backend.KindAnvil:
		return b, "anvil at " + b.URL(), nil
	}
	return b, "the embedded go-ethereum chain", nil
}

// measureAnchorGas deploys EpochAnchor, records a log of the run's number
// of epochs, anchors every epoch and returns the gas, with the verdict of
// the log against the anchors on chain.
func measureAnchorGas(ctx context.Context, r *run, b backend.Backend, where string) (Gas, string, error) {
	c, key := b.Client(), b.Keys()[0]
	dep, err := chain.Deploy(ctx, c, key, nil)
	if err != nil {
		return Gas{}, "", err
	}
	dir := filepath.Join(r.tmp, "anchored")
	rec, err := recorder.Open(dir, recorder.Options{Recorder: "bench-operator", Encrypt: true, EpochSize: 100, Sync: recorder.SyncNone, EpochMaxAge: -1})
	if err != nil {
		return Gas{}, "", err
	}
	for _, ev := range workload.Generate(42, 100*r.sizes.AnchorEpochs) {
		if _, err := rec.Record(ctx, ev); err != nil {
			rec.Close()
			return Gas{}, "", err
		}
	}
	if err := rec.Close(); err != nil {
		return Gas{}, "", err
	}
	r.progress(1, r.table3Steps(), "anchoring %d epochs", r.sizes.AnchorEpochs)
	// One epoch per transaction (MaxRun 1): Table III is the gas of an anchor.
	a, err := anchor.Open(ctx, dir, c, anchor.Options{Contract: dep.EpochAnchor, Key: key, FromBlock: dep.Block, Confirmations: 1, Poll: 10 * time.Millisecond, MaxRun: 1})
	if err != nil {
		return Gas{}, "", err
	}
	defer a.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx, nil) }()
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = a.Drain(dctx)
	cancel()
	stop()
	if rerr := <-done; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if err != nil {
		return Gas{}, "", fmt.Errorf("anchoring: %w", err)
	}
	anchored := a.Queue().Anchored
	if len(anchored) != r.sizes.AnchorEpochs {
		return Gas{}, "", fmt.Errorf("anchoring: %d epochs anchored, want %d", len(anchored), r.sizes.AnchorEpochs)
	}
	r.progress(2, r.table3Steps(), "verifying against the chain")
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return Gas{}, "", err
	}
	id, err := l.LogID()
	if err != nil {
		return Gas{}, "", err
	}
	rep, err := verifier.VerifyLog(ctx, l, onchain.ChainAnchors{Client: c, Contract: dep.EpochAnchor, Operator: chain.Address(key), LogID: id, FromBlock: dep.Block}, verifier.Options{})
	if err != nil {
		return Gas{}, "", err
	}
	if rep.Verdict != verifier.Verified {
		return Gas{}, "", fmt.Errorf("the anchored log is %s against the chain: %v", rep.Verdict, rep.Findings)
	}
	g := GasOf(anchored)
	g.Name, g.Where = "EpochAnchor.anchor, one log", where
	return g, fmt.Sprintf("%s, %d of %d events anchored", rep.Verdict, rep.AnchoredEvents, rep.Events), nil
}

// table3Steps is the number of progress steps of Table III.
func (r *run) table3Steps() int { return 3 + 2*len(r.sizes.BatchLogs) }

// BatchGas is the measured gas of aggregated anchoring: one steady-state
// batch holding one epoch of each of Logs logs.
type BatchGas struct {
	Logs        int     `json:"logs"`
	Publication string  `json:"publication"` // "batches file" or "event"
	BatchGas    uint64  `json:"batch_gas"`
	FirstGas    uint64  `json:"first_batch_gas"`
	PerLogEpoch float64 `json:"gas_per_log_epoch"`
	Verified    int     `json:"logs_verified"`
}

// measureBatchGas records logs logs of two epochs each with the operator
// key, anchors the first epochs of all of them in one batch and the second
// epochs in another with an anchor.Batcher publishing in mode, and
// verifies every log against the chain. The second batch's receipt is the
// steady-state figure.
func measureBatchGas(ctx context.Context, r *run, b backend.Backend, key *ecdsa.PrivateKey, logs int, mode anchor.Publication) (BatchGas, error) {
	g := BatchGas{Logs: logs, Publication: "batches file"}
	if mode == anchor.PublishEvents {
		g.Publication = "event"
	}
	c := b.Client()
	dep, err := chain.Deploy(ctx, c, key, nil)
	if err != nil {
		return g, err
	}
	root := filepath.Join(r.tmp, fmt.Sprintf("batches-%d-%d", logs, mode))
	dirs := make([]string, logs)
	// record appends one epoch of 10 events to every log, one log open at
	// a time (a fleet of 1,000 logs would otherwise hold thousands of files).
	record := func(round int) error {
		for i := range dirs {
			dirs[i] = filepath.Join(root, fmt.Sprintf("log-%04d", i))
			rec, err := recorder.Open(dirs[i], recorder.Options{Recorder: fmt.Sprintf("agent-%d", i), Encrypt: true, EpochSize: 10, Sync: recorder.SyncNone, EpochMaxAge: -1})
			if err != nil {
				return err
			}
			for _, ev := range workload.Generate(uint64(1000*round+i), 10) {
				if _, err := rec.Record(ctx, ev); err != nil {
					rec.Close()
					return err
				}
			}
			if err := rec.Close(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := record(0); err != nil {
		return g, err
	}
	file := filepath.Join(root, "batches.jsonl")
	bt, err := anchor.OpenBatcher(ctx, c, anchor.BatchOptions{Options: anchor.Options{Contract: dep.EpochAnchor, Key: key, FromBlock: dep.Block, Confirmations: 1, Poll: 10 * time.Millisecond},
		BatchesFile: file, Publish: mode, MaxEntries: min(logs, anchor.MaxEventEntries), MaxWait: time.Hour}) // a batch is cut when full or by Drain
	if err != nil {
		return g, err
	}
	defer bt.Close()
	for _, d := range dirs {
		if _, err := bt.AddLog(anchor.LogSource{Dir: d}); err != nil {
			return g, err
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- bt.Run(runCtx) }()
	drain := func() error {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		return bt.Drain(dctx)
	}
	err = drain()
	if err == nil {
		if err = record(1); err == nil {
			if _, err = bt.SyncLogs(); err == nil {
				err = drain()
			}
		}
	}
	stop()
	if rerr := <-done; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if err != nil {
		return g, fmt.Errorf("anchoring: %w", err)
	}
	q := bt.Queue()
	if len(q.Anchored) != 2 {
		return g, fmt.Errorf("anchoring: %d batches for two epochs of %d logs, want 2", len(q.Anchored), logs)
	}
	g.FirstGas, g.BatchGas = q.Anchored[0].GasUsed, q.Anchored[1].GasUsed
	g.PerLogEpoch = float64(g.BatchGas) / float64(logs)
	for _, d := range dirs {
		l, err := recorder.OpenLog(d)
		if err != nil {
			return g, err
		}
		id, err := l.LogID()
		if err != nil {
			return g, err
		}
		src := onchain.LogAnchors{Client: c, Contract: dep.EpochAnchor, Operator: chain.Address(key), LogID: id, FromBlock: dep.Block}
		if mode == anchor.PublishFile {
			src.BatchesFile = file
		}
		rep, err := verifier.VerifyLog(ctx, l, src, verifier.Options{})
		if err != nil {
			return g, err
		}
		if rep.Verdict != verifier.Verified || rep.AnchoredEvents != 20 {
			return g, fmt.Errorf("log %s is %s against the batches (%d of 20 events anchored): %v", d, rep.Verdict, rep.AnchoredEvents, rep.Findings)
		}
		g.Verified++
	}
	return g, nil
}

// comma formats x rounded to an integer with thousands separators.
func comma(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// dollars formats an amount of US dollars with a precision that suits it.
func dollars(x float64) string {
	switch {
	case x >= 1000:
		return comma(x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	case x >= 0.01:
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.2g", x)
}
