package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/glint-search/glint/internal/durable"
)

// A whole-DB snapshot (doc.go, "Replication") is a stream of frames:
//
//	header: "GLINTSNP" <format version:4> <applied index:8> <crc32c of the 20 bytes before:4>
//	frame:  <kind:1> <length:4> <crc32c of kind, length and payload:4> <payload:length>
//
// A 'B' (batch) frame holds key-value pairs, each <uvarint key length> <key>
// <uvarint value length> <value>, keys ascending over the whole stream. The
// last frame is 'E' (end), whose payload is <pairs:8> <batch frames:8>, and
// nothing follows it. Integers are big-endian.
const (
	snapMagic   = "GLINTSNP"
	snapVersion = 1
	snapHeader  = len(snapMagic) + 4 + 8 + 4

	frameBatch = 'B'
	frameEnd   = 'E'
	frameHead  = 1 + 4 + 4

	snapBatchBytes = 1 << 20   // a batch frame is cut after this much
	snapMaxFrame   = 256 << 20 // larger frames are refused (badger's values are far smaller)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SnapshotError is a snapshot stream that cannot be read: cut short,
// damaged, or of another format. Offset is where in the stream.
type SnapshotError struct {
	Offset int64
	Msg    string
}

func (e *SnapshotError) Error() string {
	return fmt.Sprintf("index: snapshot stream at byte %d: %s", e.Offset, e.Msg)
}

// streams counts the snapshots being streamed from a DB. While one runs, the
// data of dropped and truncated tables stays (badger's DropPrefix removes
// keys under a reading transaction's feet); the last one to end drops it.
type streams struct {
	mu      sync.Mutex
	n       int
	closed  bool
	closing chan struct{} // closed by close: running streams stop
	wg      sync.WaitGroup
	pending [][]byte // key prefixes to drop when no stream runs
}

// begin registers a stream. It returns the channel that Close closes.
func (s *streams) begin() (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.closing == nil {
		s.closing = make(chan struct{})
	}
	s.n++
	s.wg.Add(1)
	return s.closing, nil
}

// close stops running streams, waits for them, and refuses new ones.
func (s *streams) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		if s.closing != nil {
			close(s.closing)
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// endStream ends a stream that begin registered; the last one drops the
// data that DDL left meanwhile.
func (db *DB) endStream() {
	s := &db.streams
	defer s.wg.Done()
	s.mu.Lock()
	s.n--
	var drop [][]byte
	if s.n == 0 {
		drop, s.pending = s.pending, nil
	}
	s.mu.Unlock()
	if len(drop) == 0 {
		return
	}
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if db.closed {
		return // the next Open removes it
	}
	if err := db.dropPrefix(drop...); err != nil {
		db.logf("removing the data of dropped tables after a snapshot: %v (the next start removes it)", err)
	}
}

// dropData removes the keys of a table that DDL dropped, now or, while a
// snapshot streams, when the last one ends. The caller holds db.wmu
// exclusively and has committed the catalog change that made them garbage:
// a stream that starts later does not read the table.
func (db *DB) dropData(prefix []byte) error {
	s := &db.streams
	s.mu.Lock()
	if s.n > 0 {
		s.pending = append(s.pending, prefix)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return db.dropPrefix(prefix)
}

// StreamTo writes a snapshot of the whole DB to w, a consistent view at
// the applied index it returns (Applied when it began; 0 without
// replication). Writes go on meanwhile, unblocked: the view is one badger
// read transaction. Keys that readers do not see (a statement's segment
// being staged, the data of a dropped table, a merged segment) may be in
// the view; the Open after Restore removes them. Close stops a running
// StreamTo (ErrClosed) and waits for it, which a write to w that blocks
// holds up: give w a deadline. ctx stops it too.
func (db *DB) StreamTo(ctx context.Context, w io.Writer) (uint64, error) {
	closing, err := db.streams.begin()
	if err != nil {
		return 0, err
	}
	defer db.endStream()
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	var applied uint64
	if item, err := txn.Get(keyApplied); err == nil {
		if err := item.Value(func(v []byte) error {
			if len(v) != 8 {
				return fmt.Errorf("%w: applied index of %d bytes", errCorrupt, len(v))
			}
			applied = binary.BigEndian.Uint64(v)
			return nil
		}); err != nil {
			return 0, err
		}
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return 0, fmt.Errorf("index: snapshot: %w", dbErr(err))
	}
	sw := newSnapWriter(w)
	if err := sw.header(applied); err != nil {
		return 0, fmt.Errorf("index: snapshot: %w", err)
	}
	sw.background()
	defer sw.stop()
	// Values are not prefetched: badger would start a goroutine for each
	// and copy it out of the value log, where Value hands the callback the
	// mapped bytes themselves, copied once, into the frame. (The keys come
	// in order, and so, mostly, do the values in the log: the kernel's
	// read-ahead does what prefetching would.)
	it := txn.NewIterator(badger.IteratorOptions{})
	defer it.Close()
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		if n++; n%256 == 0 {
			select {
			case <-closing:
				return 0, ErrClosed
			default:
			}
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		item := it.Item()
		if err := item.Value(func(v []byte) error { return sw.add(item.Key(), v) }); err != nil {
			return 0, fmt.Errorf("index: snapshot: %w", dbErr(err))
		}
	}
	if err := sw.end(); err != nil {
		return 0, fmt.Errorf("index: snapshot: %w", err)
	}
	return applied, nil
}

// snapWriter writes the frames of a snapshot stream. After background,
// a goroutine of its own writes each frame while the next is filled.
type snapWriter struct {
	w       io.Writer
	frame   []byte // the batch being filled, after room for its frame head
	pairs   uint64
	batches uint64

	full   chan []byte // frames for the goroutine to write
	free   chan []byte // buffers it has written
	done   chan error  // its first error, when full is closed
	failed atomic.Pointer[error]
}

func newSnapWriter(w io.Writer) *snapWriter {
	return &snapWriter{w: w, frame: newFrameBuf()}
}

func newFrameBuf() []byte { return make([]byte, frameHead, frameHead+snapBatchBytes+64<<10) }

// background starts the goroutine that writes frames.
func (s *snapWriter) background() {
	s.full = make(chan []byte, 1)
	s.free = make(chan []byte, 2)
	s.free <- newFrameBuf()
	s.done = make(chan error, 1)
	go s.writeFrames(s.full, s.free, s.done)
}

// writeFrames is the goroutine of background.
func (s *snapWriter) writeFrames(full <-chan []byte, free chan<- []byte, done chan<- error) {
	var err error
	for f := range full {
		if err == nil {
			if _, err = s.w.Write(f); err != nil {
				s.failed.Store(&err)
			}
		}
		free <- f[:frameHead]
	}
	done <- err
}

// stop ends the goroutine of background, if it runs, and returns its error.
func (s *snapWriter) stop() error {
	if s.full == nil {
		return nil
	}
	close(s.full)
	s.full = nil
	return <-s.done
}

// put writes the frame f and returns a buffer for the next.
func (s *snapWriter) put(f []byte) ([]byte, error) {
	if s.full == nil {
		_, err := s.w.Write(f)
		return f[:frameHead], err
	}
	if err := s.failed.Load(); err != nil {
		return f, *err
	}
	s.full <- f
	return <-s.free, nil
}

func (s *snapWriter) header(applied uint64) error {
	h := append([]byte(snapMagic), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(h[len(snapMagic):], snapVersion)
	h = binary.BigEndian.AppendUint64(h, applied)
	h = binary.BigEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	_, err := s.w.Write(h)
	return err
}

func (s *snapWriter) add(key, val []byte) error {
	s.frame = binary.AppendUvarint(s.frame, uint64(len(key)))
	s.frame = append(s.frame, key...)
	s.frame = binary.AppendUvarint(s.frame, uint64(len(val)))
	s.frame = append(s.frame, val...)
	s.pairs++
	if len(s.frame)-frameHead >= snapBatchBytes {
		return s.flush()
	}
	return nil
}

// flush writes the batch frame being filled, if it holds anything.
func (s *snapWriter) flush() error {
	if len(s.frame) == frameHead {
		return nil
	}
	s.batches++
	var err error
	s.frame, err = s.writeFrame(frameBatch, s.frame)
	return err
}

// writeFrame fills the head of f (a frame with its payload after room for
// the head) and writes it. It returns the buffer for the next frame.
func (s *snapWriter) writeFrame(kind byte, f []byte) ([]byte, error) {
	if len(f)-frameHead > snapMaxFrame {
		return f[:frameHead], fmt.Errorf("a frame of %d bytes is over the limit of %d", len(f)-frameHead, snapMaxFrame)
	}
	f[0] = kind
	binary.BigEndian.PutUint32(f[1:5], uint32(len(f)-frameHead))
	crc := crc32.Update(crc32.Checksum(f[:5], castagnoli), castagnoli, f[frameHead:])
	binary.BigEndian.PutUint32(f[5:9], crc)
	return s.put(f)
}

// end writes the end frame, and waits for every frame to be written.
func (s *snapWriter) end() error {
	if err := s.flush(); err != nil {
		return err
	}
	f := s.frame[:frameHead]
	f = binary.BigEndian.AppendUint64(f, s.pairs)
	f = binary.BigEndian.AppendUint64(f, s.batches)
	var err error
	s.frame, err = s.writeFrame(frameEnd, f)
	if serr := s.stop(); err == nil {
		err = serr
	}
	return err
}

// snapReader reads and checks a snapshot stream.
type snapReader struct {
	r       *bufio.Reader
	off     int64
	applied uint64
	prev    []byte // the last key read
	pairs   uint64
	batches uint64
	buf     bytes.Buffer
}

func newSnapReader(r io.Reader) *snapReader {
	return &snapReader{r: bufio.NewReaderSize(r, 256<<10)}
}

func (s *snapReader) errorf(format string, args ...any) error {
	return &SnapshotError{Offset: s.off, Msg: fmt.Sprintf(format, args...)}
}

// full reads exactly len(b) bytes; what is missing is an error naming what.
func (s *snapReader) full(b []byte, what string) error {
	n, err := io.ReadFull(s.r, b)
	s.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return s.errorf("the stream ends inside the %s (%d of its %d bytes)", what, n, len(b))
	}
	if err != nil {
		return fmt.Errorf("index: snapshot stream at byte %d: reading the %s: %w", s.off, what, err)
	}
	return nil
}

// header reads the header and returns the applied index.
func (s *snapReader) header() (uint64, error) {
	h := make([]byte, snapHeader)
	n, err := io.ReadFull(s.r, h)
	s.off = int64(n)
	if m := min(n, len(snapMagic)); string(h[:m]) != snapMagic[:m] {
		s.off = 0
		return 0, s.errorf("not a glint snapshot (it begins %q, not %q)", h[:m], snapMagic)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return 0, s.errorf("the stream ends inside the header (%d of its %d bytes)", n, snapHeader)
	}
	if err != nil {
		return 0, fmt.Errorf("index: snapshot stream at byte %d: reading the header: %w", s.off, err)
	}
	if crc := binary.BigEndian.Uint32(h[snapHeader-4:]); crc != crc32.Checksum(h[:snapHeader-4], castagnoli) {
		s.off = 0
		return 0, s.errorf("the header's checksum does not match: it is damaged")
	}
	if v := binary.BigEndian.Uint32(h[len(snapMagic):]); v != snapVersion {
		s.off = int64(len(snapMagic))
		return 0, s.errorf("format version %d; this glint reads version %d", v, snapVersion)
	}
	s.applied = binary.BigEndian.Uint64(h[len(snapMagic)+4:])
	return s.applied, nil
}

// next reads the next frame and calls fn for every pair of a batch. It
// returns io.EOF after the end frame, when it has checked the counts and
// that nothing follows. The slices passed to fn are valid until it returns.
func (s *snapReader) next(fn func(key, val []byte) error) error {
	start := s.off
	var head [frameHead]byte
	if err := s.full(head[:], "frame head"); err != nil {
		return err
	}
	kind, n := head[0], binary.BigEndian.Uint32(head[1:5])
	if kind != frameBatch && kind != frameEnd {
		s.off = start
		return s.errorf("unknown frame kind %q", kind)
	}
	if n > snapMaxFrame {
		s.off = start
		return s.errorf("a frame of %d bytes is over the limit of %d", n, snapMaxFrame)
	}
	// Read by copying, so that a damaged length costs no more memory than
	// the bytes really there.
	s.buf.Reset()
	got, err := io.CopyN(&s.buf, s.r, int64(n))
	s.off += got
	if err == io.EOF {
		return s.errorf("the stream ends inside a frame (%d of its %d bytes)", got, n)
	}
	if err != nil {
		return fmt.Errorf("index: snapshot stream at byte %d: %w", s.off, err)
	}
	payload := s.buf.Bytes()
	crc := crc32.Update(crc32.Checksum(head[:5], castagnoli), castagnoli, payload)
	if crc != binary.BigEndian.Uint32(head[5:9]) {
		s.off = start
		return s.errorf("the frame's checksum does not match: it is damaged")
	}
	if kind == frameEnd {
		return s.finish(start, payload)
	}
	s.batches++
	if len(payload) == 0 {
		s.off = start
		return s.errorf("an empty batch frame")
	}
	at := start + frameHead
	for p := payload; len(p) > 0; {
		key, rest, ok := uvarintBytes(p)
		if !ok {
			return &SnapshotError{Offset: at, Msg: "a key's length runs past its frame"}
		}
		val, rest, ok := uvarintBytes(rest)
		if !ok {
			return &SnapshotError{Offset: at, Msg: "a value's length runs past its frame"}
		}
		if len(key) == 0 {
			return &SnapshotError{Offset: at, Msg: "an empty key"}
		}
		if s.pairs > 0 && bytes.Compare(key, s.prev) <= 0 {
			return &SnapshotError{Offset: at, Msg: fmt.Sprintf("key %q does not come after %q", key, s.prev)}
		}
		s.prev = append(s.prev[:0], key...)
		s.pairs++
		if err := fn(key, val); err != nil {
			return err
		}
		at += int64(len(p) - len(rest))
		p = rest
	}
	return nil
}

// finish checks the end frame and that the stream ends with it.
func (s *snapReader) finish(start int64, payload []byte) error {
	if len(payload) != 16 {
		s.off = start
		return s.errorf("an end frame of %d bytes, not 16", len(payload))
	}
	pairs, batches := binary.BigEndian.Uint64(payload), binary.BigEndian.Uint64(payload[8:])
	if pairs != s.pairs || batches != s.batches {
		s.off = start
		return s.errorf("the end frame counts %d pairs in %d batches; the stream had %d in %d", pairs, batches, s.pairs, s.batches)
	}
	if _, err := s.r.ReadByte(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("index: snapshot stream at byte %d: %w", s.off, err)
		}
		return s.errorf("bytes follow the end frame")
	}
	return io.EOF
}

// uvarintBytes reads a uvarint length and that many bytes from p.
func uvarintBytes(p []byte) (b, rest []byte, ok bool) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, false
	}
	return p[k : k+int(n)], p[k+int(n):], true
}

