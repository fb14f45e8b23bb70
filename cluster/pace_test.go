package cluster

import (
	"testing"
	"time"
)

// TestPacerRate sends 100 MB in 256 KiB writes at 50 MB/s on a fake clock
// and checks it slept about 2 s in all, after the first burst.
func TestPacerRate(t *testing.T) {
	var clock time.Time
	var slept time.Duration
	p := newPacer(50e6, 256<<10)
	p.now = func() time.Time { return clock }
	p.sleep = func(d time.Duration) { slept += d; clock = clock.Add(d) }
	clock = time.Unix(1, 0)
	for sent := 0; sent < 100e6; sent += 256 << 10 {
		p.wait(256 << 10)
	}
	want := time.Duration(float64(100e6-256<<10) / 50e6 * float64(time.Second))
	if d := slept - want; d < -10*time.Millisecond || d > 10*time.Millisecond {
		t.Fatalf("slept %v for 100 MB at 50 MB/s, want about %v", slept, want)
	}
}

// TestPacerIdleRefills checks that a pause fills the bucket up to its
// burst and no more.
func TestPacerIdleRefills(t *testing.T) {
	var clock time.Time
	var slept time.Duration
	p := newPacer(1e6, 1000)
	p.now = func() time.Time { return clock }
	p.sleep = func(d time.Duration) { slept += d; clock = clock.Add(d) }
	clock = time.Unix(1, 0)
	p.wait(1000) // the first burst is free
	if slept != 0 {
		t.Fatalf("the first burst slept %v", slept)
	}
	clock = clock.Add(time.Hour) // a long pause earns one burst, not an hour's worth
	p.wait(1000)
	p.wait(1000)
	if slept != time.Millisecond {
		t.Fatalf("slept %v, want 1ms (1000 bytes at 1 MB/s after a full burst)", slept)
	}
}

// TestPacerOff checks that rate 0 never sleeps.
func TestPacerOff(t *testing.T) {
	p := newPacer(0, 1)
	p.sleep = func(d time.Duration) { t.Fatalf("slept %v without a rate", d) }
	for range 1000 {
		p.wait(1 << 20)
	}
}
