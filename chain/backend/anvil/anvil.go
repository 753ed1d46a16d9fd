// Package anvil starts and stops a real anvil process (Foundry's local
// Ethereum node) for tests and tools.
//
// The binary is looked up as node_modules/.bin/anvil relative to the module
// root (the nearest directory above the working directory holding go.mod, where
// `make setup` installs the pinned Foundry toolchain), then on $PATH; Options.Binary
// names another. Each node listens on 127.0.0.1, by default on a port chosen by
// the operating system (anvil is started with --port 0 and the address is read
// from its banner), so parallel tests never race for a port. Start returns only
// once the node answers eth_chainId.
//
// Block times are wall-clock by default. Options.Timestamp and
// Options.BlockTimestampInterval fix them: the genesis block gets Timestamp
// and every later block Interval seconds more than its parent, whatever the
// wall clock says, so PDR expiries, signatures, calldata and gas repeat from
// run to run.
//
// A node is stopped by Node.Stop, when the context given to Start is done, and
// (on Linux) when the process that started it dies. anviltest.Start registers Stop with
// t.Cleanup so a failing test never leaves a node behind.
package anvil

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ErrNotFound is returned (wrapped) by Start and FindBinary when no anvil
// binary can be found.
var ErrNotFound = errors.New("anvil: binary not found")

// Options configure a node. The zero value starts anvil with its own defaults
// (chain id 31337, 10 funded dev accounts, automine).
type Options struct {
	// Binary is the anvil executable; empty means FindBinary.
	Binary string
	// ChainID sets --chain-id when non-zero.
	ChainID uint64
	// Accounts sets --accounts when non-zero.
	Accounts int
	// BalanceEther sets --balance (in ether) when non-zero.
	BalanceEther uint64
	// Hardfork sets --hardfork when non-empty (e.g. "prague").
	Hardfork string
	// Port sets the loopback port; 0 lets the operating system choose a free
	// one (the default, and the only choice that cannot collide).
	Port int
	// Timestamp sets --timestamp: the genesis block's time (Unix seconds).
	Timestamp uint64
	// BlockTimestampInterval, when non-zero, makes each block exactly this
	// many seconds after its parent (anvil_setBlockTimestampInterval, set
	// before Start returns) instead of following the wall clock.
	BlockTimestampInterval uint64
	// BlockTime sets --block-time (whole seconds): anvil then mines a block
	// on that wall-clock schedule instead of one per transaction, so block
	// times and contents depend on timing. 0 means automine: a block per
	// transaction, at once.
	BlockTime time.Duration
	// MixedMining, with BlockTime, also mines each transaction at once
	// (--mixed-mining): a block per transaction as with automine, and an
	// empty block every BlockTime, so confirmations advance without traffic.
	MixedMining bool
	// ForkURL and ForkBlock set --fork-url and --fork-block-number: anvil
	// forks that JSON-RPC endpoint's state at that block (0: its latest).
	ForkURL   string
	ForkBlock uint64
	// ForkCache, with ForkURL, is the directory of the fork's on-disk RPC
	// cache (accounts, storage and block hashes fetched from the forked
	// endpoint), laid out as Foundry lays out ~/.foundry/cache/rpc:
	// ForkCache/<chain>/<block>/storage.json, <chain> being the chain's
	// name in Foundry's list of chains or else its id. anvil loads the file
	// at start and writes it back when stopped by Stop, so the next node
	// forking the same chain at the same block fetches only what is not in
	// it yet; anvil caches only a fork pinned to a block (ForkBlock). Empty
	// means anvil's own default, ~/.foundry/cache/rpc. (anvil has no flag
	// for it: the node runs with HOME set to a temporary directory whose
	// .foundry/cache/rpc is a link to ForkCache.)
	ForkCache string
	// Args are appended to the command line as given (e.g. "--prune-history").
	Args []string
	// Log receives anvil's output after the banner; nil discards it.
	Log io.Writer
	// StartTimeout bounds start-up and the readiness check; 0 means 30s.
	StartTimeout time.Duration
}

// Node is a running anvil process.
type Node struct {
	cmd      *exec.Cmd
	url      string
	chainID  uint64
	accounts []common.Address
	keys     []*ecdsa.PrivateKey

	stopOnce sync.Once
	stopErr  error
	exited   chan struct{}
	waitErr  error
	stopCtx  func() bool
}

