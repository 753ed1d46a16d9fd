package backend

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// What package backend knows of the embedded chain. The chain itself —
// go-ethereum's node, its eth service, transaction pool and databases — is
// package chain/backend/embedded, which registers itself when imported, so
// a program that never starts it (a spec module on the in-process chain,
// anvil or a fork) does not link or build that node.

// EmbeddedImport is the import path that links the embedded chain into a
// program: import it for its side effect (import _ "…") to make
// Start(KindEmbedded) work.
const EmbeddedImport = "github.com/agentflightrecorder/afr/chain/backend/embedded"

// ErrEmbeddedNotLinked is returned (wrapped) by Start for KindEmbedded in a
// program that does not import EmbeddedImport.
var ErrEmbeddedNotLinked = errors.New("chain: the embedded backend is not linked into this program")

// EmbeddedChainID is the chain id of the embedded chain (that of go-ethereum's
// dev chain rules, params.AllDevChainProtocolChanges).
const EmbeddedChainID = 1337

// EmbeddedOptions configure an embedded chain.
type EmbeddedOptions struct {
	// Keys is the number of funded dev keys (default 4), each with 10,000 ETH.
	// They are derived deterministically (DevKey) so every run has the same
	// addresses; never use them on a real chain.
	Keys int
	// BlockPeriod mines an empty block this often, so confirmations advance
	// without traffic (default 1s; negative: never). A block with the pending
	// transactions is mined as soon as a transaction arrives (automine).
	BlockPeriod time.Duration
	// HTTP, when set, serves JSON-RPC (eth, net, web3, debug) on this
	// loopback address, e.g. "127.0.0.1:8545"; port 0 picks a free port.
	// debug_chainConfig answers the exact rules the chain runs, so a fork of
	// it (package evm) executes with them.
	HTTP string
	// GenesisTime is the genesis block's timestamp (Unix seconds); 0 means
	// go-ethereum's default, 0, so blocks follow the wall clock. A time
	// ahead of the wall clock fixes every block's time: go-ethereum's
	// simulated beacon stamps a block max(now, parent + 1), so block n is
	// at GenesisTime + n on every run (the time a fixed-time anvil gives
	// with a one-second interval).
	GenesisTime uint64
}

// startEmbedded starts an embedded chain; nil until package
// chain/backend/embedded is imported.
var startEmbedded func(EmbeddedOptions) (Backend, error)

// RegisterEmbedded makes Start(KindEmbedded) start chains with start. The
// init function of package chain/backend/embedded calls it; nothing else
// should.
func RegisterEmbedded(start func(EmbeddedOptions) (Backend, error)) { startEmbedded = start }

// newEmbedded starts a registered embedded chain, or says which import
// links it.
func newEmbedded(opts EmbeddedOptions) (Backend, error) {
	start := startEmbedded
	if start == nil {
		return nil, fmt.Errorf("%w: import _ %q in the program or test (it builds go-ethereum's whole node; the inproc, anvil and fork backends need none of it)", ErrEmbeddedNotLinked, EmbeddedImport)
	}
	return start(opts)
}

// DevKey returns the i-th deterministic dev key of the local chains
// (embedded and in-process): keccak256("afr embedded dev key " ‖ decimal i)
// as a secp256k1 scalar.
func DevKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("afr embedded dev key %d", i))))
	if err != nil {
		panic(err) // a keccak output is a valid scalar with overwhelming probability; checked by a test
	}
	return k
}

// LocalGenesis returns the genesis of the local chains (embedded and
// in-process) with n dev keys (DevKey(0), …), 10,000 ETH each, at the given
// timestamp, and those keys.
func LocalGenesis(n int, time uint64) (*core.Genesis, []*ecdsa.PrivateKey) {
	return localGenesis(localRules(), n, time)
}

// LoopbackAddr resolves a loopback listen address (host:port), choosing a
// free port for port 0; any other host is refused.
func LoopbackAddr(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("chain: http address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", 0, fmt.Errorf("chain: http address %q: only loopback addresses are served", addr)
	}
	if port != "0" {
		var p int
		_, err := fmt.Sscan(port, &p)
		return host, p, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", 0, err
	}
	defer l.Close()
	return host, l.Addr().(*net.TCPAddr).Port, nil
}

// ChainConfigAPI is the JSON-RPC service of debug_chainConfig, which both
// local chains serve: the rules the chain runs, in go-ethereum's
// ChainConfig JSON (as op-geth and reth answer it).
type ChainConfigAPI struct{ Config *params.ChainConfig }

// ChainConfig is debug_chainConfig.
func (a ChainConfigAPI) ChainConfig() *params.ChainConfig { return a.Config }
