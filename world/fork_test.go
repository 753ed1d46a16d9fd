package world_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// archive starts an anvil that plays an archive node of chain id, on
// which address holder has wei (the state that tells two archives apart).
func archive(t testing.TB, id uint64, holder common.Address, wei int64) *anvil.Node {
	t.Helper()
	n := anviltest.Start(t, anvil.Options{ChainID: id, Accounts: 1, Hardfork: "prague"})
	c := dialNode(t, n)
	if _, err := chain.Transact(context.Background(), c, n.Keys()[0], &holder, big.NewInt(wei), nil); err != nil {
		t.Fatal(err)
	}
	return n
}

func dialNode(t testing.TB, n *anvil.Node) chain.Client {
	t.Helper()
	b, err := backend.Dial(context.Background(), chain.Target{RPC: n.URL(), ChainID: n.ChainID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b.Client()
}

// rpcCounter is a loopback reverse proxy in front of an archive that counts
// the JSON-RPC calls it forwards (each call of a batch), by method.
type rpcCounter struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func countingProxy(t testing.TB, target string) *rpcCounter {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &rpcCounter{calls: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	// anvil drops requests in flight when it stops: not a failure here.
	rp.ErrorHandler = func(rw http.ResponseWriter, _ *http.Request, err error) {
		http.Error(rw, err.Error(), http.StatusBadGateway)
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		var calls []struct{ Method string }
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			_ = json.Unmarshal(body, &calls)
		} else {
			calls = make([]struct{ Method string }, 1)
			_ = json.Unmarshal(body, &calls[0])
		}
		p.mu.Lock()
		for _, c := range calls {
			p.calls[c.Method]++
		}
		p.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(rw, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// take returns the calls counted since the last take, by method, and
// their total.
func (p *rpcCounter) take() (map[string]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out, n := p.calls, 0
	for _, c := range out {
		n += c
	}
	p.calls = map[string]int{}
	return out, n
}

// anvilChildren counts the anvil processes this test process started that
// are running (Linux: /proc).
func anvilChildren(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.HasSuffix(s[:i], "(anvil") {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			n++
		}
	}
	return n
}

func balanceOn(t testing.TB, w *world.World, a common.Address) int64 {
	t.Helper()
	b, err := w.Balances(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return b[0].Int64()
}

func selectFork(t testing.TB, w *world.World, id world.ForkID) {
	t.Helper()
	if err := w.SelectFork(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// Two archives with different states: a World on the in-process chain
// forks each, selects between them, and every action goes to the selected
// fork only; the log stays on the home chain and records a fork's
// transaction with that fork's chain id; a snapshot covers every fork.
func TestSelectFork(t *testing.T) {
	ctx := context.Background()
	holder := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	archA, archB := archive(t, 71, holder, 111), archive(t, 72, holder, 222)
	before := anvilChildren(t)
	w, err := world.New(ctx, world.Config{Backend: backend.KindInProcess, ForkCache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	a, err := w.CreateFork(ctx, archA.URL(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.CreateFork(ctx, archB.URL(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := anvilChildren(t); got != before {
		t.Fatalf("%d anvil processes after CreateFork, want %d: forks start at their first SelectFork", got, before)
	}
	if _, err := w.CreateFork(ctx, archA.URL(), 1); !errors.Is(err, world.ErrForkChainID) || !strings.Contains(err.Error(), "fork 1") {
		t.Fatalf("CreateFork of chain 71 again: err = %v, want ErrForkChainID naming fork 1", err)
	}
	if _, err := w.CreateFork(ctx, "http://127.0.0.1:1", 0); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("CreateFork of an unreachable URL: err = %v, want an error naming it", err)
	}
	if _, err := w.CreateFork(ctx, archA.URL(), 1_000_000); err == nil || !strings.Contains(err.Error(), "no block 1000000") {
		t.Fatalf("CreateFork past the archive's head: err = %v, want an error saying it has no such block", err)
	}
	if err := w.SelectFork(ctx, 7); !errors.Is(err, world.ErrUnknownFork) {
		t.Fatalf("SelectFork(7): err = %v, want ErrUnknownFork", err)
	}

	selectFork(t, w, a)
	if w.ActiveFork() != a || w.ChainID() != 71 || balanceOn(t, w, holder) != 111 {
		t.Fatalf("fork a: active %d, chain %d, holder %d wei; want fork %d, chain 71, 111 wei", w.ActiveFork(), w.ChainID(), balanceOn(t, w, holder), a)
	}
	if err := w.Deal(ctx, holder, big.NewInt(5)); err != nil {
		t.Fatal(err)
	}
	urlA := w.URL()
	selectFork(t, w, b)
	if w.ChainID() != 72 || balanceOn(t, w, holder) != 222 {
		t.Fatalf("fork b: chain %d, holder %d wei; want chain 72, 222 wei (the Deal on fork a must not reach it)", w.ChainID(), balanceOn(t, w, holder))
	}
	res := w.Send(ctx, w.Attacker(), holder, big.NewInt(1), nil)
	if !res.Succeeded() {
		t.Fatal(res)
	}
	ev, err := w.RecordTx(ctx, "attacker", res)
	if err != nil {
		t.Fatal(err)
	}
	urlB := w.URL()
	selectFork(t, w, a)
	if got := balanceOn(t, w, holder); got != 5 {
		t.Fatalf("fork a after fork b's transfer: holder %d wei, want 5", got)
	}
	// A result keeps its fork: traced on fork b while fork a is selected.
	tr, err := res.Trace(ctx)
	if err != nil || tr.Calls.To == nil || *tr.Calls.To != holder {
		t.Fatalf("trace of fork b's transfer from fork a: %v, %v", tr, err)
	}
	selectFork(t, w, world.HomeFork)
	if w.ChainID() != backend.EmbeddedChainID || balanceOn(t, w, holder) != 0 {
		t.Fatalf("home: chain %d, holder %d wei; want %d, 0", w.ChainID(), balanceOn(t, w, holder), backend.EmbeddedChainID)
	}

	// The PACE flow and the log stay on the home chain while fork b is
	// selected; the fork's transaction is recorded with its chain id.
	selectFork(t, w, b)
	p, err := w.Propose(ctx, "agent", w.PingCall())
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Execute(ctx, p); !r.Succeeded() {
		t.Fatal(r)
	}
	v, err := w.SealAndVerify(ctx)
	if err != nil || v.Verdict != verifier.Verified || v.Report.Executions.Matched != 1 {
		t.Fatalf("verify with fork b selected: %v, %v; want verified, one execution matched", v, err)
	}
	ix, err := w.Index()
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := ix.Event(ev.Intent.Seq); !ok || e.Payload == nil || e.Payload.Intent.ChainID != 72 {
		t.Fatalf("fork b's recorded intent: %+v, want chain id 72", e)
	}

	// A snapshot covers every fork and the selection; a fork created after
	// it is stopped and dropped by Revert.
	s, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Deal(ctx, holder, big.NewInt(9)); err != nil {
		t.Fatal(err)
	}
	selectFork(t, w, a)
	if err := w.Deal(ctx, holder, big.NewInt(8)); err != nil {
		t.Fatal(err)
	}
	archC := archive(t, 73, holder, 333)
	c, err := w.CreateFork(ctx, archC.URL(), 0)
	if err != nil {
		t.Fatal(err)
	}
	selectFork(t, w, c)
	urlC := w.URL()
	if err := w.Revert(ctx, s); err != nil {
		t.Fatal(err)
	}
	if w.ActiveFork() != b || balanceOn(t, w, holder) != 223 {
		t.Fatalf("after Revert: active fork %d, holder %d wei; want fork %d, 223 wei", w.ActiveFork(), balanceOn(t, w, holder), b)
	}
	selectFork(t, w, a)
	if got := balanceOn(t, w, holder); got != 5 {
		t.Fatalf("fork a after Revert: holder %d wei, want 5", got)
	}
	if err := w.SelectFork(ctx, c); !errors.Is(err, world.ErrUnknownFork) {
		t.Fatalf("SelectFork of a fork created after the snapshot, after Revert: err = %v, want ErrUnknownFork", err)
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := anvilChildren(t); got != before+1 { // archC is still running
		t.Fatalf("%d anvil processes after Close, want %d", got, before+1)
	}
	for _, u := range []string{urlA, urlB, urlC} {
		if resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)); err == nil {
			resp.Body.Close()
			t.Errorf("fork at %s still answers after Close", u)
		}
	}
}

// A fork that cannot start (its archive went away) is an error naming the
// fork, and leaves no process behind; a fork backend whose archive does
// not answer is an error naming it, before any anvil starts.
func TestSelectForkUnreachable(t *testing.T) {
	ctx := context.Background()
	if _, err := world.New(ctx, world.Config{Backend: backend.KindFork, ForkRPC: "http://127.0.0.1:1", ForkBlock: 5, ForkCache: "off"}); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("a fork backend of an unreachable archive: err = %v, want an error naming it", err)
	}
	arch := anviltest.Start(t, anvil.Options{ChainID: 74, Accounts: 1})
	w := newWorld(t, world.Config{Backend: backend.KindInProcess, ForkCache: "off"})
	id, err := w.CreateFork(ctx, arch.URL(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := arch.Stop(); err != nil {
		t.Fatal(err)
	}
	before := anvilChildren(t)
	err = w.SelectFork(ctx, id)
	if err == nil || !strings.Contains(err.Error(), "fork 1") || !strings.Contains(err.Error(), arch.URL()) {
		t.Fatalf("SelectFork of a fork whose archive stopped: err = %v, want an error naming fork 1 and its URL", err)
	}
	if got := anvilChildren(t); got != before {
		t.Fatalf("%d anvil processes after the failed start, want %d", got, before)
	}
	if w.ActiveFork() != world.HomeFork {
		t.Fatalf("active fork %d after a failed SelectFork, want the home chain", w.ActiveFork())
	}
}

// Two Worlds fork the same archive at the same block with one fork cache:
// the second fetches less from the archive (nothing it read the first
// time), and the cache is Foundry's file for that chain and block, under
// the block's hash. Another archive of the same chain id at the same
// block number (another local anvil) shares nothing with it.
func TestForkCacheReused(t *testing.T) {
	ctx := context.Background()
	holder := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	arch := archive(t, 75, holder, 111)
	proxy := countingProxy(t, arch.URL())
	cache := t.TempDir()
	block, err := dialNode(t, arch).BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := func() (map[string]int, int) {
		w, err := world.New(ctx, world.Config{Backend: backend.KindFork, ForkRPC: proxy.URL, ForkBlock: block, ForkCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if got := balanceOn(t, w, holder); got != 111 {
			t.Errorf("holder %d wei on the fork, want 111", got)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return proxy.take()
	}
	first, n1 := run()
	h, err := dialNode(t, arch).HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, h.Hash().Hex(), "*", strconv.FormatUint(block, 10), "storage.json"))
	if len(files) != 1 {
		t.Fatalf("fork cache after the first World: %v, want one <block hash>/<chain>/%d/storage.json", files, block)
	}
	second, n2 := run()
	t.Logf("archive calls: first World %d %v, second %d %v", n1, first, n2, second)
	if n2 >= n1 {
		t.Fatalf("the second World made %d archive calls, the first %d: want fewer", n2, n1)
	}
	for _, m := range []string{"eth_getBalance", "eth_getTransactionCount", "eth_getCode", "eth_getStorageAt"} {
		if second[m] != 0 {
			t.Errorf("the second World fetched %s %d times: the cache holds what the first fetched", m, second[m])
		}
	}

	// Same chain id, same block number, another state: its own cache.
	other := archive(t, 75, holder, 999)
	w, err := world.New(ctx, world.Config{Backend: backend.KindFork, ForkRPC: other.URL(), ForkBlock: block, ForkCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := balanceOn(t, w, holder); got != 999 {
		t.Fatalf("a fork of another chain-75 archive at block %d: holder %d wei, want its own 999", block, got)
	}
}

// BenchmarkFork times what a spec pays for a fork, against a local anvil
// archive behind a counting proxy (archive-calls/op: JSON-RPC calls that
// reached the archive), each spec reading the balances of 50 accounts of
// the forked state:
//
//   - new-world/uncached and new-world/cached: world.New on the fork
//     backend (anvil started, the World deployed and funded on the fork),
//     the reads, Close — with no fork cache, and with a fork cache that a
//     first World filled;
//   - select-fork/uncached and select-fork/cached: CreateFork and
//     SelectFork on a running World (the fork's anvil started and the
//     actors funded on it), the reads, and Revert, which stops the fork;
//   - isolated: one fork World shared by the specs (Isolate): Revert, the
//     reads.
//
// docs/PERFORMANCE.md, Specs: go test -run '^$' -bench BenchmarkFork -benchtime 20x ./world
func BenchmarkFork(b *testing.B) {
	ctx := context.Background()
	holders := make([]any, 50)
	for i := range holders {
		holders[i] = common.BigToAddress(big.NewInt(int64(0xa11ce + i)))
	}
	arch := archive(b, 77, holders[0].(common.Address), 111)
	proxy := countingProxy(b, arch.URL())
	block, err := dialNode(b, arch).BlockNumber(ctx)
	if err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, w *world.World) {
		bal, err := w.Balances(ctx, holders...)
		if err != nil {
			b.Fatal(err)
		}
		if bal[0].Int64() != 111 {
			b.Fatalf("holder 0 has %s wei on the fork, want 111", bal[0])
		}
	}
	report := func(b *testing.B) {
		_, n := proxy.take()
		b.ReportMetric(float64(n)/float64(b.N), "archive-calls/op")
	}
	forkCfg := func(cache string) world.Config {
		return world.Config{Backend: backend.KindFork, ForkRPC: proxy.URL, ForkBlock: block, ForkCache: cache}
	}
	warm := b.TempDir()
	func() { w := newWorld(b, forkCfg(warm)); read(b, w); _ = w.Close() }()
	for _, c := range []struct{ name, cache string }{{"uncached", "off"}, {"cached", warm}} {
		b.Run("new-world/"+c.name, func(b *testing.B) {
			proxy.take()
			for range b.N {
				w, err := world.New(ctx, forkCfg(c.cache))
				if err != nil {
					b.Fatal(err)
				}
				read(b, w)
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
		b.Run("select-fork/"+c.name, func(b *testing.B) {
			w := newWorld(b, world.Config{Backend: backend.KindInProcess, ForkCache: c.cache})
			s, err := w.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			proxy.take()
			b.ResetTimer()
			for range b.N {
				id, err := w.CreateFork(ctx, proxy.URL, block)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.SelectFork(ctx, id); err != nil {
					b.Fatal(err)
				}
				read(b, w)
				if err := w.Revert(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
	}
	b.Run("isolated", func(b *testing.B) {
		w := newWorld(b, forkCfg(warm))
		s, err := w.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		proxy.take()
		b.ResetTimer()
		for range b.N {
			if err := w.Revert(ctx, s); err != nil {
				b.Fatal(err)
			}
			read(b, w)
		}
		report(b)
	})
}
