package replica_test

import (
	"os"
	"testing"

	"github.com/agentflightrecorder/afr/replica/s3test"
)

// sharedT is the testing.TB the shared server is started for: it is
// stopped when the package's tests end.
var stopShared func()

func TestMain(m *testing.M) {
	code := m.Run()
	if stopShared != nil {
		stopShared()
	}
	os.Exit(code)
}

// startShared starts the server the package's tests share.
func startShared(t *testing.T) *s3test.Server {
	s, stop, err := s3test.StartShared()
	if err != nil {
		t.Fatal(err)
	}
	stopShared = stop
	s.Bucket(t, "replicas", false)
	return s
}
