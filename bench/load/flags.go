package load

import (
	"fmt"
	"strconv"
	"strings"
)

// The benchmark programs (the race, glint-load, bleve-bench, peer-bench)
// take lists on their command lines the same way.

// SplitList splits a comma-separated flag value, dropping blanks and empty
// items: "search, snippets," is [search snippets].
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseCounts reads a comma-separated list of positive whole numbers
// (concurrencies, say); what names the list in an error.
func ParseCounts(s, what string) ([]int, error) {
	var out []int
	for _, f := range SplitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad %s %q: a positive whole number", what, f)
		}
		out = append(out, n)
	}
	return out, nil
}
