package tokenize

import (
	"errors"

	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// The HTML settings are package htmlstrip's.

func newHTMLStripper(c *Config) (htmlStripper, error) {
	return stripper{htmlstrip.New(stripOptions(c))}, nil
}

func stripOptions(c *Config) *htmlstrip.Options {
	return &htmlstrip.Options{RemoveElements: c.HTMLRemoveElements, IndexAttrs: c.HTMLIndexAttrs, Zones: c.IndexZones}
}

// textStripper is the stripper of Texts: a zone's tags end no paragraph.
func textStripper(c *Config) htmlStripper {
	o := stripOptions(c)
	o.ZonesNoParagraph = true
	return stripper{htmlstrip.New(o)}
}

type stripper struct{ s *htmlstrip.Stripper }

func (s stripper) strip(input string) strippedDoc { return (*strippedResult)(s.s.Strip(input)) }

// strippedResult is an htmlstrip.Result as a strippedDoc.
type strippedResult htmlstrip.Result

func (r *strippedResult) text() string  { return r.Text }
func (r *strippedResult) numMarks() int { return len(r.Marks) }

func (r *strippedResult) mark(i int) (int, markKind, string) {
	m := &r.Marks[i]
	switch m.Kind {
	case htmlstrip.ZoneOpen:
		return m.At, markZoneOpen, m.Name
	case htmlstrip.ZoneClose:
		return m.At, markZoneClose, m.Name
	}
	return m.At, markParagraph, ""
}

func (r *strippedResult) orig(start, end int) (int, int) {
	return (*htmlstrip.Result)(r).Orig(start, end)
}

func parseRemoveElements(s string) ([]string, error) {
	return htmlSettingErr(htmlstrip.ParseRemoveElements(s))
}
func parseIndexAttrs(s string) (map[string][]string, error) {
	return htmlSettingErr(htmlstrip.ParseIndexAttrs(s))
}
func parseZones(s string) ([]string, error) { return htmlSettingErr(htmlstrip.ParseZones(s)) }

// htmlSettingErr turns an htmlstrip.SyntaxError into a *SettingError.
func htmlSettingErr[T any](v T, err error) (T, error) {
	var se *htmlstrip.SyntaxError
	if errors.As(err, &se) {
		return v, &SettingError{Setting: se.Setting, Offset: se.Offset, Msg: se.Msg}
	}
	if err != nil {
		return v, &SettingError{Setting: "html_strip", Offset: -1, Msg: err.Error()}
	}
	return v, nil
}
