package anchor

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// FuzzReadQueue: a queue file ReadQueue accepts is one its readers use
// without panicking (afr status's Window), and that the anchorer writes
// back as a file read as the same queue. Seeded from a queue with an
// anchored, a sent and a queued entry, as the anchorer writes it.
func FuzzReadQueue(f *testing.F) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	q := Queue{Format: QueueFormat, Version: QueueVersion, ChainID: 1337,
		Anchored: []Anchored{{Epoch: 0, FirstSeq: 0, Count: 2, Events: 2, Block: 9, Submissions: 1, Sealed: now, Confirmed: now}},
		Pending: []*Entry{
			{Epoch: 1, FirstSeq: 2, Count: 2, Sealed: now, Queued: now, State: StateSent, Nonce: 3, Txs: []hexutil.Bytes{{1, 2}}, FirstSent: now},
			{Epoch: 2, FirstSeq: 4, Count: 1, Sealed: now, Queued: now, State: StateQueued},
		}}
	seed, err := json.MarshalIndent(q, "", " ")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"afr-anchor-queue","version":1,"pending":[]}`))
	f.Add([]byte(`{"format":"afr-anchor-queue","version":2,"pending":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := parseQueue(QueueFile, data)
		if err != nil {
			return
		}
		q.Window(0, now)
		out, err := json.MarshalIndent(q, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		q2, err := parseQueue(QueueFile, out)
		if err != nil {
			t.Fatalf("%s, written back as %s, is refused: %v", data, out, err)
		}
		if again, _ := json.MarshalIndent(q2, "", " "); !bytes.Equal(again, out) {
			t.Fatalf("%s read back as %s", out, again)
		}
	})
}
