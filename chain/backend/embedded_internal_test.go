package backend

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestStartEmbeddedNotLinked: in a program that does not import package
// chain/backend/embedded, Start(KindEmbedded) says which import links it.
// (This test binary links it through the external tests; the registration
// is set aside for the test.)
func TestStartEmbeddedNotLinked(t *testing.T) {
	registered := startEmbedded
	startEmbedded = nil
	t.Cleanup(func() { startEmbedded = registered })
	b, err := Start(context.Background(), KindEmbedded, Options{})
	if b != nil || !errors.Is(err, ErrEmbeddedNotLinked) || !strings.Contains(err.Error(), `import _ "github.com/agentflightrecorder/afr/chain/backend/embedded"`) {
		t.Fatalf("Start(embedded) without the import = %v, %v; want ErrEmbeddedNotLinked naming the import", b, err)
	}
}
