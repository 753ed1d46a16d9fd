package anchor_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/anchor"
)

// FuzzReadQueue reads arbitrary queue files: never a panic, and a queue it
// accepts has only well-formed runs (each run's entries present, consecutive
// and in its state; Txs on the first only).
func FuzzReadQueue(f *testing.F) {
	head := `{"format":"afr-anchor-queue","version":3,"chain_id":1337,"contract":"0x0000000000000000000000000000000000000001","operator":"0x0000000000000000000000000000000000000002","log":"0x0000000000000000000000000000000000000000000000000000000000000003","anchored":[`
	f.Add([]byte(head + `],"pending":[{"epoch":4,"state":"sent","run":3,"nonce":7,"txs":["0x02"]},{"epoch":5,"state":"sent","nonce":7},{"epoch":6,"state":"sent","nonce":7},{"epoch":7,"state":"queued"}]}`))
	f.Add([]byte(head + `{"epoch":0,"run":2,"gas_used":26000},{"epoch":1,"run":2,"gas_used":26000}],"pending":[{"epoch":2,"state":"mined","run":2},{"epoch":3,"state":"mined"}]}`))
	f.Add([]byte(head + `],"pending":[{"epoch":4,"state":"sent","run":3},{"epoch":5,"state":"sent"}]}`))
	f.Add([]byte(`{"format":"afr-anchor-queue","version":2,"pending":[{"epoch":0,"state":"queued"}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, anchor.QueueFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		q, err := anchor.ReadQueue(dir)
		if err != nil {
			return
		}
		for i := 0; i < len(q.Pending); i++ {
			e := q.Pending[i]
			n := max(e.Run, 1)
			if i+n > len(q.Pending) || (e.Run > 1 && e.State == anchor.StateQueued) {
				t.Fatalf("accepted a run of %d from pending entry %d of %d in state %q", e.Run, i, len(q.Pending), e.State)
			}
			for k := 1; k < n; k++ {
				if m := q.Pending[i+k]; m.Epoch != e.Epoch+uint64(k) || m.State != e.State || m.Run != 0 || len(m.Txs) != 0 {
					t.Fatalf("accepted run member %+v of %+v", *m, *e)
				}
			}
			i += n - 1
		}
	})
}
