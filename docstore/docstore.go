package docstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrCorrupt  = errors.New("docstore: corrupt record")
	ErrNotFound = errors.New("docstore: no record")
)

// Record codecs: the first byte of every record.
const (
	codecRaw = 0 // fields as they are
	codecS2  = 1 // fields compressed with s2
)

// minCompress is the smallest payload worth compressing.
const minCompress = 128

// Encoder encodes records. The zero value is ready; it keeps a scratch buffer
// between calls and is not safe for concurrent use.
type Encoder struct {
	raw []byte
}

// Append appends the record of fields to dst and returns the extended slice.
//
// The layout of a record: one codec byte, then the payload, compressed with s2
// when that saves space. The payload is uvarint(len(fields)), then
// uvarint(len(field)) for each field, then the bytes of every field in order.
func (e *Encoder) Append(dst []byte, fields []string) []byte {
	raw := binary.AppendUvarint(e.raw[:0], uint64(len(fields)))
	for _, f := range fields {
		raw = binary.AppendUvarint(raw, uint64(len(f)))
	}
	for _, f := range fields {
		raw = append(raw, f...)
	}
	e.raw = raw
	if len(raw) < minCompress {
		dst = append(dst, codecRaw)
		return append(dst, raw...)
	}
	at := len(dst)
	need := 1 + s2.MaxEncodedLen(len(raw))
	if cap(dst)-at < need {
		grown := make([]byte, at, at+need+(at+need)/4)
		copy(grown, dst)
		dst = grown
	}
	enc := s2.Encode(dst[at+1:at+need], raw)
	if len(enc) >= len(raw) {
		dst = append(dst[:at], codecRaw)
		return append(dst, raw...)
	}
	dst = dst[:at+1+len(enc)]
	dst[at] = codecS2
	return dst
}

// Decoder decodes records. The zero value is ready; it keeps a scratch buffer
// between calls and is not safe for concurrent use.
type Decoder struct {
	raw []byte
	// Share makes the strings of one record share one new buffer (one
	// allocation and no copy per field), which keeps all of the record's
	// text alive while any of its strings is: for reading whole pages of
	// records. Without it each string is a copy of its own.
	Share bool
}

// Decode appends fields of rec to out and returns the extended slice: all of
// them when want is nil, else field want[j] as the j-th appended string ("" for
// a field the record does not have). The strings do not share rec's memory.
func (d *Decoder) Decode(rec []byte, want []int, out []string) ([]string, error) {
	if len(rec) == 0 {
		return out, ErrCorrupt
	}
	payload := rec[1:]
	switch rec[0] {
	case codecRaw:
		if d.Share {
			payload = append([]byte(nil), payload...)
		}
	case codecS2:
		n, err := s2.DecodedLen(payload)
		if err != nil {
			return out, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		buf := d.raw
		if d.Share {
			buf = make([]byte, n)
		} else if cap(d.raw) < n {
			d.raw = make([]byte, n)
			buf = d.raw
		}
		if payload, err = s2.Decode(buf[:n], payload); err != nil {
			return out, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	default:
		return out, fmt.Errorf("%w: codec %d", ErrCorrupt, rec[0])
	}
	nf, k := binary.Uvarint(payload)
	if k <= 0 || nf > uint64(len(payload)) {
		return out, ErrCorrupt
	}
	// Field i occupies payload[data+off[i] : data+off[i+1]].
	var offs [16]int
	lens := offs[:0]
	if nf > uint64(len(offs)) {
		lens = make([]int, 0, nf)
	}
	p := k
	total := 0
	for i := uint64(0); i < nf; i++ {
		l, k := binary.Uvarint(payload[p:])
		if k <= 0 || l > uint64(len(payload)) {
			return out, ErrCorrupt
		}
		p += k
		lens = append(lens, int(l))
		total += int(l)
	}
	data := payload[p:]
	if total != len(data) {
		return out, ErrCorrupt
	}
	field := func(i int) string {
		if i < 0 || i >= len(lens) {
			return ""
		}
		at := 0
		for _, l := range lens[:i] {
			at += l
		}
		if d.Share {
			return unsafe.String(unsafe.SliceData(data[at:]), lens[i])
		}
		return string(data[at : at+lens[i]])
	}
	if want == nil {
		for i := range lens {
			out = append(out, field(i))
		}
		return out, nil
	}
	for _, i := range want {
		out = append(out, field(i))
	}
	return out, nil
}

// Read reads the records under keys in txn and calls fn with the decoded fields
// of each (selected by want, as in Decoder.Decode). The fields slice is reused
// between calls; the strings in it are not (the strings of one record share
// one buffer). With more than one worker, the records are fetched in the
// order of keys and decoded by up to workers goroutines, so fn is called
// concurrently (never twice for one i) and in no set order. A missing key is
// an error wrapping ErrNotFound; an error from fn stops the reading and is
// returned.
func Read(txn *badger.Txn, keys [][]byte, want []int, workers int, fn func(i int, fields []string) error) error {
	workers = max(1, min(workers, len(keys)/minRecordsPerWorker))
	var recs [][]byte
	if workers > 1 {
		recs = make([][]byte, len(keys))
	}
	d := Decoder{Share: true}
	var fields []string
	for i, key := range keys {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("%w: key %x", ErrNotFound, key)
		}
		if err != nil {
			return err
		}
		if recs != nil {
			if recs[i], err = item.ValueCopy(nil); err != nil {
				return err
			}
			continue
		}
		err = item.Value(func(rec []byte) error {
			var err error
			fields, err = d.Decode(rec, want, fields[:0])
			return err
		})
		if err != nil {
			return err
		}
		if err := fn(i, fields); err != nil {
			return err
		}
	}
	if recs == nil {
		return nil
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			d := Decoder{Share: true}
			var fields []string
			for i := w; i < len(recs); i += workers {
				var err error
				if fields, err = d.Decode(recs[i], want, fields[:0]); err == nil {
					err = fn(i, fields)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// minRecordsPerWorker is the fewest records worth a goroutine of their own.
const minRecordsPerWorker = 4
