package htmlstrip

import (
	"strings"
	"testing"
)

// TestPathological strips inputs made to be slow (deep nesting, stray end
// tags, long names). A quadratic path would run past the test timeout; the
// assertions check that the result stays proportional to the input.
func TestPathological(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 1 << 18
	for name, in := range map[string]string{
		"nested b":         strings.Repeat("<b>", n/3),
		"nested zones":     strings.Repeat("<em>", n/4) + strings.Repeat("</x>", n/4),
		"li under b":       "<ul>" + strings.Repeat("<b>", 600) + strings.Repeat("<li></li>", n/9),
		"long entity name": "&" + strings.Repeat("a", n),
		"many entities":    strings.Repeat("&amp", n/4),
		"long attribute":   `<img alt="` + strings.Repeat("&lt;x ", n/6) + `">`,
		"many attributes":  "<img" + strings.Repeat(" alt=x", n/6) + ">",
		"removed nesting":  strings.Repeat("<li>", n/4),
		"headings":         strings.Repeat("<h1><h2>", n/8),
		"tables":           strings.Repeat("<table><tr><td>x", n/16),
	} {
		for i, opts := range fuzzOptions {
			r := Strip(in, opts)
			if len(r.Text) > 2*len(in) || len(r.Marks) > len(in) {
				t.Errorf("%s, options %d: %d bytes of text and %d marks from %d bytes", name, i, len(r.Text), len(r.Marks), len(in))
			}
		}
	}
}
