package cluster

import "time"

// pacer holds a stream to a rate: a token bucket of bytes, filled at rate
// bytes a second up to burst, that each write takes from, sleeping while
// the bucket is short. A snapshot sent at full speed takes the disk and the
// CPU from the leader's writes; paced, it leaves them room.
type pacer struct {
	rate   float64 // bytes a second; 0: no limit
	burst  float64
	tokens float64
	last   time.Time
	sleep  func(time.Duration) // time.Sleep; tests count instead
	now    func() time.Time
}

// newPacer paces at rate bytes a second (0: no limit), in bursts of up to
// burst bytes.
func newPacer(rate int64, burst int) *pacer {
	return &pacer{rate: float64(rate), burst: float64(burst), tokens: float64(burst), sleep: time.Sleep, now: time.Now}
}

// wait returns once n more bytes may go.
func (p *pacer) wait(n int) {
	if p.rate <= 0 {
		return
	}
	now := p.now()
	if !p.last.IsZero() {
		p.tokens = min(p.burst, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	}
	p.last = now
	p.tokens -= float64(n)
	if p.tokens < 0 {
		d := time.Duration(-p.tokens / p.rate * float64(time.Second))
		p.sleep(d)
		// The sleep paid the debt: the tokens it was owed fill it.
		p.tokens = 0
		p.last = p.last.Add(d)
	}
}
