package replica

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
)

// The replica's object layout (docs/SPEC.md, "Replica"). Keys are relative
// to the replica's prefix:
//
//	MANIFEST                              the log's MANIFEST, as on disk
//	<stream>/<segment file>/<offset>      a chunk: bytes [offset, offset+size) of that segment file
//	batches.jsonl/<offset>                a chunk of the operator's batches file
//	anchors/<count>.json                  the anchors file when it held count anchors
//
// with <stream> records, payloads or epochs, <segment file> its name in the
// log directory and <offset>, <count> 16 lowercase hex digits. A file is
// its chunks from offset 0, each starting where the one before ends.
const (
	manifestKey  = "MANIFEST"
	batchesFile  = "batches.jsonl"
	anchorsFile  = "anchors.json"
	anchorsDir   = "anchors"
	maxManifest  = 64 << 10
	maxChunk     = 8 << 20 // a chunk holds whole frames: at most this, or one frame
	maxAnchorsFS = 64 << 20
)

// Streams are the log's streams, in the order they are copied: payloads
// before the records that commit to them, records before the epoch headers
// that cover them, as the recorder writes them.
var streams = [...]string{"payloads", "records", "epochs"}

var (
	chunkKey   = regexp.MustCompile(`^((?:records|payloads|epochs)/(?:records|payloads|epochs)-[0-9a-f]{16}\.seg|batches\.jsonl)/([0-9a-f]{16})$`)
	anchorsKey = regexp.MustCompile(`^anchors/([0-9a-f]{16})\.json$`)
)

func hex16(n uint64) string { return fmt.Sprintf("%016x", n) }

// chunkName is the key of the chunk of file at offset off.
func chunkName(file string, off int64) string { return file + "/" + hex16(uint64(off)) }

// anchorsName is the key of the anchors file holding n anchors.
func anchorsName(n int) string { return anchorsDir + "/" + hex16(uint64(n)) + ".json" }

// chunk is one object of a file.
type chunk struct {
	key       string
	off, size int64
}

// file is a file of the log as its replica holds it: its chunks from
// offset 0, contiguous (or, for MANIFEST and anchors.json, one object).
type file struct {
	chunks []chunk
	size   int64
}

// tree is a replica's listing read as a log directory.
type tree struct {
	files map[string]*file // by path in the log directory
	// strays are the keys that are no part of any file: chunks that do
	// not continue a file where it ends (overlapping or past a gap) and
	// keys of no known form. A replicator never writes them.
	strays []string
}

// parseTree reads a listing (in key order).
func parseTree(objs []object) *tree {
	t := &tree{files: map[string]*file{}}
	byFile := map[string][]chunk{}
	anchors := -1
	var anchorsObj object
	for _, o := range objs {
		if o.key == manifestKey {
			t.files[manifestKey] = &file{chunks: []chunk{{key: o.key, size: o.size}}, size: o.size}
			continue
		}
		if m := anchorsKey.FindStringSubmatch(o.key); m != nil {
			// The highest count is the newest: an anchors file only
			// grows. Older versions stay, part of no file.
			if n, _ := strconv.ParseUint(m[1], 16, 63); int(n) > anchors {
				anchors, anchorsObj = int(n), o
			}
			continue
		}
		m := chunkKey.FindStringSubmatch(o.key)
		if m == nil {
			t.strays = append(t.strays, o.key)
			continue
		}
		off, _ := strconv.ParseUint(m[2], 16, 63)
		byFile[m[1]] = append(byFile[m[1]], chunk{key: o.key, off: int64(off), size: o.size})
	}
	if anchors >= 0 {
		t.files[anchorsFile] = &file{chunks: []chunk{{key: anchorsObj.key, size: anchorsObj.size}}, size: anchorsObj.size}
	}
	for name, cs := range byFile {
		sort.Slice(cs, func(i, j int) bool { return cs[i].off < cs[j].off })
		f := &file{}
		for _, c := range cs {
			if c.off != f.size || c.size == 0 {
				t.strays = append(t.strays, c.key)
				continue
			}
			f.chunks = append(f.chunks, c)
			f.size += c.size
		}
		if len(f.chunks) > 0 {
			t.files[name] = f
		}
	}
	sort.Strings(t.strays)
	return t
}

// segments returns the names of the segment files of stream kind the
// replica holds, in stream order.
func (t *tree) segments(kind string) []string {
	var names []string
	for p := range t.files {
		if path.Dir(p) == kind {
			names = append(names, path.Base(p))
		}
	}
	sort.Strings(names)
	return names
}
