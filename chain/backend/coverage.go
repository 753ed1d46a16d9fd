package backend

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
)

// CoverageBits is the number of bits of Coverage's edge map (64 Ki
// edges, 8 KiB), as AFL's map: enough that the branches of a few
// contracts rarely share a bit.
const CoverageBits = 1 << 16

// Coverage is the branch coverage of the code a chain executed: every
// edge (the contract whose code ran, the pc of a JUMP or JUMPI, the pc
// execution went on at) is hashed into a fixed map of CoverageBits bits,
// as AFL and Medusa do; Edges counts the bits set. Straight-line code
// between branches is implied by its edges, so only the opcode after a
// jump costs a map update. The code is named by the address it was
// loaded from (a DELEGATECALL's code address, not the caller's).
//
// A Coverage collects from one chain at a time and is not safe for
// concurrent use; the chain runs its hooks under its own lock.
type Coverage struct {
	bits  [CoverageBits / 64]uint64
	edges int
	// frames are the call frames being executed, innermost last.
	frames []frame
	hooks  *tracing.Hooks
}

// frame is the code a call frame runs, hashed, and its last jump.
type frame struct {
	code   uint64
	jumpPC uint64
	jumped bool
}

// NewCoverage is an empty Coverage.
func NewCoverage() *Coverage {
	c := &Coverage{}
	c.hooks = &tracing.Hooks{OnEnter: c.onEnter, OnExit: c.onExit, OnOpcode: c.onOpcode}
	return c
}

// Edges is the number of distinct edges seen (bits of the map set).
func (c *Coverage) Edges() int { return c.edges }

// Hooks are the go-ethereum tracing hooks that collect into c.
func (c *Coverage) Hooks() *tracing.Hooks { return c.hooks }

func (c *Coverage) onEnter(_ int, _ byte, _ common.Address, to common.Address, _ []byte, _ uint64, _ *big.Int) {
	c.frames = append(c.frames, frame{code: binary.LittleEndian.Uint64(to[:8]) ^ binary.LittleEndian.Uint64(to[12:])})
	c.mark(c.frames[len(c.frames)-1].code) // the entry: code reached at all
}

func (c *Coverage) onExit(int, []byte, uint64, error, bool) {
	if n := len(c.frames); n > 0 {
		c.frames = c.frames[:n-1]
	}
}

func (c *Coverage) onOpcode(pc uint64, op byte, _ uint64, _ uint64, _ tracing.OpContext, _ []byte, _ int, _ error) {
	n := len(c.frames)
	if n == 0 {
		return
	}
	f := &c.frames[n-1]
	if f.jumped {
		c.mark(f.code ^ (f.jumpPC * 0x9E3779B97F4A7C15) ^ (pc * 0xC2B2AE3D27D4EB4F))
	}
	f.jumped = vm.OpCode(op) == vm.JUMP || vm.OpCode(op) == vm.JUMPI
	f.jumpPC = pc
}

// mark sets the bit of edge hash h.
func (c *Coverage) mark(h uint64) {
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	i := (h >> 32) % CoverageBits
	if w, b := i/64, uint64(1)<<(i%64); c.bits[w]&b == 0 {
		c.bits[w] |= b
		c.edges++
	}
}

// Coverer is a Backend that collects the coverage of what it executes:
// the in-process chain. Other backends (a node, anvil) run their EVM out
// of reach and do not offer it.
type Coverer interface {
	// Cover collects into cov the coverage of every transaction the chain
	// executes and every eth_call it answers (a simulated call too) until
	// Cover(nil); gas estimation is not covered (it runs the same code).
	Cover(cov *Coverage)
}

// Cover implements Coverer.
func (c *InProcess) Cover(cov *Coverage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = nil
	if cov != nil {
		cov.frames = cov.frames[:0]
		c.hooks = cov.Hooks()
	}
}