// FindBinary returns the path of the anvil executable: node_modules/.bin/anvil
// under the module root (found by walking up from the working directory to
// go.mod), else anvil on $PATH. The error wraps ErrNotFound.
func FindBinary() (string, error) {
	if dir, err := os.Getwd(); err == nil {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, "node_modules", ".bin", "anvil")
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					return p, nil
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if p, err := exec.LookPath("anvil"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: looked for node_modules/.bin/anvil under the module root and anvil on $PATH (install Foundry's anvil on $PATH, or run make setup in an AFR checkout)", ErrNotFound)
}

var listenRE = regexp.MustCompile(`Listening on ([0-9.]+:[0-9]+)`)

// Start starts anvil and waits until it answers JSON-RPC. The node is stopped
// when ctx is done or Stop is called, whichever comes first; if Start fails,
// no process is left running.
func Start(ctx context.Context, opts Options) (*Node, error) {
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	} else if _, err := exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("%w: %s is not an executable (%v)", ErrNotFound, bin, err)
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("anvil: port %d out of range (0 picks a free port)", opts.Port)
	}
	if opts.BlockTime < 0 || opts.BlockTime%time.Second != 0 {
		return nil, fmt.Errorf("anvil: block time %v: want a whole, positive number of seconds (0 means automine)", opts.BlockTime)
	}
	if opts.MixedMining && opts.BlockTime == 0 {
		return nil, errors.New("anvil: mixed mining needs a block time")
	}
	if opts.ForkBlock != 0 && opts.ForkURL == "" {
		return nil, errors.New("anvil: a fork block needs a fork URL")
	}
	if opts.ForkCache != "" && opts.ForkURL == "" {
		return nil, errors.New("anvil: a fork cache needs a fork URL")
	}
	args := []string{"--host", "127.0.0.1", "--port", strconv.Itoa(opts.Port)}
	if opts.ChainID != 0 {
		args = append(args, "--chain-id", strconv.FormatUint(opts.ChainID, 10))
	}
	if opts.Accounts != 0 {
		args = append(args, "--accounts", strconv.Itoa(opts.Accounts))
	}
	if opts.BalanceEther != 0 {
		args = append(args, "--balance", strconv.FormatUint(opts.BalanceEther, 10))
	}
	if opts.Hardfork != "" {
		args = append(args, "--hardfork", opts.Hardfork)
	}
	if opts.Timestamp != 0 {
		args = append(args, "--timestamp", strconv.FormatUint(opts.Timestamp, 10))
	}
	if opts.BlockTime != 0 {
		args = append(args, "--block-time", strconv.FormatInt(int64(opts.BlockTime/time.Second), 10))
	}
	if opts.MixedMining {
		args = append(args, "--mixed-mining")
	}
	if opts.ForkURL != "" {
		args = append(args, "--fork-url", opts.ForkURL)
		if opts.ForkBlock != 0 {
			args = append(args, "--fork-block-number", strconv.FormatUint(opts.ForkBlock, 10))
		}
	}
	args = append(args, opts.Args...)

	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = sysProcAttr()
	home := ""
	if opts.ForkCache != "" {
		var err error
		if home, err = cacheHome(opts.ForkCache); err != nil {
			return nil, err
		}
		cmd.Env = append(os.Environ(), "HOME="+home)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = removeHome(home)
		return nil, fmt.Errorf("anvil: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		_ = removeHome(home)
		return nil, fmt.Errorf("anvil: start %s: %w", bin, err)
	}
	n := &Node{cmd: cmd, exited: make(chan struct{})}

	// Read the banner up to the listening address, then keep draining output
	// so anvil never blocks on a full pipe.
	type banner struct {
		addr     string
		accounts []string
		keys     []string
		err      error
	}
	bannerc := make(chan banner, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var b banner
		section := ""
		for {
			line, err := r.ReadString('\n')
			trimmed := strings.TrimSpace(line)
			switch {
			case trimmed == "Available Accounts":
				section = "accounts"
			case trimmed == "Private Keys":
				section = "keys"
			case trimmed == "Wallet", strings.HasPrefix(trimmed, "Chain ID"), strings.HasPrefix(trimmed, "Base Fee"):
				section = ""
			case strings.HasPrefix(trimmed, "(") && section != "":
				if f := strings.Fields(trimmed); len(f) >= 2 {
					if section == "accounts" {
						b.accounts = append(b.accounts, f[1])
					} else {
						b.keys = append(b.keys, f[1])
					}
				}
			}
			if m := listenRE.FindStringSubmatch(line); m != nil {
				b.addr = m[1]
				bannerc <- b
				break
			}
			if err != nil {
				b.err = err
				bannerc <- b
				return
			}
		}
		w := opts.Log
		if w == nil {
			w = io.Discard
		}
		_, _ = io.Copy(w, r)
	}()
	go func() {
		n.waitErr = cmd.Wait()
		_ = removeHome(home)
		close(n.exited)
	}()

	fail := func(err error) (*Node, error) {
		_ = n.kill()
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return nil, fmt.Errorf("anvil: %w; stderr: %s", err, msg)
		}
		return nil, fmt.Errorf("anvil: %w", err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var b banner
	select {
	case b = <-bannerc:
		if b.err != nil {
			<-n.exited
			return fail(fmt.Errorf("exited before listening: %v", n.waitErr))
		}
	case <-timer.C:
		return fail(fmt.Errorf("no listening address after %v", timeout))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	n.url = "http://" + b.addr
	for _, a := range b.accounts {
		n.accounts = append(n.accounts, common.HexToAddress(a))
	}
	for _, k := range b.keys {
		if key, err := crypto.HexToECDSA(strings.TrimPrefix(k, "0x")); err == nil {
			n.keys = append(n.keys, key)
		}
	}

	// Readiness: eth_chainId answers.
	for {
		var id string
		err := n.Call(ctx, &id, "eth_chainId")
		if err == nil {
			if n.chainID, err = strconv.ParseUint(strings.TrimPrefix(id, "0x"), 16, 64); err != nil {
				return fail(fmt.Errorf("eth_chainId answered %q: %w", id, err))
			}
			break
		}
		select {
		case <-n.exited:
			return fail(fmt.Errorf("exited before ready: %v", n.waitErr))
		case <-timer.C:
			return fail(fmt.Errorf("not ready after %v: %v", timeout, err))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if opts.BlockTimestampInterval != 0 {
		if err := n.Call(ctx, nil, "anvil_setBlockTimestampInterval", opts.BlockTimestampInterval); err != nil {
			return fail(fmt.Errorf("setting the block timestamp interval: %w", err))
		}
	}
	n.stopCtx = context.AfterFunc(ctx, func() { _ = n.Stop() })
	return n, nil
}

// URL is the node's HTTP JSON-RPC endpoint, e.g. http://127.0.0.1:41234.
func (n *Node) URL() string { return n.url }

// ChainID is the chain id the node reported when it became ready.
func (n *Node) ChainID() uint64 { return n.chainID }

// Accounts are the funded, unlocked dev accounts from anvil's banner.
func (n *Node) Accounts() []common.Address { return n.accounts }

// Keys are the private keys of Accounts, in the same order.
func (n *Node) Keys() []*ecdsa.PrivateKey { return n.keys }

// Stop terminates the node (SIGTERM, then SIGKILL after 5s) and waits for it
// to exit. It is safe to call more than once and from several goroutines, and
// on a nil Node (one that never started), where it does nothing.
func (n *Node) Stop() error {
	if n == nil {
		return nil
	}
	n.stopOnce.Do(func() {
		if n.stopCtx != nil {
			n.stopCtx()
		}
		select {
		case <-n.exited:
			return
		default:
		}
		_ = n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.exited:
		case <-time.After(5 * time.Second):
			n.stopErr = n.kill()
		}
	})
	return n.stopErr
}

// Done is closed when the process has exited.
func (n *Node) Done() <-chan struct{} { return n.exited }

func (n *Node) kill() error {
	select {
	case <-n.exited:
		return nil
	default:
	}
	if err := n.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-n.exited
	return nil
}

// Call sends one JSON-RPC request to the node (anvil_*, evm_* and eth_*
// methods alike) and decodes its result into result, unless result is nil.
func (n *Node) Call(ctx context.Context, result any, method string, params ...any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("anvil: %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("anvil: %s: %w", method, err)
	}
	if out.Error != nil {
		return fmt.Errorf("anvil: %s: %s", method, out.Error.Message)
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(out.Result, result); err != nil {
		return fmt.Errorf("anvil: %s answered %s: %w", method, out.Result, err)
	}
	return nil
}

// cacheHome makes a temporary home directory whose .foundry/cache/rpc
// links to the fork cache dir (created if missing), where anvil keeps its
// fork RPC cache (see Options.ForkCache).
func cacheHome(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("anvil: fork cache %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("anvil: fork cache: %w", err)
	}
	home, err := os.MkdirTemp("", "afr-anvil-home-")
	if err != nil {
		return "", fmt.Errorf("anvil: %w", err)
	}
	cache := filepath.Join(home, ".foundry", "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		_ = removeHome(home)
		return "", fmt.Errorf("anvil: %w", err)
	}
	if err := os.Symlink(abs, filepath.Join(cache, "rpc")); err != nil {
		_ = removeHome(home)
		return "", fmt.Errorf("anvil: fork cache: %w", err)
	}
	return home, nil
}

// removeHome removes a home directory made by cacheHome ("" is none); the
// fork cache it links to stays.
func removeHome(home string) error {
	if home == "" {
		return nil
	}
	return os.RemoveAll(home)
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
