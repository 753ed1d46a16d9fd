package world

import (
	"io"
	"os"
	"time"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/pdr"
)

// Environment variables read by the World.
const (
	EnvBackend   = "AFR_BACKEND"    // inproc, embedded, anvil or fork
	EnvForkRPC   = "AFR_FORK_RPC"   // archive JSON-RPC endpoint for the fork backend and live fork specs
	EnvForkBlock = "AFR_FORK_BLOCK" // pinned block number for the fork backend
	EnvForkCache = "AFR_FORK_CACHE" // directory of the forks' on-disk RPC cache, or "off" (Config.ForkCache)
)

// SelectedBackend returns $AFR_BACKEND, else "": the default, chosen by
// the Config (see Config.Backend). An unknown name is left for New to
// refuse.
func SelectedBackend() backend.Kind { return backend.Kind(os.Getenv(EnvBackend)) }

// Anchoring says when the World's anchorer sends the roots of sealed
// epochs to EpochAnchor.
type Anchoring int

const (
	// AnchorOnDemand (default) anchors only when SealAndAnchor, Verify's
	// callers or Snapshot ask: the anchorer never races the spec's own
	// transactions for blocks, so block numbers — recorded in outcomes,
	// and so in the log's roots and event ids — repeat from run to run.
	AnchorOnDemand Anchoring = iota
	// AnchorAsSealed anchors every epoch as soon as the recorder seals it,
	// in the background, as a deployed recorder does.
	AnchorAsSealed
)

// Config configures a World. The zero value is a World on the selected
// backend with three approvers (threshold 2), epochs of 16 events, an
// encrypted log in a temporary directory, and a deterministic clock.
type Config struct {
	// Backend is the kind of chain (backend.KindInProcess, KindEmbedded,
	// KindAnvil or KindFork, the last forking ForkRPC at ForkBlock); ""
	// means SelectedBackend(), else the in-process chain — or the embedded
	// chain when BlockTime is set, which the in-process chain does not
	// follow.
	Backend backend.Kind
	// RPC asks for a chain that serves JSON-RPC on loopback (World.URL), for
	// tools outside the process (cast, a wallet, another afr). The
	// in-process chain serves it only when asked (backend.InProcess.ServeRPC);
	// the other backends always do. Replay and RecordTx need no URL on the
	// in-process chain: Replay goes through its in-process JSON-RPC client,
	// RecordTx replays from its own blocks and state.
	RPC bool
	// ForkRPC and ForkBlock pin the fork backend; zero values mean
	// $AFR_FORK_RPC and $AFR_FORK_BLOCK.
	ForkRPC   string
	ForkBlock uint64
	// ForkCache is the directory where forks (the fork backend and
	// CreateFork's) keep the state they fetched from the forked endpoint:
	// anvil's fork RPC cache, one file per chain and block,
	// ForkCache/<chain>/<block>/storage.json (see anvil.Options.ForkCache),
	// written when the fork stops. The next fork of the same chain at the
	// same block — in this process or the next run — fetches only what is
	// not in it. "" means $AFR_FORK_CACHE, else DefaultForkCache(); "off"
	// fetches everything from the endpoint every time.
	ForkCache string
	// Anvil configures the anvil process of the anvil and fork backends.
	Anvil AnvilConfig
	// GenesisTime is the chain's genesis timestamp on the local
	// backends (in-process, embedded and anvil) (Unix seconds; default GenesisTime). Every block is one
	// second after its parent, whatever the wall clock, so PDR expiries,
	// signatures, calldata and gas repeat from run to run and agree between
	// the two backends. It must be ahead of the wall clock for the embedded
	// chain to keep to it (see backend.EmbeddedOptions.GenesisTime).
	// Ignored when BlockTime is set.
	GenesisTime uint64
	// BlockTime, when non-zero, mines a block at least this often besides
	// one per transaction (the embedded chain's empty blocks; anvil's mixed
	// mining, whole seconds). The chain and the log's clock then follow the
	// wall clock: block numbers, times and so roots and gas are no longer
	// the same on every run. For a World that runs like a deployment (the
	// demo) rather than a spec.
	BlockTime time.Duration
	// Dir holds the log (Dir/log) and anchor queue, and the copies of the
	// log that Snapshot and Revert make; "" means a new temporary
	// directory, removed by Close: under $TMPDIR when it is set, else in
	// /dev/shm where the system has it (a memory file system: the log's
	// fsyncs cost nothing there), else under the system's temporary
	// directory.
	Dir string
	// Recorder is the log's recorder (operator) id (default "afrspec"); with
	// the session it names the log (its log id).
	Recorder string
	// EpochSize seals an epoch every this many events (default 16).
	EpochSize int
	// Durable makes every event durable (fsynced, recorder.SyncGroup)
	// before Record returns; by default an event is written to the file
	// (recorder.SyncWrite: it survives the process, not a power loss).
	Durable bool
	// Plaintext stores payloads unencrypted (default: encrypted, as in
	// disclosure mode).
	Plaintext bool
	// Anchoring is when sealed epochs are anchored (default AnchorOnDemand)
	// and Confirmations how deep an anchor must be to count (default 1).
	Anchoring     Anchoring
	Confirmations uint64
	// Approvers is the number of PACE approvers (default 3; negative: none)
	// and Threshold the approvals required when a PDR asks for approval
	// (default 2, capped at Approvers).
	Approvers int
	Threshold uint8
	// Policy evaluates proposals; nil means DefaultPolicy(w). A policy
	// over contracts the spec deploys itself is set after deploying them,
	// with World.SetPolicy.
	Policy *pdr.Policy
	// Seed makes the recorder's keys and session deterministic (default 1),
	// so roots, calldata and gas repeat from run to run.
	Seed uint64
	// Logf receives the World's and the anchorer's progress (default: none).
	Logf func(format string, args ...any)
	// AnvilLog receives anvil's output (default: discarded).
	AnvilLog io.Writer
}

