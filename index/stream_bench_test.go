package index

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

var snapshotMB = flag.Int("snapshot.mb", 200, "MB of stored text in the database of BenchmarkSnapshotRestore")

// BenchmarkSnapshotRestore streams a database of -snapshot.mb MB of stored
// text (1,000-document statements of ~12 KB documents, merged as they go):
// "stream-only" into io.Discard, "restore-only" from a file, "piped"
// through an in-process pipe from StreamTo into Restore. MB/s is of stored
// text, stream-MB/s of the stream (every key and value of the database),
// and cpu-MB/s the stream's bytes per second of the process's CPU time
// (user and system), which other work on the machine disturbs less.
// "leader-writes" measures a writer that inserts 10 ~1 KB documents every
// 10 ms, in windows without and with a stream running (interleaved):
// idle-* and streaming-* are its latencies.
func BenchmarkSnapshotRestore(b *testing.B) {
	dir := b.TempDir()
	src, err := Open(DefaultOptions(filepath.Join(dir, "src")))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	tb := newTableT(b, src, benchSchema())
	c := newCorpus(1)
	batches := make([][]Document, 4)
	var batchBytes int64
	for i := range batches {
		batches[i], batchBytes = benchDocs(c, 1000, 12<<10)
	}
	var text int64
	for i := 0; text < int64(*snapshotMB)<<20; i++ {
		docs := slices.Clone(batches[i%len(batches)])
		insert(b, tb, docs...)
		text += batchBytes
	}
	for src.MergesPending() > 0 {
		time.Sleep(100 * time.Millisecond)
	}
	small, _ := benchDocs(c, 10, 1<<10)
	writer := func(stop <-chan struct{}) []time.Duration {
		var lat []time.Duration
		for {
			select {
			case <-stop:
				return lat
			default:
			}
			docs := slices.Clone(small)
			start := time.Now()
			insert(b, tb, docs...)
			lat = append(lat, time.Since(start))
			time.Sleep(10 * time.Millisecond)
		}
	}
	report := func(b *testing.B, lat []time.Duration, name string) {
		if len(lat) == 0 {
			return
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, name+"-p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, name+"-max-ms")
	}
	// Each side alone: StreamTo into io.Discard, Restore from a file.
	snapFile := filepath.Join(dir, "snapshot")
	b.Run("stream-only", func(b *testing.B) {
		b.SetBytes(text)
		var n int64
		for i := 0; i < b.N; i++ {
			cw := &countingWriter{w: io.Discard}
			if _, err := src.StreamTo(ctx, cw); err != nil {
				b.Fatal(err)
			}
			n += cw.n
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()/(1<<20), "stream-MB/s")
	})
	f, err := os.Create(snapFile)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := src.StreamTo(ctx, f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(snapFile)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("restore-only", func(b *testing.B) {
		b.SetBytes(text)
		for i := 0; i < b.N; i++ {
			f, err := os.Open(snapFile)
			if err != nil {
				b.Fatal(err)
			}
			target := filepath.Join(dir, fmt.Sprintf("r%d", i))
			_, err = Restore(ctx, DefaultOptions(target), f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := os.RemoveAll(target); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(fi.Size())*float64(b.N)/b.Elapsed().Seconds()/(1<<20), "stream-MB/s")
	})
	if err := os.Remove(snapFile); err != nil {
		b.Fatal(err)
	}

	b.Run("piped", func(b *testing.B) {
		var streamed int64 // written by the goroutine that Restore waits for
		b.SetBytes(text)
		cpu0 := cpuTime(b)
		for i := 0; i < b.N; i++ {
			target := filepath.Join(dir, fmt.Sprintf("r%d", i))
			pr, pw := io.Pipe()
			go func() {
				cw := &countingWriter{w: pw}
				_, err := src.StreamTo(ctx, cw)
				streamed += cw.n
				pw.CloseWithError(err)
			}()
			if _, err := Restore(ctx, DefaultOptions(target), pr); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := os.RemoveAll(target); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(float64(streamed)/b.Elapsed().Seconds()/(1<<20), "stream-MB/s")
		b.ReportMetric(float64(streamed)/float64(b.N)/(1<<20), "stream-MB")
		b.ReportMetric(float64(streamed)/cpu.Seconds()/(1<<20), "cpu-MB/s")
	})

	// The leader's side of a join: the writer's latencies in windows of 3 s
	// without a stream and with StreamTo running (into io.Discard, again
	// and again), interleaved.
	b.Run("leader-writes", func(b *testing.B) {
		const window = 3 * time.Second
		var idle, streaming []time.Duration
		streams := 0
		for i := 0; i < b.N; i++ {
			stop := make(chan struct{})
			time.AfterFunc(window, func() { close(stop) })
			idle = append(idle, writer(stop)...)

			stop = make(chan struct{})
			var lat []time.Duration
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); lat = writer(stop) }()
			for end := time.Now().Add(window); time.Now().Before(end); streams++ {
				if _, err := src.StreamTo(ctx, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			close(stop)
			wg.Wait()
			streaming = append(streaming, lat...)
		}
		b.ReportMetric(float64(streams)/float64(b.N), "streams/op")
		report(b, idle, "idle")
		report(b, streaming, "streaming")
	})
}

// cpuTime is the CPU time (user and system) of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
