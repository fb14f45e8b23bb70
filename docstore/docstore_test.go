package docstore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 300)
	cases := []struct {
		name   string
		fields []string
	}{
		{"no fields", nil},
		{"one empty field", []string{""}},
		{"short raw", []string{"a", "bc"}},
		{"long compressed", []string{"title", long, ""}},
		{"unicode", []string{"Привет мир", "東京タワー " + long}},
		{"many fields", strings.Split(strings.Repeat("x,", 40)+"y", ",")},
		{"incompressible", []string{string(randomBytes(4000))}},
	}
	var enc Encoder
	var dec Decoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := enc.Append([]byte("prefix"), c.fields)
			require.Equal(t, "prefix", string(rec[:6]))
			rec = rec[6:]
			got, err := dec.Decode(rec, nil, nil)
			require.NoError(t, err)
			if len(c.fields) == 0 {
				require.Empty(t, got)
			} else {
				require.Equal(t, c.fields, got)
			}
			// Selected fields, out of order, and one out of range.
			if len(c.fields) > 0 {
				last := len(c.fields) - 1
				got, err = dec.Decode(rec, []int{last, 0, 99}, nil)
				require.NoError(t, err)
				require.Equal(t, []string{c.fields[last], c.fields[0], ""}, got)
			}
		})
	}
}

func TestCompresses(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 300)
	var enc Encoder
	rec := enc.Append(nil, []string{long})
	require.Equal(t, byte(codecS2), rec[0])
	require.Less(t, len(rec), len(long)/4)
}

func TestCorrupt(t *testing.T) {
	var dec Decoder
	for name, rec := range map[string][]byte{
		"empty":         {},
		"unknown codec": {9, 0},
		"bad s2":        {codecS2, 0xff, 0xff, 0xff},
		"short":         {codecRaw, 2, 5, 1, 'a'},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := dec.Decode(rec, nil, nil)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

func TestRead(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	var enc Encoder
	long := strings.Repeat("long enough to be compressed. ", 10)
	var keys [][]byte
	want := map[int][]string{}
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		for i := range 40 {
			k := fmt.Sprintf("k%02d", i)
			fields := []string{k + " title", k + " " + long}
			if i%3 == 0 {
				fields[1] = k + " short" // stored raw
			}
			if err := txn.Set([]byte(k), enc.Append(nil, fields)); err != nil {
				return err
			}
			keys = append([][]byte{[]byte(k)}, keys...) // read back in reverse
			want[39-i] = []string{fields[1], "", fields[0]}
		}
		return nil
	}))
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			var mu sync.Mutex
			got := map[int][]string{}
			require.NoError(t, db.View(func(txn *badger.Txn) error {
				return Read(txn, keys, []int{1, 5, 0}, workers, func(i int, f []string) error {
					mu.Lock()
					defer mu.Unlock()
					require.NotContains(t, got, i)
					got[i] = slices.Clone(f)
					return nil
				})
			}))
			require.Equal(t, want, got)

			failed := errors.New("stop")
			err := db.View(func(txn *badger.Txn) error {
				return Read(txn, keys, nil, workers, func(i int, f []string) error {
					if i == 7 {
						return failed
					}
					return nil
				})
			})
			require.ErrorIs(t, err, failed)
		})
	}
	err = db.View(func(txn *badger.Txn) error {
		return Read(txn, [][]byte{[]byte("zz")}, nil, 2, func(int, []string) error { return nil })
	})
	require.ErrorIs(t, err, ErrNotFound)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func BenchmarkEncode(b *testing.B) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 270)
	fields := []string{"A title of a page", long}
	b.SetBytes(int64(len(long)))
	var enc Encoder
	var buf []byte
	for b.Loop() {
		buf = enc.Append(buf[:0], fields)
	}
}
