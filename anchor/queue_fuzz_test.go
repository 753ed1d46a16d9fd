package anchor

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/format"
)

// FuzzReadQueue: a queue file ReadQueue accepts is one its readers use
// without panicking (afr status's Window), whose anchored and pending
// entries are the epochs after the trimmed ones, one each, in order (a
// Batcher checks its batches file by these positions), that has only
// well-formed runs (each run's entries present, consecutive and in its
// state; Txs on the first only), that the anchorer writes back as a file
// read as the same queue, and that trimming keeps read back, with the same
// confirmed epochs and events. Seeded from queues as the anchorer writes
// them.
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
	q.Trimmed, q.TrimmedRoot, q.TrimmedEvents = 7, format.Digest{7}, 30
	q.Anchored[0].Epoch, q.Anchored[0].PrevRoot, q.Anchored[0].FirstSeq, q.Anchored[0].Events = 7, format.Digest{7}, 30, 32
	for i, e := range q.Pending {
		e.Epoch = 8 + uint64(i)
	}
	trimmed, err := json.MarshalIndent(q, "", " ")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(trimmed)
	head := `{"format":"afr-anchor-queue","version":3,"chain_id":1337,"contract":"0x0000000000000000000000000000000000000001","operator":"0x0000000000000000000000000000000000000002","log":"0x0000000000000000000000000000000000000000000000000000000000000003","anchored":[`
	head4 := `{"format":"afr-anchor-queue","version":4,"chain_id":1337,"trimmed":4,"trimmed_root":"0x0000000000000000000000000000000000000000000000000000000000000004","trimmed_events":9,"anchored":[`
	for _, s := range []string{
		head + `],"pending":[{"epoch":0,"state":"sent","run":3,"nonce":7,"txs":["0x02"]},{"epoch":1,"state":"sent","nonce":7},{"epoch":2,"state":"sent","nonce":7},{"epoch":3,"state":"queued"}]}`,
		head + `{"epoch":0,"run":2,"gas_used":26000},{"epoch":1,"run":2,"gas_used":26000}],"pending":[{"epoch":2,"state":"mined","run":2},{"epoch":3,"state":"mined"}]}`,
		head + `],"pending":[{"epoch":0,"state":"sent","run":3},{"epoch":1,"state":"sent"}]}`,
		head4 + `],"pending":[{"epoch":4,"state":"sent","run":3,"nonce":7,"txs":["0x02"]},{"epoch":5,"state":"sent","nonce":7},{"epoch":6,"state":"sent","nonce":7},{"epoch":7,"state":"queued"}]}`,
		head4 + `{"epoch":4,"prev_root":"0x0000000000000000000000000000000000000000000000000000000000000004","events_through":12},{"epoch":5,"events_through":15}],"pending":[]}`,
		head4 + `{"epoch":5}],"pending":[]}`,
		head + `],"trimmed":1,"pending":[{"epoch":1,"state":"queued"}]}`,
		`{"format":"afr-anchor-queue","version":2,"pending":[{"epoch":0,"state":"queued"}]}`,
		`{"format":"afr-anchor-queue","version":1,"pending":[]}`,
		`{"format":"afr-anchor-queue","version":2,"pending":[null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := parseQueue(QueueFile, data)
		if err != nil {
			return
		}
		if q.Trimmed == 0 && (q.TrimmedRoot != format.Digest{} || q.TrimmedEvents != 0) {
			t.Fatalf("accepted a summary of no trimmed epochs: %+v", q)
		}
		for i, a := range q.Anchored {
			if a.Epoch != q.Trimmed+uint64(i) {
				t.Fatalf("accepted anchored entry %d for epoch %d after %d trimmed", i, a.Epoch, q.Trimmed)
			}
		}
		for i, e := range q.Pending {
			if e.Epoch != q.Confirmed()+uint64(i) {
				t.Fatalf("accepted pending entry %d for epoch %d after %d confirmed", i, e.Epoch, q.Confirmed())
			}
		}
		for i := 0; i < len(q.Pending); i++ {
			e := q.Pending[i]
			n := max(e.Run, 1)
			if i+n > len(q.Pending) || (e.Run > 1 && e.State == StateQueued) {
				t.Fatalf("accepted a run of %d from pending entry %d of %d in state %q", e.Run, i, len(q.Pending), e.State)
			}
			for k := 1; k < n; k++ {
				if m := q.Pending[i+k]; m.Epoch != e.Epoch+uint64(k) || m.State != e.State || m.Run != 0 || len(m.Txs) != 0 {
					t.Fatalf("accepted run member %+v of %+v", *m, *e)
				}
			}
			i += n - 1
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
		if q.Version < QueueVersion {
			return // trimmed only once written as version 4
		}
		confirmed, covered, last := q.Confirmed(), q.covered(), q.lastRoot()
		q.trim(1)
		out, err = json.MarshalIndent(q, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if q2, err = parseQueue(QueueFile, out); err != nil {
			t.Fatalf("trimmed to %s, refused: %v", out, err)
		}
		if q2.Confirmed() != confirmed || q2.covered() != covered || q2.lastRoot() != last || len(q2.Anchored) > 1 {
			t.Fatalf("trimmed to %s: %d confirmed through event %d, last root %s; want %d, %d, %s", out, q2.Confirmed(), q2.covered(), q2.lastRoot(), confirmed, covered, last)
		}
	})
}
