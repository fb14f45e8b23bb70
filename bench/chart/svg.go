package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// canvas accumulates the elements of one SVG picture. Coordinates are printed
// with one decimal, so the same input always gives the same bytes.
type canvas struct {
	b    strings.Builder
	w, h float64
}

const style = `text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:11px;fill:#222}` +
	`.title{font-size:16px;font-weight:bold}.sub{font-size:11px;fill:#555}.axis{font-size:11px;fill:#333}` +
	`.small{font-size:9px;fill:#333}.missing{font-size:9px;fill:#888;font-style:italic}` +
	`.grid{stroke:#ddd;stroke-width:1}.frame{stroke:#333;stroke-width:1;fill:none}`

func newCanvas(w, h float64) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`+"\n",
		num(w), num(h), num(w), num(h))
	fmt.Fprintf(&c.b, "<style>%s</style>\n", style)
	fmt.Fprintf(&c.b, `<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>`+"\n", num(w), num(h))
	return c
}

// text writes s at (x, y); anchor is start, middle or end.
func (c *canvas) text(x, y float64, anchor, class, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n",
		num(x), num(y), anchor, classAttr(class), html.EscapeString(s))
}

// vtext writes s turned a quarter left, reading upwards from (x, y).
func (c *canvas) vtext(x, y float64, class, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" transform="rotate(-90 %s %s)"%s>%s</text>`+"\n",
		num(x), num(y), num(x), num(y), classAttr(class), html.EscapeString(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, class string) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", num(x1), num(y1), num(x2), num(y2), classAttr(class))
}

// rect draws a filled rectangle with a tooltip.
func (c *canvas) rect(x, y, w, h float64, fill, title string) {
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
		num(x), num(y), num(w), num(h), fill, html.EscapeString(title))
}

func (c *canvas) frame(x, y, w, h float64) {
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" class="frame"/>`+"\n", num(x), num(y), num(w), num(h))
}

// polyline joins the points with a line of colour stroke.
func (c *canvas) polyline(xs, ys []float64, stroke string) {
	var pts []string
	for i := range xs {
		pts = append(pts, num(xs[i])+","+num(ys[i]))
	}
	fmt.Fprintf(&c.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), stroke)
}

func (c *canvas) circle(x, y, r float64, fill, title string) {
	fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="%s" fill="%s"><title>%s</title></circle>`+"\n",
		num(x), num(y), num(r), fill, html.EscapeString(title))
}

func (c *canvas) String() string { return c.b.String() + "</svg>\n" }

func classAttr(class string) string {
	if class == "" {
		return ""
	}
	return ` class="` + class + `"`
}

// num prints a coordinate with at most one decimal.
func num(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// logScale maps values between two powers of ten, lo and hi, onto pixels
// between a and b (a at lo).
type logScale struct{ lo, hi, a, b float64 }

// newLogScale spans the decades around the positive values vs (1 to 10 when
// there are none).
func newLogScale(vs []float64, a, b float64) logScale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	s := logScale{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi))), a: a, b: b}
	if s.hi <= s.lo {
		s.hi = s.lo * 10
	}
	return s
}

func (s logScale) at(v float64) float64 {
	v = min(max(v, s.lo), s.hi)
	f := (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	return s.a + f*(s.b-s.a)
}

// decades lists the powers of ten from lo to hi.
func (s logScale) decades() []float64 {
	var out []float64
	for v := s.lo; v <= s.hi*1.0001; v *= 10 {
		out = append(out, v)
	}
	return out
}

// short prints a throughput compactly: 0.52, 7.3, 481, 5.2k, 64k, 1.2M.
func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// duration prints a time given in microseconds: 8.5 µs, 730 µs, 4.1 ms, 1.25 s.
func duration(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.1f ms", us/1e3)
	case us >= 10:
		return fmt.Sprintf("%.0f µs", us)
	}
	return fmt.Sprintf("%.1f µs", us)
}

// decadeCount labels a power of ten of a throughput: 1, 10, 100, 1k, 10k, 100k, 1M.
func decadeCount(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.0f", v/1e6)) + "M"
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1:
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// decadeDuration labels a power of ten of microseconds: 1 µs, 10 µs, 100 µs,
// 1 ms, 10 ms, 100 ms, 1 s, 10 s.
func decadeDuration(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.0f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.0f ms", us/1e3)
	case us >= 1:
		return fmt.Sprintf("%.0f µs", us)
	}
	return strconv.FormatFloat(us, 'f', -1, 64) + " µs"
}

// size prints a byte count in binary units: 1 KB, 100 KB, 1 MB.
func size(b int64) string {
	switch {
	case b >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(b)/(1<<20))) + " MB"
	case b >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(b)/(1<<10))) + " KB"
	}
	return fmt.Sprintf("%d B", b)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
