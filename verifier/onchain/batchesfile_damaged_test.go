package onchain_test

import (
	"os"
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
)

// Every batch's contents are on chain (anchorBatch), so the batches file
// is not needed at all; one damaged line in it (a mirror's corruption, or
// an operator that wants no verdict rather than an incomplete one) still
// turns the verification into an error (afr verify exits 1) instead of a
// verdict. Lines that are not the anchored root of a needed batch should
// be ignored (or the batch treated as withheld), not fatal.
//
// (Found by an outside review: it was an error, exit 1.)
func TestDamagedBatchesFileIsNoContents(t *testing.T) {
	w := newBatchWorld(t)
	a := w.eps[0]
	o := w.operator()
	o.batch(true, a[0], a[1])
	o.batch(true, a[2])
	expect(t, "clean", o.verify(0, nil), verifier.Verified, "")
	if err := os.WriteFile(o.file, []byte("{\"batch\": 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := verifier.VerifyLog(w.ctx, w.logs[0], o.source(0), verifier.Options{}); err != nil {
		t.Fatalf("a batches file not needed for any batch makes the verification fail: %v", err)
	}
}
