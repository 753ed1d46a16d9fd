package afrspec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/ethereum/go-ethereum"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

var _ = Describe("Campaign shards", func() {
	var (
		w       *afrspec.World
		counter *world.Artifact
	)
	// A World per spec (not Ordered): Ginkgo -p spreads the shards' specs
	// over its processes.
	BeforeEach(func() {
		w = afrspec.StartWorld(world.Config{})
		var err error
		counter, err = world.TargetArtifact("Counter")
		Expect(err).NotTo(HaveOccurred())
	})

	// countNeverDecreases is the invariant "Counter.count() never goes
	// down within a sequence": a sequence starts on the block after start
	// (the campaign must be Mined).
	countNeverDecreases := func(ctx context.Context, start uint64) fuzz.Invariant {
		last := new(big.Int)
		return fuzz.Invariant{Name: "count never decreases", Check: func(ctx context.Context, w *world.World) error {
			head, err := w.Client().BlockNumber(ctx)
			if err != nil {
				return err
			}
			to := w.Counter()
			out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: counter.Pack("count")}, nil)
			if err != nil {
				return err
			}
			n := new(big.Int).SetBytes(out)
			if head == start+1 {
				last.SetInt64(0)
			}
			if n.Cmp(last) < 0 {
				return fmt.Errorf("count went from %s down to %s", last, n)
			}
			last.Set(n)
			return nil
		}}
	}

	Context("declared with the default number of shards (AFR_CAMPAIGN_SHARDS, else Ginkgo's processes)", func() {
		afrspec.CampaignShards("holds on Counter", 0, func(ctx SpecContext) (*afrspec.World, fuzz.Campaign) {
			start, err := w.Client().BlockNumber(ctx)
			Expect(err).NotTo(HaveOccurred())
			return w, fuzz.Campaign{
				Targets:    []fuzz.Target{{Name: "Counter", Address: w.Counter(), ABI: counter.ABI}},
				Senders:    []*world.Actor{w.Agent(), w.Attacker()},
				Invariants: []fuzz.Invariant{countNeverDecreases(ctx, start)},
				NoFailFile: true,
				// The invariant tells where a sequence starts by its block:
				// every call a block of its own.
				Mined: true,
			}
		})
	})
})

// buildSuite compiles the Ginkgo suite in dir (relative to the module
// root) into a test binary, run from dir by suiteSpecs.
func buildSuite(ctx context.Context, dir string) string {
	GinkgoHelper()
	bin := filepath.Join(GinkgoT().TempDir(), filepath.Base(dir)+".test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "./"+dir)
	cmd.Dir = filepath.Join("..", "..")
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithContext(ctx).WithTimeout(4 * time.Minute).Should(gexec.Exit(0))
	return bin
}

// suiteSpecs runs the suite binary bin from dir with env added and returns
// the state of each of its specs by full text.
func suiteSpecs(ctx context.Context, bin, dir string, env ...string) map[string]types.SpecState {
	GinkgoHelper()
	report := filepath.Join(GinkgoT().TempDir(), "report.json")
	cmd := exec.CommandContext(ctx, bin, "-ginkgo.label-filter=!live", "-ginkgo.json-report="+report)
	cmd.Dir = filepath.Join("..", "..", dir)
	cmd.Env = append(os.Environ(), env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithContext(ctx).WithTimeout(4 * time.Minute).Should(gexec.Exit())
	Expect(s.ExitCode()).To(Equal(0), "the suite with %v", env)
	data, err := os.ReadFile(report)
	Expect(err).NotTo(HaveOccurred())
	var reports []types.Report
	Expect(json.Unmarshal(data, &reports)).To(Succeed())
	states := map[string]types.SpecState{}
	for _, r := range reports {
		for _, sr := range r.SpecReports {
			if sr.LeafNodeType == types.NodeTypeIt {
				states[sr.FullText()] = sr.State
			}
		}
	}
	return states
}

// Ordered: one build of the suite for both specs.
var _ = Describe("CI shards (AFR_SHARD=i/n)", Label("slow"), Ordered, func() {
	var bin string
	BeforeAll(func(ctx SpecContext) { bin = buildSuite(ctx, "specs/account") }, NodeTimeout(5*time.Minute))

	It("run every spec of a real suite in exactly one shard", func(ctx SpecContext) {
		all := suiteSpecs(ctx, bin, "specs/account", "AFR_SHARD=")
		Expect(all).NotTo(BeEmpty())
		ran := map[string]int{}
		for i := 1; i <= 3; i++ {
			shard := suiteSpecs(ctx, bin, "specs/account", fmt.Sprintf("AFR_SHARD=%d/3", i))
			Expect(shard).To(HaveLen(len(all)), "shard %d/3 lists every spec, skipping the others'", i)
			for text, state := range shard {
				Expect(all).To(HaveKey(text))
				if state == types.SpecStatePassed {
					ran[text]++
				} else {
					Expect(state).To(Equal(types.SpecStateSkipped), "%s in shard %d/3", text, i)
				}
			}
		}
		for text, state := range all {
			if state == types.SpecStatePassed {
				Expect(ran[text]).To(Equal(1), "%q ran in %d shards, want 1", text, ran[text])
			}
		}
		Expect(ran).To(HaveLen(len(all)))
	}, NodeTimeout(15*time.Minute))

	It("refuses a malformed AFR_SHARD", func(ctx SpecContext) {
		cmd := exec.CommandContext(ctx, "go", "run", "github.com/onsi/ginkgo/v2/ginkgo", "--label-filter=!live", "./specs/account")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "AFR_SHARD=4/3")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithContext(ctx).WithTimeout(4 * time.Minute).Should(gexec.Exit())
		Expect(s.ExitCode()).NotTo(Equal(0))
		Expect(string(s.Out.Contents()) + string(s.Err.Contents())).To(ContainSubstring(`$AFR_SHARD = "4/3": want i/n with 1 ≤ i ≤ n`))
	}, NodeTimeout(5*time.Minute))
})
