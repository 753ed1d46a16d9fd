package verifier

import (
	"os"

	"github.com/agentflightrecorder/afr/format"
)

// commits keeps what each record commits its payload to — the commitment,
// the record's format version, and whether it decoded — from the records
// pass to the payloads pass, in memory up to spillAt records and beyond
// that in a temporary file (unlinked at once where the system allows), so
// that a long log costs disk, not memory. Where no file can be made (the
// WebAssembly verifier) it stays in memory.
type commits struct {
	mem     [][]byte // the entries after those in the file, in chunks of commitChunk
	free    [][]byte // chunks written to the file, for reuse
	f       *os.File // nil until the first spill
	spilled uint64   // entries in the file
	// win caches one window of the file for get: the payloads pass reads
	// in order.
	win    []byte
	winOff uint64 // first entry in win
}

const commitSize = 32 + 2 // commitment (a format.Digest), version, decoded

var (
	// commitChunk is the entries per chunk in memory, and per window read
	// back (544 KiB); spillAt how many are kept in memory before a spill
	// (16 chunks, 8.5 MiB). Tests lower them.
	commitChunk = 1 << 14
	spillAt     = 1 << 18
)

func (c *commits) add(payload format.Digest, version uint8, ok bool) {
	n := len(c.mem)
	if n == 0 || len(c.mem[n-1]) == cap(c.mem[n-1]) {
		if n*commitChunk >= spillAt && c.spill() {
			n = 0
		}
		var chunk []byte
		if k := len(c.free); k > 0 {
			chunk, c.free = c.free[k-1][:0], c.free[:k-1]
		} else {
			chunk = make([]byte, 0, commitChunk*commitSize)
		}
		c.mem = append(c.mem, chunk)
		n++
	}
	flag := byte(0)
	if ok {
		flag = 1
	}
	c.mem[n-1] = append(append(c.mem[n-1], payload[:]...), version, flag)
}

// spill moves the entries in memory, whole chunks, to the file, and
// reports whether it did; when there is no file to be had, they stay.
func (c *commits) spill() bool {
	if c.f == nil {
		f, err := os.CreateTemp("", "afr-verify-*")
		if err != nil {
			return false
		}
		os.Remove(f.Name()) // open, it stays readable; gone when closed
		c.f = f
	}
	off := int64(c.spilled) * commitSize
	for _, chunk := range c.mem {
		if _, err := c.f.WriteAt(chunk, off); err != nil {
			return false // kept in memory: the next spill writes them again
		}
		off += int64(len(chunk))
	}
	c.spilled += uint64(len(c.mem) * commitChunk)
	c.free = append(c.free, c.mem...)
	c.mem = c.mem[:0]
	return true
}

// get returns entry i (below the number added). A read of the file that
// fails is an error of the verification, not of the log.
func (c *commits) get(i uint64) (payload format.Digest, version uint8, ok bool, err error) {
	var e []byte
	if i >= c.spilled {
		k := i - c.spilled
		e = c.mem[k/uint64(commitChunk)][k%uint64(commitChunk)*commitSize:]
	} else {
		if c.win == nil || i < c.winOff || i >= c.winOff+uint64(len(c.win)/commitSize) {
			c.winOff = i - i%uint64(commitChunk)
			n := min(uint64(commitChunk), c.spilled-c.winOff)
			c.win = c.win[:cap(c.win)]
			if uint64(len(c.win)) < n*commitSize {
				c.win = make([]byte, n*commitSize)
			}
			c.win = c.win[:n*commitSize]
			if _, err := c.f.ReadAt(c.win, int64(c.winOff)*commitSize); err != nil {
				c.win = nil
				return payload, 0, false, err
			}
		}
		e = c.win[(i-c.winOff)*commitSize:]
	}
	copy(payload[:], e)
	return payload, e[32], e[33] == 1, nil
}

// close removes the file.
func (c *commits) close() {
	if c.f != nil {
		c.f.Close()
	}
}
