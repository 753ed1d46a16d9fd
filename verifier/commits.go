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
	mem     []byte   // the entries after those in the file
	f       *os.File // nil until the first spill
	spilled uint64   // entries in the file
	// win caches one window of the file for get: the payloads pass reads
	// in order.
	win    []byte
	winOff uint64 // first entry in win
}

const (
	commitSize = 32 + 2  // commitment (a format.Digest), version, decoded
	commitWin  = 1 << 14 // entries per window read back (544 KiB)
)

// spillAt is how many entries are kept in memory before a spill (34 MiB;
// tests lower it).
var spillAt = 1 << 20

func (c *commits) add(payload format.Digest, version uint8, ok bool) {
	flag := byte(0)
	if ok {
		flag = 1
	}
	c.mem = append(append(c.mem, payload[:]...), version, flag)
	if len(c.mem) >= spillAt*commitSize {
		c.spill()
	}
}

// spill moves the entries in memory to the file; when there is no file to
// be had, they stay.
func (c *commits) spill() {
	if c.f == nil {
		f, err := os.CreateTemp("", "afr-verify-*")
		if err != nil {
			return
		}
		os.Remove(f.Name()) // open, it stays readable; gone when closed
		c.f = f
	}
	if _, err := c.f.WriteAt(c.mem, int64(c.spilled)*commitSize); err != nil {
		return // kept in memory: the next spill tries again
	}
	c.spilled += uint64(len(c.mem) / commitSize)
	c.mem = c.mem[:0]
}

// get returns entry i (below the number added). A read of the file that
// fails is an error of the verification, not of the log.
func (c *commits) get(i uint64) (payload format.Digest, version uint8, ok bool, err error) {
	var e []byte
	if i >= c.spilled {
		e = c.mem[(i-c.spilled)*commitSize:]
	} else {
		if c.win == nil || i < c.winOff || i >= c.winOff+uint64(len(c.win)/commitSize) {
			c.winOff = i - i%commitWin
			n := min(commitWin, c.spilled-c.winOff)
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
