package replica

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"sync"
	"time"
)

// FS is a replica read as the log directory it copies: an fs.FS (with
// ReadFile, ReadDir and Stat) whose files are the replica's files
// reassembled from their chunks, for recorder.OpenLogFS. It is read-only
// and reflects the listing taken when it was opened.
type FS struct {
	ctx   context.Context
	store *Store
	tree  *tree
	dirs  map[string][]string // directory → names in it, sorted

	// read holds the files read or being read: a verifier reads a stream
	// more than once, and the objects never change.
	mu   sync.Mutex
	read map[*file]*fetched
	// gets bounds the GETs in flight, for every file at once.
	gets chan struct{}
}

// fetched is a file of the replica read once: done is closed when b or
// err is set.
type fetched struct {
	done chan struct{}
	b    []byte
	err  error
}

// fetchers bounds the chunks read at once.
const fetchers = 8

// Open lists the replica and returns it as a file system. ctx bounds
// every read of it.
func Open(ctx context.Context, s *Store) (*FS, error) {
	objs, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	f := &FS{ctx: ctx, store: s, tree: parseTree(objs), dirs: map[string][]string{}, read: map[*file]*fetched{}, gets: make(chan struct{}, fetchers)}
	seen := map[string]bool{}
	for p := range f.tree.files {
		for d, name := path.Dir(p), path.Base(p); ; d, name = path.Dir(d), path.Base(d) {
			if !seen[d+"/"+name] {
				seen[d+"/"+name] = true
				f.dirs[d] = append(f.dirs[d], name)
			}
			if d == "." {
				break
			}
		}
	}
	for _, names := range f.dirs {
		sort.Strings(names)
	}
	return f, nil
}

// Strays returns the keys under the replica's prefix that are no part of
// the log: chunks that do not continue their file where it ends and keys
// of no form the layout has. A replicator writes none; their presence
// means someone else wrote to the replica.
func (f *FS) Strays() []string { return f.tree.strays }

// Open implements fs.FS.
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if fl, ok := f.tree.files[name]; ok {
		return &openFile{fs: f, name: name, file: fl}, nil
	}
	if names, ok := f.dirs[name]; ok || name == "." {
		return &openDir{fs: f, name: name, names: names}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat implements fs.StatFS.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	fl, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	return fl.Stat()
}

// ReadDir implements fs.ReadDirFS.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	fl, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	d, ok := fl.(*openDir)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fmt.Errorf("not a directory")}
	}
	return d.ReadDir(-1)
}

// ReadFile implements fs.ReadFileFS: it reads the file's chunks, several
// at once, and checks each has the size the listing gave.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	fl, ok := f.tree.files[name]
	if !ok {
		if _, dir := f.dirs[name]; dir {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("is a directory")}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	b, err := f.contents(fl)
	return bytes.Clone(b), err
}

// Prefetch starts reading every file of the replica in the background,
// the three streams' chunks side by side, so that a reader of the whole
// log (a verifier, a query) finds each file read or on its way when it
// comes to it instead of waiting for one GET after another. The files are
// kept in memory, as every file read is. It returns at once.
func (f *FS) Prefetch() {
	// In the order a verifier reads them: the small files, the epoch
	// headers, the records, then the payloads.
	rank := map[string]int{"epochs": 1, "records": 2, "payloads": 3}
	names := make([]string, 0, len(f.tree.files))
	for name := range f.tree.files {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[path.Dir(names[i])], rank[path.Dir(names[j])]
		return ri < rj || (ri == rj && names[i] < names[j])
	})
	for _, name := range names {
		f.start(f.tree.files[name])
	}
}

// contents returns the bytes of fl, read once.
func (f *FS) contents(fl *file) ([]byte, error) {
	r := f.start(fl)
	<-r.done
	return r.b, r.err
}

// start starts reading fl unless it is read or being read.
func (f *FS) start(fl *file) *fetched {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.read[fl]; ok {
		return r
	}
	r := &fetched{done: make(chan struct{})}
	f.read[fl] = r
	go func() {
		defer close(r.done)
		r.b, r.err = f.fetch(fl)
	}()
	return r
}

// fetch reads the chunks of fl, each straight into its place.
func (f *FS) fetch(fl *file) ([]byte, error) {
	out := make([]byte, fl.size)
	errs := make([]error, len(fl.chunks))
	var wg sync.WaitGroup
	var at int64
	for i, c := range fl.chunks {
		part := out[at : at+c.size]
		at += c.size
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.gets <- struct{}{}
			defer func() { <-f.gets }()
			errs[i] = f.store.read(f.ctx, c.key, part)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// openFile is a file of the replica, read at its first Read.
type openFile struct {
	fs   *FS
	name string
	file *file
	r    *bytes.Reader
}

func (o *openFile) Stat() (fs.FileInfo, error) {
	return info{name: path.Base(o.name), size: o.file.size}, nil
}

func (o *openFile) Read(p []byte) (int, error) {
	if o.r == nil {
		b, err := o.fs.contents(o.file)
		if err != nil {
			return 0, err
		}
		o.r = bytes.NewReader(b)
	}
	return o.r.Read(p)
}

func (o *openFile) Close() error { return nil }

// openDir is a directory of the replica: a path some file is under.
type openDir struct {
	fs    *FS
	name  string
	names []string
	at    int
}

func (d *openDir) Stat() (fs.FileInfo, error) {
	return info{name: path.Base(d.name), dir: true}, nil
}

func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fmt.Errorf("is a directory")}
}

func (d *openDir) Close() error { return nil }

func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.names[d.at:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.at += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, name := range rest {
		p := path.Join(d.name, name)
		fl, isFile := d.fs.tree.files[p]
		in := info{name: name, dir: !isFile}
		if isFile {
			in.size = fl.size
		}
		out[i] = fs.FileInfoToDirEntry(in)
	}
	return out, nil
}

// info is the fs.FileInfo of a replica's file or directory.
type info struct {
	name string
	size int64
	dir  bool
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.size }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }

var _ interface {
	fs.ReadFileFS
	fs.ReadDirFS
	fs.StatFS
} = (*FS)(nil)
