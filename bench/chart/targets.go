package chart

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/glint-search/glint/bench/load"
)

// known gives the targets of the race their place (ours first) and colour;
// any other target comes after them, in a colour of its own.
var known = []struct {
	target load.Target
	color  string
}{
	{load.Glint, "#2f6fd0"},
	{load.GlintStem, "#7fa8e6"},
	{load.Sphinx, "#e08a2c"},
	{load.Postgres, "#c44e6d"},
	{load.SQLite, "#8e5cc4"},
	{load.Bleve, "#3a9d5d"},
}

var others = []string{"#5b6b7a", "#b8a02e", "#20a4a4"}

// targetsOf lists the targets of ms in chart order with their colours.
func targetsOf(ms []load.Median) ([]load.Target, map[load.Target]string) {
	var ts []load.Target
	for _, m := range ms {
		if !slices.Contains(ts, m.Target) {
			ts = append(ts, m.Target)
		}
	}
	rank := func(t load.Target) int {
		for i, k := range known {
			if k.target == t {
				return i
			}
		}
		return len(known)
	}
	slices.SortStableFunc(ts, func(a, b load.Target) int { return cmp.Compare(rank(a), rank(b)) })
	colors := map[load.Target]string{}
	n := 0
	for _, t := range ts {
		if r := rank(t); r < len(known) {
			colors[t] = known[r].color
		} else {
			colors[t] = others[n%len(others)]
			n++
		}
	}
	return ts, colors
}

// heading is the second line of a title: when and where the figures were made.
func heading(s *load.Summary) string {
	machine := s.Machine
	if machine == "" {
		machine = "machine not recorded"
	}
	parts := []string{s.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), machine, fmt.Sprintf("%d CPUs", s.CPUs)}
	if s.Quick {
		parts = append(parts, "quick run")
	}
	return strings.Join(parts, " · ")
}

// legend draws one swatch and name per target from (x, y), left to right.
func legend(c *canvas, x, y float64, ts []load.Target, colors map[load.Target]string) {
	for _, t := range ts {
		c.rect(x, y-9, 12, 12, colors[t], string(t))
		c.text(x+17, y+1, "start", "axis", string(t))
		x += 17 + 6.5*float64(len(t)) + 22
	}
}
