package segment

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

func writeFrames(t *testing.T, dir string, n int, maxSize int64) [][]byte {
	t.Helper()
	w, _, err := Open(dir, "records", maxSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for i := 0; i < n; i++ {
		d := bytes.Repeat([]byte{byte(i + 1)}, 10+i)
		if _, err := w.Append(d); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, d)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return frames
}

func readFrames(t *testing.T, dir string) ([][]byte, []Repair) {
	t.Helper()
	var got [][]byte
	w, reps, err := Open(dir, "records", 1<<20, func(f Frame) error {
		if f.Index != uint64(len(got)) {
			return fmt.Errorf("frame index %d, want %d", f.Index, len(got))
		}
		got = append(got, f.Data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.Next() != uint64(len(got)) {
		t.Fatalf("Next() = %d after %d frames", w.Next(), len(got))
	}
	w.Close()
	return got, reps
}

func TestRoundTripAndRotation(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 50, 200) // forces many segments
	files, _ := List(dir, "records")
	if len(files) < 5 {
		t.Fatalf("%d segment files, want rotation", len(files))
	}
	got, reps := readFrames(t, dir)
	if len(reps) != 0 || len(got) != len(want) {
		t.Fatalf("got %d frames, %d repairs", len(got), len(reps))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}

// Cutting the last segment at every byte inside its final frame must lose
// exactly that frame and nothing before it.
func TestTornTailEveryOffset(t *testing.T) {
	src := t.TempDir()
	want := writeFrames(t, src, 5, 1<<20)
	name := filepath.Join(src, "records-0000000000000000.seg")
	full, _ := os.ReadFile(name)
	lastStart := len(full) - FrameOverhead - len(want[4])
	for cut := lastStart; cut < len(full); cut++ {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, filepath.Base(name)), full[:cut], 0o600)
		got, reps := readFrames(t, dir)
		if len(got) != 4 {
			t.Fatalf("cut at %d: %d frames, want 4", cut, len(got))
		}
		if cut > lastStart && (len(reps) != 1 || reps[0].CutBytes != int64(cut-lastStart)) {
			t.Fatalf("cut at %d: repairs %+v", cut, reps)
		}
		// Appending after the repair continues the stream.
		w, _, err := Open(dir, "records", 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Append([]byte("next"))
		w.Close()
		got, _ = readFrames(t, dir)
		if len(got) != 5 || string(got[4]) != "next" {
			t.Fatalf("cut at %d: append after repair: %d frames", cut, len(got))
		}
	}
}

func TestZeroFilledTailIsTorn(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 3, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	f, _ := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(make([]byte, 4096))
	f.Close()
	got, reps := readFrames(t, dir)
	if len(got) != 3 || len(reps) != 1 {
		t.Fatalf("%d frames, %d repairs", len(got), len(reps))
	}
}

func TestCorruptionIsNotRepaired(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 5, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, _ := os.ReadFile(name)
	b[HeaderSize+FrameOverhead+2] ^= 0xff // inside frame 0
	os.WriteFile(name, b, 0o600)
	_, _, err := Open(dir, "records", 1<<20, nil)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want CorruptError", err)
	}
	after, _ := os.ReadFile(name)
	if !bytes.Equal(after, b) {
		t.Fatal("Open modified a corrupt segment")
	}
}

func TestNewerVersionRefused(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 1, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, _ := os.ReadFile(name)
	b[6] = Version + 1
	os.WriteFile(name, b, 0o600)
	if _, _, err := Open(dir, "records", 1<<20, nil); !errors.Is(err, format.ErrNewerVersion) {
		t.Fatalf("got %v, want ErrNewerVersion", err)
	}
}

func TestWrongStreamRefused(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 1, 1<<20)
	os.Rename(filepath.Join(dir, "records-0000000000000000.seg"), filepath.Join(dir, "payloads-0000000000000000.seg"))
	var ce *CorruptError
	if _, _, err := Open(dir, "payloads", 1<<20, nil); !errors.As(err, &ce) {
		t.Fatalf("got %v, want CorruptError", err)
	}
}

func TestTruncate(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 30, 150)
	w, _, err := Open(dir, "records", 150, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Truncate(7); err != nil {
		t.Fatal(err)
	}
	w.Append([]byte("after"))
	w.Close()
	got, _ := readFrames(t, dir)
	if len(got) != 8 || string(got[7]) != "after" || got[6][0] != 7 {
		t.Fatalf("after truncate: %d frames", len(got))
	}
}

func TestReadAllReportsTornTail(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 3, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, _ := os.ReadFile(name)
	os.WriteFile(name, b[:len(b)-3], 0o600)
	n := 0
	err := ReadAll(dir, "records", func(Frame) error { n++; return nil })
	var tt *TornTailError
	if !errors.As(err, &tt) || n != 2 {
		t.Fatalf("got %v after %d frames, want TornTailError after 2", err, n)
	}
	if b2, _ := os.ReadFile(name); len(b2) != len(b)-3 {
		t.Fatal("ReadAll modified the file")
	}
}

// Scan reports damage with the exported error types: a torn final frame as
// a *TornTailError at the offset of that frame, damage followed by more data
// as a *CorruptError.
func TestScanErrorTypes(t *testing.T) {
	dir := t.TempDir()
	want := writeFrames(t, dir, 3, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	last := int64(len(b) - FrameOverhead - len(want[2]))
	torn := b[:len(b)-3]
	end, err := Scan(bytes.NewReader(torn), int64(len(torn)), name, "records", 0, func(Frame) error { return nil })
	var tt *TornTailError
	if !errors.As(err, &tt) || end != last || tt.Offset != last || tt.File != name {
		t.Fatalf("torn tail: got end %d, %#v, want a *TornTailError at offset %d", end, err, last)
	}
	bad := bytes.Clone(b)
	bad[HeaderSize+FrameOverhead] ^= 1 // first frame's data: its checksum fails, more frames follow
	_, err = Scan(bytes.NewReader(bad), int64(len(bad)), name, "records", 0, func(Frame) error { return nil })
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Offset != HeaderSize {
		t.Fatalf("corrupt frame: got %#v, want a *CorruptError at offset %d", err, HeaderSize)
	}
}

// FuzzScan feeds arbitrary bytes to the segment reader: it must never panic
// or allocate past the input, and whatever it accepts must re-encode to the
// same bytes.
func FuzzScan(f *testing.F) {
	dir := f.TempDir()
	w, _, _ := Open(dir, "records", 1<<20, nil)
	w.Append([]byte("hello"))
	w.Append(bytes.Repeat([]byte{7}, 300))
	w.Close()
	seed, _ := os.ReadFile(filepath.Join(dir, "records-0000000000000000.seg"))
	f.Add(seed)
	f.Add(seed[:len(seed)-4])
	f.Add(seed[:HeaderSize])
	f.Add([]byte("AFRSEG"))
	// The segment vectors (valid and damaged files).
	vectors, _ := filepath.Glob("../../fixtures/vectors/segment/*.json")
	for _, name := range vectors {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var v struct{ File string }
		json.Unmarshal(b, &v)
		raw, err := hex.DecodeString(v.File)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	if len(vectors) == 0 {
		f.Fatal("no segment vectors")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var frames [][]byte
		end, err := Scan(bytes.NewReader(b), int64(len(b)), "fuzz", "records", 0, func(fr Frame) error {
			frames = append(frames, fr.Data)
			return nil
		})
		if end > int64(len(b)) {
			t.Fatalf("end %d past input %d", end, len(b))
		}
		if err != nil {
			return
		}
		// Accepted input: rebuild it from the frames.
		d := t.TempDir()
		w, _, err := Open(d, "records", 1<<30, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, fr := range frames {
			if _, err := w.Append(fr); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		again, _ := os.ReadFile(filepath.Join(d, "records-0000000000000000.seg"))
		if !bytes.Equal(again, b) {
			t.Fatalf("accepted segment does not re-encode identically")
		}
	})
}

// A crash while a segment was being started leaves its header torn (empty,
// short or zero-filled); Open starts that segment again and later appends
// land after a proper header.
func TestTornSegmentHeader(t *testing.T) {
	for _, tail := range [][]byte{{}, []byte("AFRS"), make([]byte, HeaderSize), make([]byte, 4096)} {
		dir := t.TempDir()
		writeFrames(t, dir, 3, 1<<20)
		os.WriteFile(filepath.Join(dir, "records-0000000000000003.seg"), tail, 0o600)
		got, reps := readFrames(t, dir)
		if len(got) != 3 || len(reps) != 1 {
			t.Fatalf("tail %d bytes: %d frames, %d repairs", len(tail), len(got), len(reps))
		}
		w, _, err := Open(dir, "records", 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Append([]byte("after the crash"))
		w.Close()
		got, reps = readFrames(t, dir)
		if len(got) != 4 || string(got[3]) != "after the crash" || len(reps) != 0 {
			t.Fatalf("tail %d bytes: after reopen %d frames, repairs %v", len(tail), len(got), reps)
		}
	}
}

// Damage before the end of the last segment is refused by Open and cut,
// with a report, by OpenCuttingCorruptTail.
func TestCutCorruptTailOnRequest(t *testing.T) {
	dir := t.TempDir()
	writeFrames(t, dir, 5, 1<<20)
	name := filepath.Join(dir, "records-0000000000000000.seg")
	b, _ := os.ReadFile(name)
	third := HeaderSize + 2*FrameOverhead + 10 + 11 // start of frame 2
	b[third+FrameOverhead] ^= 0xff
	os.WriteFile(name, b, 0o600)
	if _, _, err := Open(dir, "records", 1<<20, nil); err == nil {
		t.Fatal("Open accepted a corrupt frame before the end")
	}
	var n int
	w, reps, err := OpenCuttingCorruptTail(dir, "records", 1<<20, func(Frame) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if n != 2 || len(reps) != 1 || reps[0].Offset != int64(third) {
		t.Fatalf("%d frames kept, repairs %+v", n, reps)
	}
	if got, _ := readFrames(t, dir); len(got) != 2 {
		t.Fatalf("%d frames after the cut", len(got))
	}
}

// Under a durable mark, the reader and the writer agree: ReadAllDurable
// visits the frames ReadAll visits (the mark changes how damage is
// classified, never what is read), calls torn only damage a frame at or
// past the mark (or a header's), and OpenDurable opens exactly the streams
// it reads as intact or torn, after the frames it read.
func FuzzReadAllDurable(f *testing.F) {
	vectors, _ := filepath.Glob("../../fixtures/vectors/segment/*.json")
	for _, name := range vectors {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var v struct {
			File    string
			Durable uint64
		}
		json.Unmarshal(b, &v)
		raw, err := hex.DecodeString(v.File)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, v.Durable)
	}
	if len(vectors) == 0 {
		f.Fatal("no segment vectors")
	}
	f.Fuzz(func(t *testing.T, b []byte, durable uint64) {
		dir := t.TempDir()
		name := filepath.Join(dir, "records-0000000000000000.seg")
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var plain, marked int
		ReadAll(dir, "records", func(Frame) error { plain++; return nil })
		err := ReadAllDurable(dir, "records", durable, func(Frame) error { marked++; return nil })
		if plain != marked {
			t.Fatalf("ReadAll read %d frames, ReadAllDurable %d", plain, marked)
		}
		var torn *TornTailError
		var corrupt *CorruptError
		var version *VersionError
		switch {
		case err == nil:
		case errors.As(err, &torn):
			if torn.Index < durable {
				t.Fatalf("torn below the mark %d: %v", durable, err)
			}
		case errors.As(err, &corrupt):
			if corrupt.Index >= durable && corrupt.Offset >= HeaderSize {
				t.Fatalf("frame damage at or past the mark %d called corruption: %v", durable, err)
			}
		case errors.As(err, &version):
		default:
			t.Fatalf("unclassified damage: %v", err)
		}
		w, _, oerr := OpenDurable(dir, "records", 1<<30, durable, nil)
		if (oerr == nil) != (err == nil || torn != nil) {
			t.Fatalf("reader: %v; writer: %v", err, oerr)
		}
		if oerr == nil {
			if w.Next() != uint64(marked) {
				t.Fatalf("writer at frame %d, reader read %d", w.Next(), marked)
			}
			w.Close()
		}
	})
}
