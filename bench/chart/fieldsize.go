package chart

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// Layout of the field-size chart, in pixels.
const (
	fsLeft, fsRight, fsTop, fsBottom = 80.0, 30.0, 124.0, 50.0
	fsPlotW, fsPlotH                 = 600.0, 320.0
)

// FieldSize writes the line chart of the ladder medians: the time to highlight
// one document against its size, per target, at the lowest concurrency run.
func FieldSize(w io.Writer, s *load.Summary) error {
	var ladder []load.Median
	lowest := map[load.Target]int{}
	for _, m := range s.Medians {
		if m.Workload == load.Ladder && m.FieldBytes > 0 {
			ladder = append(ladder, m)
			if c, ok := lowest[m.Target]; !ok || m.Concurrency < c {
				lowest[m.Target] = m.Concurrency
			}
		}
	}
	all, colors := targetsOf(s.Medians)
	points := map[load.Target][]load.Median{}
	failed := map[load.Target]bool{}
	var sizes, times []float64
	for _, m := range ladder {
		if m.Concurrency != lowest[m.Target] {
			continue
		}
		if m.Failed() || m.Throughput <= 0 {
			failed[m.Target] = true
			continue
		}
		points[m.Target] = append(points[m.Target], m)
		sizes = append(sizes, float64(m.FieldBytes))
		times = append(times, 1e6/m.Throughput)
	}
	var drawn []load.Target
	var missing []string
	for _, t := range all {
		switch {
		case len(points[t]) > 0:
			drawn = append(drawn, t)
		case failed[t]:
			missing = append(missing, fmt.Sprintf("%s: %s", t, load.FailureLabel(t)))
		default:
			missing = append(missing, fmt.Sprintf("%s: not run on the ladder", t))
		}
	}
	if !slices.Contains(all, load.Glint) {
		missing = append([]string{"glint: not in this results file"}, missing...)
	}

	c := newCanvas(fsLeft+fsPlotW+fsRight, fsTop+fsPlotH+fsBottom)
	c.text(fsLeft, 24, "start", "title", "glint benchmark: highlighting cost against field size")
	c.text(fsLeft, 42, "start", "sub", heading(s))
	c.text(fsLeft, 58, "start", "sub", "One document highlighted per operation, concurrency 1; median time per document; lower is better.")
	c.text(fsLeft, 72, "start", "sub", "Servers: CALL SNIPPETS over MySQL protocol (PostgreSQL: ts_headline), loopback. SQLite, Bleve: in-process stand-ins.")
	legend(c, fsLeft, 92, drawn, colors)
	if len(missing) > 0 {
		c.text(fsLeft, 110, "start", "missing", "No figure for "+strings.Join(missing, "; "))
	}

	// The size axis spans the ladder (and any size beyond it), with a margin.
	x := logScale{lo: float64(slices.Min(corpus.LadderSizes)), hi: float64(slices.Max(corpus.LadderSizes)), a: fsLeft, b: fsLeft + fsPlotW}
	for _, v := range sizes {
		x.lo, x.hi = min(x.lo, v), max(x.hi, v)
	}
	x.lo, x.hi = x.lo/1.5, x.hi*1.5
	y := newLogScale(times, fsTop+fsPlotH, fsTop)
	for _, d := range y.decades() {
		c.line(fsLeft, y.at(d), fsLeft+fsPlotW, y.at(d), "grid")
		c.text(fsLeft-6, y.at(d)+4, "end", "axis", decadeDuration(d))
	}
	for _, r := range corpus.LadderSizes {
		c.line(x.at(float64(r)), fsTop, x.at(float64(r)), fsTop+fsPlotH, "grid")
		c.text(x.at(float64(r)), fsTop+fsPlotH+16, "middle", "axis", size(int64(r)))
	}
	c.text(fsLeft+fsPlotW/2, fsTop+fsPlotH+38, "middle", "axis", "field size (log)")
	c.vtext(18, fsTop+fsPlotH/2+70, "axis", "time per document (log)")
	if len(drawn) == 0 {
		c.text(fsLeft+fsPlotW/2, fsTop+fsPlotH/2, "middle", "missing", "no ladder figures in this results file")
	}

	for _, t := range drawn {
		ps := points[t]
		slices.SortFunc(ps, func(a, b load.Median) int { return cmp.Compare(a.FieldBytes, b.FieldBytes) })
		var xs, ys []float64
		for _, m := range ps {
			xs, ys = append(xs, x.at(float64(m.FieldBytes))), append(ys, y.at(1e6/m.Throughput))
		}
		c.polyline(xs, ys, colors[t])
		for i, m := range ps {
			us := 1e6 / m.Throughput
			tip := fmt.Sprintf("%s, %s (%d bytes): %s per document, %.1f MB/s", t, size(corpus.LadderRung(m.FieldBytes)), m.FieldBytes, duration(us), m.MBPerSec)
			c.circle(xs[i], ys[i], 4, colors[t], tip)
			// The label goes above the point unless another line is above it there.
			dy := -7.0
			for _, o := range drawn {
				for _, om := range points[o] {
					if o != t && om.FieldBytes == m.FieldBytes && om.Throughput < m.Throughput {
						dy = 15
					}
				}
			}
			c.text(xs[i]+7, ys[i]+dy, "start", "small", duration(us))
		}
	}
	c.frame(fsLeft, fsTop, fsPlotW, fsPlotH)
	_, err := io.WriteString(w, c.String())
	return err
}