// Restore builds the database of a snapshot stream (StreamTo) in o.Dir,
// which must not exist, checks it, and returns its applied index. It
// checks the stream's checksums and counts, then opens the new database
// as Open would (loading every table; the keys no reader sees are removed
// there) and compares its applied index with the stream's. On any error
// o.Dir is removed: no half database is left. The caller then swaps the
// directory in (SwapIn) and opens it. o.Dir should be on the file system
// of the directory it replaces, for the swap to be a rename.
func Restore(ctx context.Context, o Options, r io.Reader) (applied uint64, err error) {
	dir := o.Dir
	if o.InMemory || dir == "" {
		return 0, errors.New("index: restore needs a directory on disk")
	}
	if _, err := os.Lstat(dir); err == nil {
		return 0, fmt.Errorf("index: restore into %s: it exists; a snapshot is restored into a new directory", dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("index: restore into %s: %w", dir, err)
	}
	sr := newSnapReader(r)
	applied, err = sr.header()
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("index: restore into %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	if err := restoreStream(ctx, o, sr); err != nil {
		return 0, err
	}
	// Check the result as the server will open it.
	db, err := Open(o.WithReplicated(true).WithMergeFactor(-1))
	if err != nil {
		return 0, fmt.Errorf("index: restored database in %s: %w", dir, err)
	}
	got := db.Applied()
	if err := db.Close(); err != nil {
		return 0, fmt.Errorf("index: restored database in %s: %w", dir, err)
	}
	if got != applied {
		return 0, fmt.Errorf("index: restored database in %s has applied index %d; the stream's header says %d", dir, got, applied)
	}
	return applied, nil
}

// restoreStream writes the pairs of sr into a new badger database in o.Dir
// with badger's StreamWriter.
func restoreStream(ctx context.Context, o Options, sr *snapReader) error {
	limit := o.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	if limit < MinMemoryLimit {
		return fmt.Errorf("index: memory limit %d bytes is below the least that works, %d (128M)", limit, int64(MinMemoryLimit))
	}
	bdb, err := badger.Open(badgerOptions(o, memoryBudget(limit)))
	if err != nil {
		return fmt.Errorf("index: restore into %s: %w", o.Dir, err)
	}
	sw := bdb.NewStreamWriter()
	err = sw.Prepare()
	if err == nil {
		err = writePairs(ctx, sr, sw, o.Dir)
	}
	if err == nil {
		err = sw.Flush()
	} else {
		sw.Cancel()
	}
	if cerr := bdb.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("index: restore into %s: %w", o.Dir, cerr)
	}
	return err
}

