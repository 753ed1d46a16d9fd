package logtamper_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier/tamper"
	"github.com/agentflightrecorder/afr/world"

	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // the suite runs on the embedded chain too (AFR_BACKEND=embedded, Config.RPC)
)

func TestLogTamper(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Log tampering")
}

const (
	events    = 200 // 13 epochs of 16 (the last one partial)
	epochSize = 16
)

var (
	w     *afrspec.World
	other *tamper.Image // a log of another session, for splices
)

// The honest log: the synthetic workload (seed 42), sealed and anchored on
// chain by the anchorer. Every attack runs on an in-memory copy of it.
var _ = BeforeSuite(func(ctx SpecContext) {
	w = afrspec.StartWorld(world.Config{EpochSize: epochSize})
	for _, ev := range workload.Generate(42, events) {
		w.MustRecord(ctx, ev)
	}
	_, err := w.SealAndAnchor(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(w.Verify(ctx)).To(afrspec.BeVerified(), "the honest log verifies before any attack")

	dir := GinkgoT().TempDir()
	r, err := recorder.Open(dir, recorder.Options{Recorder: "afrspec", EpochSize: epochSize, EpochMaxAge: -1, Sync: recorder.SyncNone})
	Expect(err).NotTo(HaveOccurred())
	for _, ev := range workload.Generate(43, events) {
		_, err := r.Record(context.Background(), ev)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(r.Close()).To(Succeed())
	l, err := recorder.OpenLog(dir)
	Expect(err).NotTo(HaveOccurred())
	other, err = tamper.Load(l)
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(2*60e9))
