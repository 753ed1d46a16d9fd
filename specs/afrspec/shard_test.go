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
	// down within a sequence": a sequence starts on the block after start.
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
			}
		})
	})
})

// suiteSpecs runs the Ginkgo suite in dir (from the module root) with env
// added and returns the state of each of its specs by full text.
func suiteSpecs(ctx context.Context, dir string, env ...string) map[string]types.SpecState {
	GinkgoHelper()
	out := GinkgoT().TempDir()
	cmd := exec.CommandContext(ctx, "go", "run", "github.com/onsi/ginkgo/v2/ginkgo",
		"--label-filter=!live", "--output-dir="+out, "--json-report=report.json", dir)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithContext(ctx).WithTimeout(4 * time.Minute).Should(gexec.Exit(0))
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
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

var _ = Describe("CI shards (AFR_SHARD=i/n)", Label("slow"), func() {
	It("run every spec of a real suite in exactly one shard", func(ctx SpecContext) {
		all := suiteSpecs(ctx, "./specs/account", "AFR_SHARD=")
		Expect(all).NotTo(BeEmpty())
		ran := map[string]int{}
		for i := 1; i <= 3; i++ {
			shard := suiteSpecs(ctx, "./specs/account", fmt.Sprintf("AFR_SHARD=%d/3", i))
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