// AnvilConfig configures the anvil process of the anvil and fork backends
// (package chain/backend/anvil). The zero value is a fresh anvil from
// node_modules/.bin or $PATH on a free loopback port, Prague rules,
// automine.
type AnvilConfig struct {
	// Binary is the anvil executable; "" means anvil.FindBinary.
	Binary string
	// Port is the loopback port; 0 picks a free one.
	Port int
	// Hardfork is anvil's --hardfork; "" means "prague" (the rules the
	// embedded chain runs) on the anvil backend and the forked chain's own
	// on the fork backend.
	Hardfork string
	// Args are further anvil flags, appended as given.
	Args []string
}

// GenesisTime is the default genesis timestamp of a World's chain:
// 3,000,000,000 (2065-01-24), far enough ahead of the wall clock that the
// embedded chain keeps to one-second blocks (see Config.GenesisTime).
const GenesisTime = 3_000_000_000

// defaultRecorder is the recorder id of a World's log unless
// Config.Recorder is set.
const defaultRecorder = "afrspec"

// withDefaults returns cfg with its zero values replaced by the defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Backend == "" {
		cfg.Backend = SelectedBackend()
	}
	if cfg.Backend == "" {
		cfg.Backend = backend.KindInProcess
		if cfg.BlockTime != 0 {
			cfg.Backend = backend.KindEmbedded
		}
	}
	if cfg.EpochSize <= 0 {
		cfg.EpochSize = 16
	}
	if cfg.Recorder == "" {
		cfg.Recorder = defaultRecorder
	}
	if cfg.Confirmations == 0 {
		cfg.Confirmations = 1
	}
	if cfg.Approvers == 0 {
		cfg.Approvers = 3
	}
	if cfg.Approvers < 0 {
		cfg.Approvers = 0
	}
	if cfg.Threshold == 0 && cfg.Approvers > 0 {
		cfg.Threshold = 2
	}
	if int(cfg.Threshold) > cfg.Approvers {
		cfg.Threshold = uint8(cfg.Approvers)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.GenesisTime == 0 && cfg.BlockTime == 0 {
		cfg.GenesisTime = GenesisTime
	}
	if cfg.BlockTime != 0 {
		cfg.GenesisTime = 0
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return cfg
}