// writePairs passes each batch frame of sr to sw as one write, reading
// the next frame while badger writes one. Every writebackEvery bytes it
// starts the write-back of the value log files in dir (badger syncs them
// only when the database closes).
func writePairs(ctx context.Context, sr *snapReader, sw *badger.StreamWriter, dir string) error {
	const bufs = 3
	free := make(chan *z.Buffer, bufs)
	for range bufs {
		free <- z.NewBuffer(2*snapBatchBytes, "index.Restore")
	}
	full := make(chan *z.Buffer)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(full)
		kv := &pb.KV{Version: 1}
		for {
			var buf *z.Buffer
			select {
			case buf = <-free:
			case <-stop:
				readErr <- nil
				return
			}
			buf.Reset()
			err := sr.next(func(key, val []byte) error {
				kv.Key, kv.Value = key, val
				badger.KVToBuffer(kv, buf)
				return nil
			})
			if err != nil {
				free <- buf
				if err == io.EOF {
					err = nil
				}
				readErr <- err
				return
			}
			select {
			case full <- buf:
			case <-stop:
				free <- buf
				readErr <- nil
				return
			}
		}
	}()
	var err error
	var unflushed int
	for buf := range full {
		if err == nil {
			if err = ctx.Err(); err == nil {
				unflushed += buf.LenNoPadding()
				err = sw.Write(buf)
			}
			if err == nil && unflushed >= writebackEvery {
				unflushed = 0
				startWriteback(dir)
			}
			if err != nil {
				close(stop)
			}
		}
		free <- buf
	}
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	close(free)
	for buf := range free {
		_ = buf.Release()
	}
	return err
}

