package sql

import (
	"strings"
	"testing"
)

// FuzzParseAgent: parseAgent never panics, and what it accepts is mirrors
// with a host, a port from 1 to 65535 and one table, each of which parses
// back to itself.
func FuzzParseAgent(f *testing.F) {
	for _, seed := range []string{"127.0.0.2:9306:t2", "h3:9306:t3|h4:9306:t3", "h1|h2:9310|h3:9311:x", "h", "h:t", "::", "|", "a:1:b,c", "[::1]:9306:t", "/sock"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		a, err := parseAgent("dist", value)
		if err != nil {
			return
		}
		if len(a.mirrors) == 0 {
			t.Fatalf("%q: no mirror and no error", value)
		}
		for _, m := range a.mirrors {
			if m.table == "" || strings.Contains(m.table, ",") {
				t.Fatalf("%q: mirror %+v has a bad table", value, m)
			}
			back, err := parseAgent("dist", m.String())
			if err != nil || len(back.mirrors) != 1 || back.mirrors[0] != m {
				t.Fatalf("%q: mirror %s does not parse back: %+v, %v", value, m, back.mirrors, err)
			}
		}
	})
}
