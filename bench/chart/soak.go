package chart

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/glint-search/glint/bench/soak"
)

// opColors are the soak operations' line colours, in soak.Ops order.
var opColors = []string{"#2f6db5", "#e07b28", "#3a9d5d", "#8e5cc4", "#c44e6d"}

// Soak draws a soak run as four panels over its time: operations per second,
// the server's CPU time per operation, each operation's p99 latency, and the
// server's memory (RSS, and for glint the Go heap). Levels, not peaks, are what the chart is for, so the scales
// are linear and start at zero.
func Soak(w io.Writer, r *soak.Result) error {
	const width, left, right, top, panelH, gap = 860.0, 70.0, 170.0, 72.0, 150.0, 42.0
	c := newCanvas(width, top+4*panelH+3*gap+40)
	c.text(left, 22, "start", "title", fmt.Sprintf("Soak: %s, %d clients, %s", r.Target, r.Clients, minutes(r.DurationSec)))
	ops, errs := r.Totals()
	machine := r.Machine
	if machine == "" {
		machine = "machine not recorded"
	}
	c.text(left, 40, "start", "sub", fmt.Sprintf("%s · %s · %s corpus, %d documents loaded",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), machine, r.Corpus, r.FillDocs))
	line2 := fmt.Sprintf("mix %s · %d operations, %d errors", r.Mix, ops, errs)
	if r.WarmupSec > 0 {
		line2 += " · after " + minutes(r.WarmupSec) + " of warm-up"
	}
	c.text(left, 54, "start", "sub", line2)
	if len(r.Windows) == 0 {
		c.text(width/2, top+panelH, "middle", "missing", "no windows measured")
		_, err := io.WriteString(w, c.String())
		return err
	}
	xs := make([]float64, len(r.Windows))
	for i, win := range r.Windows {
		xs[i] = win.EndSec
	}
	xmax := max(xs[len(xs)-1], 1)
	plotW := width - left - right
	x := func(sec float64) float64 { return left + sec/xmax*plotW }

	type series struct {
		name, color string
		ys          []float64
	}
	panel := func(n int, label string, unit func(float64) string, ss []series) {
		y0 := top + float64(n)*(panelH+gap)
		ymax := 0.0
		for _, s := range ss {
			for _, v := range s.ys {
				ymax = max(ymax, v)
			}
		}
		ymax = niceCeil(ymax)
		y := func(v float64) float64 { return y0 + panelH - v/ymax*panelH }
		ticks := 4.0
		if m := ymax / math.Pow(10, math.Floor(math.Log10(ymax))); m == 5 || m == 1 {
			ticks = 5 // 1 or 5 times a power of ten: steps of a fifth are round
		}
		for i := 0.0; i <= ticks; i++ {
			v := ymax * i / ticks
			c.line(left, y(v), left+plotW, y(v), "grid")
			c.text(left-6, y(v)+4, "end", "small", unit(v))
		}
		c.frame(left, y0, plotW, panelH)
		c.vtext(16, y0+panelH/2+30, "axis", label)
		for k, s := range ss {
			if len(s.ys) > 1 {
				pys := make([]float64, len(s.ys))
				pxs := make([]float64, len(s.ys))
				for i, v := range s.ys {
					pxs[i], pys[i] = x(xs[i]), y(v)
				}
				c.polyline(pxs, pys, s.color)
			} else {
				c.circle(x(xs[0]), y(s.ys[0]), 3, s.color, s.name)
			}
			ly := y0 + 12 + float64(k)*16
			c.rect(left+plotW+12, ly-9, 12, 12, s.color, s.name)
			c.text(left+plotW+29, ly+1, "start", "axis", s.name)
		}
	}

	perSec := make([]float64, len(r.Windows))
	for i, win := range r.Windows {
		perSec[i] = win.PerSec
	}
	panel(0, "operations / s", func(v float64) string {
		if v == 0 {
			return "0"
		}
		return short(v)
	}, []series{{"all operations", opColors[0], perSec}})

	cpu := make([]float64, len(r.Windows))
	for i, win := range r.Windows {
		cpu[i] = win.CPUMsPerOp
	}
	panel(1, "server CPU ms / op", func(v float64) string { return trimZero(fmt.Sprintf("%.2f", v)) },
		[]series{{"CPU per operation", opColors[2], cpu}})

	var lat []series
	for k, op := range soak.Ops {
		ys := make([]float64, len(r.Windows))
		seen := false
		for i, win := range r.Windows {
			if s, ok := win.Ops[op]; ok {
				ys[i], seen = s.P99Ms, true
			}
		}
		if seen {
			lat = append(lat, series{op + " p99", opColors[k%len(opColors)], ys})
		}
	}
	panel(2, "p99 latency (ms)", func(v float64) string { return trimZero(fmt.Sprintf("%.1f", v)) }, lat)

	mem := []series{{"RSS", opColors[4], make([]float64, len(r.Windows))}}
	var heap []float64
	for i, win := range r.Windows {
		mem[0].ys[i] = float64(win.RSSBytes) / (1 << 20)
		if win.HeapBytes > 0 {
			heap = append(heap, float64(win.HeapBytes)/(1<<20))
		}
	}
	if len(heap) == len(r.Windows) {
		mem = append(mem, series{"Go heap", opColors[1], heap})
	}
	panel(3, "memory (MB)", func(v float64) string { return fmt.Sprintf("%.0f", v) }, mem)

	bottom := top + 4*panelH + 3*gap
	for i := 0; i <= 5; i++ {
		sec := xmax * float64(i) / 5
		c.text(x(sec), bottom+16, "middle", "small", minutes(sec))
	}
	c.text(left+plotW/2, bottom+32, "middle", "axis", fmt.Sprintf("time into the run (one point per %s window)", minutes(r.IntervalSec)))
	_, err := io.WriteString(w, c.String())
	return err
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (1 for v <= 0).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// minutes prints seconds as "45 s", "10 min" or "2 min 30 s".
func minutes(sec float64) string {
	s := int(math.Round(sec))
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	parts := []string{fmt.Sprintf("%d min", s/60)}
	if s%60 != 0 {
		parts = append(parts, fmt.Sprintf("%d s", s%60))
	}
	return strings.Join(parts, " ")
}
