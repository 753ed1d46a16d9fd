// Package archtest holds the tests that keep the architecture a rule: the
// layers of layers_test.go (no package imports one of a higher layer),
// the imports and dependencies refused outright (no test framework in the
// afr binary, no go-ethereum in the formats, the verifier and the writers),
// and that the light verifier does not pull in an Ethereum node.
package archtest
