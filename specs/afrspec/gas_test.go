package afrspec_test

import (
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/specs/afrspec"
)

var _ = Describe("MatchGasBaseline", func() {
	var path, module string
	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "baseline.json")
		Expect(afrspec.WriteGasBaseline(path, "test", map[string]uint64{"anchor": 30_000, "execute": 40_000})).To(Succeed())
		var err error
		module, err = filepath.Abs("../..") // go test runs this package in specs/afrspec
		Expect(err).NotTo(HaveOccurred())
	})
	It("passes when nothing moved", func() {
		Expect(map[string]uint64{"anchor": 30_000, "execute": 40_000}).To(afrspec.MatchGasBaseline(path))
	})
	It("fails beyond the tolerance with an old/new/delta table, the file and the command that rewrites it", func() {
		msg := failureOf(func() {
			Expect(map[string]uint64{"anchor": 30_012, "execute": 39_000, "batch": 50_000}).To(afrspec.MatchGasBaseline(path))
		})
		Expect(msg).To(ContainSubstring("Gas differs from the baseline " + path + " beyond the tolerance (0 gas)"))
		Expect(msg).To(MatchRegexp(`anchor\s+30,000\s+30,012\s+\+12\s+\+0\.04%\s+REGRESSION`))
		Expect(msg).To(MatchRegexp(`execute\s+40,000\s+39,000\s+-1,000\s+-2\.50%\s+IMPROVED`))
		Expect(msg).To(MatchRegexp(`batch\s+-\s+50,000\s+-\s+-\s+NEW`))
		Expect(msg).To(ContainSubstring("cd " + module + " && AFR_GAS_UPDATE=1 go test ./specs/afrspec\n"))
		Expect(msg).To(ContainSubstring("commit " + path + " with the change"))
		Expect(msg).To(ContainSubstring("set AFR_GAS_TOLERANCE"))
		Expect(msg).NotTo(ContainSubstring("make "))
	})
	It("names a relative path as the absolute file it compared against", func() {
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		rel, err := filepath.Rel(wd, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.IsAbs(rel)).To(BeFalse())
		msg := failureOf(func() { Expect(map[string]uint64{"anchor": 1, "execute": 40_000}).To(afrspec.MatchGasBaseline(rel)) })
		Expect(msg).To(ContainSubstring("baseline " + path + " beyond"))
	})
	It("names the package of a module of one's own in the command", func() {
		mod := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/vault\n"), 0o644)).To(Succeed())
		pkg := filepath.Join(mod, "specs", "vault")
		Expect(os.MkdirAll(pkg, 0o755)).To(Succeed())
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		Expect(os.Chdir(pkg)).To(Succeed())
		DeferCleanup(os.Chdir, wd)

		Expect(afrspec.WriteGasBaseline("gas.json", "", map[string]uint64{"anchor": 2})).To(Succeed())
		msg := failureOf(func() { Expect(map[string]uint64{"anchor": 1}).To(afrspec.MatchGasBaseline("gas.json")) })
		Expect(msg).To(ContainSubstring("baseline " + filepath.Join(pkg, "gas.json") + " beyond"))
		Expect(msg).To(ContainSubstring("cd " + mod + " && AFR_GAS_UPDATE=1 go test ./specs/vault\n"))

		_, err = afrspec.MatchGasBaseline("none.json").Match(map[string]uint64{"x": 1})
		Expect(err).To(MatchError(ContainSubstring("no gas baseline at " + filepath.Join(pkg, "none.json"))))
		Expect(err).To(MatchError(ContainSubstring("create it with `cd " + mod + " && AFR_GAS_UPDATE=1 go test ./specs/vault` and commit it")))
		Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue())
	})
	It("allows a tolerance in gas or percent", func() {
		Expect(map[string]uint64{"anchor": 30_012, "execute": 40_000}).To(afrspec.MatchGasBaseline(path, afrspec.Tolerance{Gas: 12}))
		Expect(map[string]uint64{"anchor": 30_012, "execute": 40_000}).NotTo(afrspec.MatchGasBaseline(path, afrspec.Tolerance{Gas: 11}))
		Expect(map[string]uint64{"anchor": 30_200, "execute": 40_000}).To(afrspec.MatchGasBaseline(path, afrspec.Tolerance{Percent: 1}))
		t, err := afrspec.ParseTolerance("0.5%")
		Expect(err).NotTo(HaveOccurred())
		Expect(t).To(Equal(afrspec.Tolerance{Percent: 0.5}))
	})
	It("names AFR_GAS_TOLERANCE when its value is wrong", func() {
		GinkgoT().Setenv(afrspec.EnvGasTolerance, "fifty")
		_, err := afrspec.MatchGasBaseline(path).Match(map[string]uint64{"anchor": 30_000, "execute": 40_000})
		Expect(err).To(MatchError(And(ContainSubstring(`gas tolerance "fifty": want N or N%`), ContainSubstring("(from $AFR_GAS_TOLERANCE)"))))
	})
	It("rewrites the baseline on purpose with AFR_GAS_UPDATE=1, noting how", func() {
		GinkgoT().Setenv(afrspec.EnvGasUpdate, "1")
		Expect(map[string]uint64{"anchor": 1}).To(afrspec.MatchGasBaseline(path))
		b, err := afrspec.ReadGasBaseline(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Gas).To(Equal(map[string]uint64{"anchor": 1}))
		Expect(b.Note).To(ContainSubstring("rewrite with `AFR_GAS_UPDATE=1 go test ./specs/afrspec` from the module root"))
	})
	It("refuses an AFR_GAS_UPDATE other than 1, and names the file it cannot write", func() {
		GinkgoT().Setenv(afrspec.EnvGasUpdate, "yes")
		_, err := afrspec.MatchGasBaseline(path).Match(map[string]uint64{"anchor": 1})
		Expect(err).To(MatchError(ContainSubstring(`AFR_GAS_UPDATE="yes": set it to 1 to rewrite the gas baseline ` + path)))

		GinkgoT().Setenv(afrspec.EnvGasUpdate, "1")
		missing := filepath.Join(GinkgoT().TempDir(), "no", "such", "dir", "gas.json")
		_, err = afrspec.MatchGasBaseline(missing).Match(map[string]uint64{"anchor": 1})
		Expect(err).To(MatchError(And(ContainSubstring("AFR_GAS_UPDATE=1: writing the gas baseline"), ContainSubstring(missing))))
	})
})
