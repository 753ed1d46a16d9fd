package replica_test

import (
	"os"
	"testing"

	"github.com/agentflightrecorder/afr/replica/s3test"
)

// stopShared stops the server the package's tests and benchmarks share,
// when they end.
var stopShared func()

func TestMain(m *testing.M) {
	code := m.Run()
	if stopShared != nil {
		stopShared()
	}
	os.Exit(code)
}

// startShared starts the server the package's tests share.
func startShared(t testing.TB) *s3test.Server {
	s, stop, err := s3test.StartShared()
	if err != nil {
		t.Fatal(err)
	}
	stopShared = stop
	s.Bucket(t, "replicas", false)
	return s
}
