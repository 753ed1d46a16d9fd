package recorder_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Record two events, seal, and read the epoch back.
func Example() {
	dir, _ := os.MkdirTemp("", "afr-example")
	defer os.RemoveAll(dir)

	r, err := recorder.Open(dir, recorder.Options{Recorder: "ops-1", Encrypt: true})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, cmd := range []string{"ls", "make test"} {
		rc, err := r.Record(ctx, format.Event{
			Tool: "shell", Kind: format.KindToolCall,
			Payload: format.Payload{Intent: &format.Intent{Tool: "shell", Args: map[string]any{"cmd": cmd}}},
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("event %d durable in epoch %d\n", rc.Seq, rc.Epoch)
	}
	sealed, _, err := r.Seal()
	if err != nil {
		panic(err)
	}
	fmt.Printf("epoch %d sealed: %d events, root R_t to anchor is %d bytes\n", sealed.Header.Epoch, sealed.Header.Count, len(sealed.Root))
	if err := r.Close(); err != nil {
		panic(err)
	}

	// Anyone holding the log can prove an event is in the sealed epoch.
	l, _ := recorder.OpenLog(dir)
	p, _ := l.InclusionProof(1)
	root, err := p.Verify()
	fmt.Println("proof of event 1 leads to the sealed root:", err == nil && root == sealed.Root)
	// Output:
	// event 0 durable in epoch 0
	// event 1 durable in epoch 0
	// epoch 0 sealed: 2 events, root R_t to anchor is 32 bytes
	// proof of event 1 leads to the sealed root: true
}
