package archtest

// The layers of AFR, lowest first. A package may import AFR packages of
// lower layers and of its own; an import of a higher layer's package — an
// upward arrow — fails TestLayers, and so does a package that is in no
// layer. Placing a new package is a decision about the architecture: put it
// in the lowest layer its imports allow, and say why in the commit.
var layers = []struct {
	name     string
	packages []string
}{
	{"leaves: durable files, bounded file reading, the strict JSON reader, RPC dialling, loopback listeners' guard, contract bindings and artifacts, the anvil process, embedded pages", []string{
		"internal/durable", "internal/readlimit", "internal/strictjson", "internal/rpcdial", "internal/cachefile", "internal/traces", "internal/loopback",
		"contracts/bindings", "contracts/artifacts", "chain/backend/anvil", "verifier/page",
	}},
	{"formats: everything docs/SPEC.md specifies, and the synthetic workload", []string{
		"format", "format/segment", "recorder/workload",
	}},
	{"the log: writing it, verifying it, attacking it", []string{
		"recorder", "verifier", "verifier/light", "verifier/tamper", "bench/ladder",
	}},
	{"evidence around the log: checkpoints, replicas, reports, imports and receivers; policy records, calldata, the chain client, the EVM", []string{
		"checkpoint", "replica", "report", "importer", "otlp", "mcpproxy", "hook",
		"pdr", "calldata", "chain", "evm",
	}},
	{"services over a chain or a log: anchoring, on-chain verification, watching the chain, the agent's PACE flow, replay, chain backends, the daemon", []string{
		"anchor", "verifier/onchain", "watch", "pace", "tracesim", "chain/backend", "chain/backend/embedded", "serve", "internal/show",
	}},
	{"the World: a chain with AFR deployed", []string{"world"}},
	{"on the World: fuzzing, the Ginkgo harness and the paper's evaluation", []string{"world/fuzz", "specs/afrspec", "bench"}},
	{"the CLI", []string{"cmd/afr"}},
}

// testOnly are packages for tests and code generation: they may import
// any package, and only test files and other test-only packages import
// them (the afr binary never links them).
var testOnly = []string{
	"internal/archtest", "internal/logtest", "internal/gethfixtures", "internal/browser", "internal/browser/pagetests",
	"chain/backend/anvil/anviltest", "replica/s3test", "fixtures/vectors/gen", "contracts", "contracts/internal/artgen",
	"contracts/internal/bindgen", "contracts/internal/forgeart", "contracts/internal/solcgen", "verifier/page/internal/gen",
}

// forbiddenImports are direct imports refused although the layers allow
// them.
var forbiddenImports = map[string][]string{
	"anchor":   {"verifier"}, // anchoring writes to the chain; the formats it reads are in format
	"recorder": {"verifier"}, // the writer never depends on its judge
	"verifier": {"recorder"}, // the verifier reads a log through verifier.Source, from any writer
}

// forbiddenDeps are dependencies (direct or not) a package must never
// link: the binary links no test framework; the verifier an auditor runs,
// the formats and the writers an agent host embeds link no go-ethereum; a
// spec module links go-ethereum's node (and its databases) only if it
// imports chain/backend/embedded itself, so the packages it imports link
// none (a first build of a spec module is minutes shorter).
var forbiddenDeps = map[string][]string{
	"chain/backend":  gethNode,
	"world":          gethNode,
	"specs/afrspec":  gethNode,
	"world/fuzz":     gethNode,
	"watch":          gethNode,
	"cmd/afr":        {"github.com/onsi/", "testing"},
	"format":         {"github.com/ethereum/go-ethereum"},
	"format/segment": {"github.com/ethereum/go-ethereum"},
	"recorder":       {"github.com/ethereum/go-ethereum"},
	"verifier":       {"github.com/ethereum/go-ethereum"},
	"verifier/light": {"github.com/ethereum/go-ethereum"},
	"importer":       {"github.com/ethereum/go-ethereum"},
	"otlp":           {"github.com/ethereum/go-ethereum"},
	"mcpproxy":       {"github.com/ethereum/go-ethereum"},
	"hook":           {"github.com/ethereum/go-ethereum"},
	"serve":          {"github.com/ethereum/go-ethereum"},
	"replica":        {"github.com/ethereum/go-ethereum"},
}

// gethNode is go-ethereum's node: the node, its consensus-layer driver (the
// eth service itself is not named: its path is a prefix of the tracers'),
// the simulated backend, and the database only a node opens. (eth/filters
// is allowed: the in-process chain's JSON-RPC reads eth_getLogs criteria
// with its FilterCriteria, and it links nothing the tracers do not.)
var gethNode = []string{
	"github.com/ethereum/go-ethereum/node", "github.com/ethereum/go-ethereum/eth/catalyst",
	"github.com/ethereum/go-ethereum/ethclient/simulated",
	"github.com/ethereum/go-ethereum/ethdb/pebble", "github.com/cockroachdb/pebble",
}
