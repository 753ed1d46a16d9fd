package main

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // afr chain and afr demo start the embedded chain
	"github.com/agentflightrecorder/afr/internal/durable"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
)

func init() {
	register(&command{name: "chain", summary: "run a local chain (embedded or anvil) for other afr commands", run: runChain, usage: `
Usage: afr chain [--backend embedded|anvil] [--accounts N] [--listen ADDR] [--dir DIR] [--json]

Starts a local chain and serves JSON-RPC on a loopback address until
interrupted (Ctrl-C). The embedded backend is go-ethereum's in-process
simulated chain (chain id 1337, a block as soon as a transaction arrives and
an empty block every --block-time), served over HTTP by this process: it
lives exactly as long as "afr chain" runs. The anvil backend starts anvil
(automine plus interval mining) and stops it on exit.

It writes DIR/chain.json ({"backend","rpc","chain_id","keys":[…]}) and the
--accounts funded dev keys (default 4, each with 10,000 ETH) as DIR/dev-N.key
(local test keys, the same on every run: never use them on a real chain).
Other commands take --chain DIR/chain.json. One key can anchor any number of
logs (see "afr keys --help"); more keys are for more operators.

Examples:
  afr chain --dir ./devchain &
  afr chain --dir ./fleet --accounts 20 --backend anvil &
  afr deploy --chain ./devchain/chain.json --key ./devchain/dev-0.key -o deployment.json`})

	register(&command{name: "deploy", summary: "deploy EpochAnchor and a PaceSmartAccount", run: runDeploy, usage: `
Usage: afr deploy (--chain FILE | --rpc URL) --key FILE [flags] [-o FILE]

Deploys EpochAnchor and (unless --no-pace) a PaceSmartAccount from the key
in FILE, and writes the deployment (addresses, chain id, RPC URL,
deployment block, gas used) as JSON to -o (docs/SPEC.md, "Deployment file")
or standard output. The account's owner defaults to the deployer; its
policy signer and approvers are addresses you give (the keys stay with you).
An operator that anchors in aggregate batches names its batches file with
--batches, so that afr verify --deployment finds the batches' contents.

Examples:
  afr deploy --chain ./devchain/chain.json --key ./devchain/dev-0.key -o deployment.json
  afr deploy --chain ./devchain/chain.json --key ./devchain/dev-0.key --batches batches.jsonl -o deployment.json
  afr deploy --rpc http://127.0.0.1:8545 --key op.key --policy-signer 0xabc… --approver 0xdef… --threshold 1 -o deployment.json`})

	register(&command{name: "anchor", summary: "anchor logs' sealed epochs on chain, per log or in aggregate batches, and wait for confirmations", run: runAnchor, usage: `
Usage: afr anchor --log DIR [--log DIR … --batches FILE] (--deployment FILE | (--chain FILE | --rpc URL) --contract ADDR) --key FILE [flags]

Submits anchor(log, t, R_t, R_t−1) to EpochAnchor for every sealed epoch of
the log not yet confirmed, in order, and waits until each is --confirmations
blocks deep. The log id is derived from the log's recorder and session
(docs/SPEC.md, "Log id"): one key anchors any number of logs. The queue
(docs/SPEC.md, "Anchor queue") is kept in DIR/anchor-queue.json:
interrupted, the command resumes where it stopped. RPC failures are retried
with backoff, stuck transactions are replaced with higher fees, reorged
anchors are re-submitted. If another writer anchored one of these epochs
of this log with the same key, the command fails with exit code 5. The
operator is the key's address. With --follow it keeps running and anchors
epochs as another process seals them, until interrupted.

With --batches FILE, the sealed epochs of every --log go into aggregate
batches (docs/SPEC.md, "Aggregate batches"): one transaction commits the
epochs that waited across all logs (at most --max-entries), as batch b of
the operator's batch chain. Each batch is appended to FILE, and synced,
before it is submitted (docs/SPEC.md, "Batches file"); its queue is
FILE.queue.json. Verifiers need FILE (afr verify --batches FILE), or, with
--publish events, read the entries from the chain (~4,000 gas per epoch
more; file publication costs ~30,500 gas per batch of any size). Run one
batcher, and so one batches file, per key.

Examples:
  afr anchor --log ./afr-log --deployment deployment.json --key ./devchain/dev-0.key
  afr anchor --log ./afr-log --rpc http://127.0.0.1:8545 --contract 0x… --key op.key --confirmations 3 --json
  afr anchor --log ./agent-1 --log ./agent-2 --batches batches.jsonl --deployment deployment.json --key op.key`})
}