// writebackEvery is how much of a snapshot Restore writes between two
// starts of write-back.
const writebackEvery = 32 << 20

// startWriteback asks the kernel to start writing out the value log files
// in dir, without waiting. badger writes them through memory maps and
// syncs them only at Close: a restored database of a gigabyte would
// otherwise be a gigabyte of dirty pages written out in one burst at the
// end, which makes the restore's end long and stalls the other writers
// of the disk meanwhile (a leader's log on the same machine). Errors are
// of no consequence: Close syncs all.
func startWriteback(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		writeback(f.Fd())
		f.Close()
	}
}

// SwapIn puts the database that Restore built in restored in the place of
// dir, whose DB the caller has closed: one atomic rename (an exchange when
// dir exists), then the old database is removed. After a crash during the
// removal, what is left at restored is the old database, to be removed.
// Both must be on one file system.
func SwapIn(dir, restored string) error {
	if _, err := os.Stat(restored); err != nil {
		return fmt.Errorf("index: swap in %s: %w", restored, err)
	}
	parent := filepath.Dir(dir)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(restored, dir); err != nil {
			return fmt.Errorf("index: swap in %s: %w", restored, err)
		}
		return syncDir(parent)
	} else if err != nil {
		return fmt.Errorf("index: swap in %s: %w", restored, err)
	}
	if err := checkLock(dir); err != nil {
		return err
	}
	if err := exchange(restored, dir); err != nil {
		return fmt.Errorf("index: swap in %s: exchanging it with %s: %w", restored, dir, err)
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	if err := os.RemoveAll(restored); err != nil {
		return fmt.Errorf("index: swap in %s: removing the old database: %w", restored, err)
	}
	return nil
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	if err := durable.SyncDir(dir); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}
