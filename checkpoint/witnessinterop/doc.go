// Package witnessinterop tests AFR's checkpoints against a real C2SP
// tlog-witness: github.com/transparency-dev/witness, its witness core with
// in-memory persistence, served over loopback HTTP by its own
// add-checkpoint handler. It is a module of its own because the witness
// requires pre-release versions of transparency-dev/formats and
// transparency-dev/merkle and newer Prometheus client libraries than AFR's
// module pins (go-ethereum's); here they are resolved for this test alone.
// The checkpoint package's TestRealWitness runs these tests.
package witnessinterop
