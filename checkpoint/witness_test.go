package checkpoint_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRealWitness runs the tests of ./witnessinterop — AFR's checkpoints
// fed to transparency-dev/witness over loopback HTTP — which are a module
// of their own (see its package doc), so that `go test ./...` from the
// repository root runs them too.
func TestRealWitness(t *testing.T) {
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = "witnessinterop"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in checkpoint/witnessinterop: %v (hint: after a change of the root module's dependencies, run go mod tidy in checkpoint/witnessinterop)\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok  \tgithub.com/agentflightrecorder/afr/checkpoint/witnessinterop") {
		t.Fatalf("go test in checkpoint/witnessinterop ran no test:\n%s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