// maxDevKeys bounds afr chain --accounts: each key is a file and a genesis
// account.
const maxDevKeys = 1000

// chainFile is DIR/chain.json written by afr chain.
type chainFile struct {
	Backend string   `json:"backend"`
	RPC     string   `json:"rpc"`
	ChainID uint64   `json:"chain_id"`
	Keys    []string `json:"keys"`
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := strictjson.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// Replaced whole (durable.WriteFile renames a complete file into place):
	// another process waiting for chain.json never reads half of it.
	return durable.WriteFile(path, append(b, '\n'), 0o644)
}

func runChain(e *env, args []string) error {
	fs := commands["chain"].flags(e)
	kindName := fs.String("backend", "embedded", "embedded or anvil")
	listen := fs.String("listen", "127.0.0.1:8545", "loopback address to serve JSON-RPC on (embedded; port 0 picks one)")
	dir := fs.String("dir", ".", "directory for chain.json and the dev keys")
	blockTime := fs.Duration("block-time", time.Second, "empty-block interval (embedded) / interval mining (anvil, whole seconds)")
	jsonOut := fs.Bool("json", false, "write chain.json's content to standard output once ready")
	accounts := fs.Int("accounts", 4, "number of funded dev accounts, a key file each, to create (1–1000)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *accounts < 1 || *accounts > maxDevKeys {
		return usageError{fmt.Sprintf("--accounts %d: want 1 to %d", *accounts, maxDevKeys)}
	}
	kind, err := backend.ParseKind(*kindName)
	if err != nil || (kind != backend.KindEmbedded && kind != backend.KindAnvil) {
		return usageError{"--backend: want embedded or anvil"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// anvil mines in whole seconds, at least one.
	interval := max(blockTime.Truncate(time.Second), time.Second)
	b, err := backend.Start(ctx, kind, backend.Options{
		Embedded: backend.EmbeddedOptions{HTTP: *listen, BlockPeriod: *blockTime, Keys: *accounts},
		Anvil:    anvil.Options{Accounts: *accounts, BlockTime: interval, MixedMining: true}})
	if err != nil {
		if kind == backend.KindAnvil {
			return fmt.Errorf("%w (hint: make setup installs anvil)", err)
		}
		return err
	}
	defer b.Close()
	id, err := b.Client().ChainID(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	cf := chainFile{Backend: b.Name(), RPC: b.URL(), ChainID: id.Uint64()}
	for i, k := range b.Keys() {
		p := filepath.Join(*dir, fmt.Sprintf("dev-%d.key", i))
		if err := chain.WriteKey(p, k); err != nil {
			return err
		}
		cf.Keys = append(cf.Keys, p)
	}
	if err := writeJSONFile(filepath.Join(*dir, "chain.json"), cf); err != nil {
		return err
	}
	if *jsonOut {
		writeJSON(e.stdout, cf)
	} else {
		fmt.Fprintf(e.stdout, "%s chain %d serving JSON-RPC at %s\n", b.Name(), cf.ChainID, cf.RPC)
		for i, p := range cf.Keys {
			fmt.Fprintf(e.stdout, "  dev key %d: %s (%s)\n", i, p, chain.Address(b.Keys()[i]))
		}
		fmt.Fprintf(e.stdout, "wrote %s; Ctrl-C stops the chain (its state is lost)\n", filepath.Join(*dir, "chain.json"))
	}
	<-ctx.Done()
	return nil
}

func runDeploy(e *env, args []string) error {
	fs := commands["deploy"].flags(e)
	cf := addEndpointFlags(fs)
	keyFile := addKeyFlag(fs)
	noPace := fs.Bool("no-pace", false, "deploy EpochAnchor only")
	owner := fs.String("owner", "", "PaceSmartAccount owner (default: the deployer)")
	policy := fs.String("policy-signer", "", "PaceSmartAccount policy signer (default: the deployer)")
	approvers := fs.String("approver", "", "comma-separated approver addresses")
	threshold := fs.Uint("threshold", 0, "approvals required when a PDR asks for approval (0 means 1)")
	batches := fs.String("batches", "", "the operator's batches file, recorded in the deployment for verifiers (relative to the deployment file)")
	out := fs.String("o", "", "file to write the deployment to (default: standard output)")
	jsonOut := fs.Bool("json", false, "write the deployment to standard output too")
	if err := parse(fs, args); err != nil {
		return err
	}
	t, _, err := cf.target()
	if err != nil {
		return err
	}
	key, err := readKey(*keyFile)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := cf.dial(ctx, t, key)
	if err != nil {
		return err
	}
	defer b.Close()
	var pc *chain.PaceConfig
	if !*noPace {
		pc = &chain.PaceConfig{Owner: chain.Address(key), PolicySigner: chain.Address(key), Threshold: uint8(*threshold)}
		if *owner != "" {
			if pc.Owner, err = parseAddress("--owner", *owner); err != nil {
				return err
			}
		}
		if *policy != "" {
			if pc.PolicySigner, err = parseAddress("--policy-signer", *policy); err != nil {
				return err
			}
		}
		for _, s := range strings.Split(*approvers, ",") {
			if s = strings.TrimSpace(s); s != "" {
				a, err := parseAddress("--approver", s)
				if err != nil {
					return err
				}
				pc.Approvers = append(pc.Approvers, a)
			}
		}
	}
	d, err := chain.Deploy(ctx, b.Client(), key, pc)
	if err != nil {
		return err
	}
	d.RPC, d.BatchesFile = t.RPC, *batches
	if *out != "" {
		if err := writeJSONFile(*out, d); err != nil {
			return err
		}
	}
	if *out == "" || *jsonOut {
		return writeJSON(e.stdout, d)
	}
	fmt.Fprintf(e.stdout, "EpochAnchor       %s (block %d, %d gas)\n", d.EpochAnchor, d.Block, d.GasUsed["EpochAnchor"])
	if d.Pace != nil {
		fmt.Fprintf(e.stdout, "PaceSmartAccount  %s (%d gas)\n", d.Pace, d.GasUsed["PaceSmartAccount"])
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", *out)
	return nil
}

// anchorVar holds the anchorers this process runs, by log directory, for the
// expvar "afr_anchor": {"<log dir>": recorder.AnchorWindow, …}. The CLI publishes it,
// not package anchor: a library publishes no process globals.
var anchorVar struct {
	once sync.Once
	mu   sync.Mutex
	live map[string]*anchor.Anchorer
}

// publishAnchor shows a's window in the expvar "afr_anchor" until the
// returned function is called.
func publishAnchor(dir string, a *anchor.Anchorer) (unpublish func()) {
	v := &anchorVar
	v.once.Do(func() {
		v.live = map[string]*anchor.Anchorer{}
		expvar.Publish("afr_anchor", expvar.Func(func() any {
			v.mu.Lock()
			defer v.mu.Unlock()
			out := map[string]recorder.AnchorWindow{}
			for d, a := range v.live {
				out[d] = a.Window()
			}
			return out
		}))
	})
	v.mu.Lock()
	v.live[dir] = a
	v.mu.Unlock()
	return func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.live[dir] == a {
			delete(v.live, dir)
		}
	}
}
