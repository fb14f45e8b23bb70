package chart

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/glint-search/glint/bench/load"
)

// group is one cluster of bars: a corpus, workload and concurrency.
type group struct {
	corpus, workload string
	c                int
	unit             string
	cells            map[load.Target]load.Median
}

// Layout of the throughput chart, in pixels.
const (
	tpLeft, tpRight, tpTop, tpBottom = 70.0, 20.0, 96.0, 62.0
	tpPlotH                          = 300.0
	barW, barGap, groupPad           = 18.0, 3.0, 30.0
	minGroupW                        = 92.0
)

// Throughput writes the bar chart of every median but the ladder's.
func Throughput(w io.Writer, s *load.Summary) error {
	var ms []load.Median
	for _, m := range s.Medians {
		if m.Workload != load.Ladder {
			ms = append(ms, m)
		}
	}
	ts, colors := targetsOf(ms)
	groups := groupsOf(ms)
	corpora := map[string]bool{}
	var values []float64
	for _, g := range groups {
		corpora[g.corpus] = true
		for _, m := range g.cells {
			if !m.Failed() {
				values = append(values, m.Throughput)
			}
		}
	}

	groupW := max(minGroupW, float64(len(ts))*(barW+barGap)-barGap+groupPad)
	plotW := max(560, groupW*float64(len(groups)))
	c := newCanvas(tpLeft+plotW+tpRight, tpTop+tpPlotH+tpBottom)
	c.text(tpLeft, 24, "start", "title", "glint benchmark: throughput by workload and concurrency")
	c.text(tpLeft, 42, "start", "sub", heading(s))
	c.text(tpLeft, 58, "start", "sub", "Medians of the runs. Log scale: each group keeps its own unit (under it); taller is better. "+
		"SQLite and Bleve run in-process, with no protocol cost.")
	legend(c, tpLeft, 80, ts, colors)

	// Room above the tallest bar for its label: the scale reaches at least
	// four times the largest value.
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	y := newLogScale(append(values, 4*top), tpTop+tpPlotH, tpTop)
	for _, d := range y.decades() {
		c.line(tpLeft, y.at(d), tpLeft+plotW, y.at(d), "grid")
		c.text(tpLeft-6, y.at(d)+4, "end", "axis", decadeCount(d))
	}
	c.vtext(16, tpTop+tpPlotH/2+60, "axis", "throughput per second (log)")
	if len(groups) == 0 {
		c.text(tpLeft+plotW/2, tpTop+tpPlotH/2, "middle", "missing", "no throughput figures in this results file")
	}

	base := tpTop + tpPlotH
	for i, g := range groups {
		x0 := tpLeft + float64(i)*groupW + (groupW-(float64(len(ts))*(barW+barGap)-barGap))/2
		for j, t := range ts {
			x := x0 + float64(j)*(barW+barGap)
			m, ok := g.cells[t]
			switch {
			case !ok:
				c.vtext(x+barW/2+3, base-4, "missing", load.AbsentLabel(t, g.workload))
			case m.Failed():
				c.vtext(x+barW/2+3, base-4, "missing", load.FailureLabel(t))
			default:
				top := y.at(m.Throughput)
				c.rect(x, top, barW, base-top, colors[t], fmt.Sprintf("%s, %s %s c=%d: %.1f %s/s (p50 %.2f ms, p99 %.2f ms)",
					t, g.corpus, g.workload, g.c, m.Throughput, m.Unit, m.P50Ms, m.P99Ms))
				c.vtext(x+barW/2+3, top-3, "small", short(m.Throughput))
			}
		}
		cx := tpLeft + (float64(i)+0.5)*groupW
		var lines []string
		if len(corpora) > 1 {
			lines = append(lines, g.corpus)
		}
		lines = append(lines, wrapWorkload(g.workload)...)
		lines = append(lines, fmt.Sprintf("c=%d, %s/s", g.c, g.unit))
		for k, l := range lines {
			c.text(cx, base+15+float64(k)*12, "middle", "axis", l)
		}
	}
	c.frame(tpLeft, tpTop, plotW, tpPlotH)
	_, err := io.WriteString(w, c.String())
	return err
}

// groupsOf gathers the medians by corpus (in order of appearance), workload (in
// the race's order) and concurrency.
func groupsOf(ms []load.Median) []*group {
	var corpora []string
	index := map[[3]string]*group{}
	var gs []*group
	for _, m := range ms {
		if load.IsDistributed(m.Workload) {
			continue // glint alone against itself: the results file's own table
		}
		if !slices.Contains(corpora, m.Corpus) {
			corpora = append(corpora, m.Corpus)
		}
		k := [3]string{m.Corpus, m.Workload, fmt.Sprint(m.Concurrency)}
		g, ok := index[k]
		if !ok {
			g = &group{corpus: m.Corpus, workload: m.Workload, c: m.Concurrency, unit: m.Unit, cells: map[load.Target]load.Median{}}
			index[k] = g
			gs = append(gs, g)
		}
		g.cells[m.Target] = m
	}
	workload := func(w string) int {
		if i := slices.Index(load.Workloads, w); i >= 0 {
			return i
		}
		return math.MaxInt
	}
	slices.SortStableFunc(gs, func(a, b *group) int {
		return cmp.Or(cmp.Compare(slices.Index(corpora, a.corpus), slices.Index(corpora, b.corpus)),
			cmp.Compare(workload(a.workload), workload(b.workload)), cmp.Compare(a.workload, b.workload),
			cmp.Compare(a.c, b.c))
	})
	return gs
}

// wrapWorkload cuts a long workload name before each '+' so it fits under its
// bars: "json-search+highlight" gives "json-search", "+highlight".
func wrapWorkload(w string) []string {
	if len(w) <= 14 {
		return []string{w}
	}
	parts := strings.SplitAfter(w, "+")
	for i := range parts[:len(parts)-1] {
		parts[i] = strings.TrimSuffix(parts[i], "+")
		parts[i+1] = "+" + parts[i+1]
	}
	return parts
}
