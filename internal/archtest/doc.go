// Package archtest holds the test that keeps docs/ARCHITECTURE.md true: the
// package dependency picture there must be exactly what the packages
// import, and the light verifier must not pull in an Ethereum node.
package archtest
