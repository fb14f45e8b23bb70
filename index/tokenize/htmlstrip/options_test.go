package htmlstrip

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseRemoveElements(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "style, script", want: []string{"style", "script"}},
		{in: " STYLE ; script,,style ", want: []string{"style", "script"}},
		{in: "style script\tmy-tag x:y", want: []string{"style", "script", "my-tag", "x:y"}},
		{in: "a*", err: `htmlstrip: html_remove_elements: unexpected '*', want a tag name at offset 1 near "*"`},
		{in: "style, 1x", err: `htmlstrip: html_remove_elements: unexpected '1', want a tag name at offset 7 near "1x"`},
	}
	for _, tc := range tests {
		got, err := ParseRemoveElements(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, "%q", tc.in)
			assert.True(t, errors.Is(err, ErrSyntax))
			continue
		}
		assert.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestParseZones(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "  ", want: nil},
		{in: "h*, th, title", want: []string{"h*", "th", "title"}},
		{in: "H1,h*,", want: []string{"h1", "h*"}},
		{in: "my_zone , a-b", want: []string{"my_zone", "a-b"}},
		{in: "h*1", err: `htmlstrip: index_zones: unexpected '1', want ',' after a zone name at offset 2 near "1"`},
		{in: "h**", err: `htmlstrip: index_zones: unexpected '*', want ',' after a zone name at offset 2 near "*"`},
		{in: "*", err: `htmlstrip: index_zones: unexpected '*', want a zone name at offset 0 near "*"`},
		{in: "h1 h2", err: `htmlstrip: index_zones: unexpected 'h', want ',' after a zone name at offset 3 near "h2"`},
		{in: "h1;h2", err: `htmlstrip: index_zones: unexpected ';', want ',' after a zone name at offset 2 near ";h2"`},
		{in: ",", err: `htmlstrip: index_zones: unexpected ',', want a zone name at offset 0 near ","`},
		{in: "h1,,h2", err: `htmlstrip: index_zones: unexpected ',', want a zone name at offset 3 near ",h2"`},
	}
	for _, tc := range tests {
		got, err := ParseZones(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, "%q", tc.in)
			continue
		}
		assert.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestParseIndexAttrs(t *testing.T) {
	tests := []struct {
		in   string
		want map[string][]string
		err  string
	}{
		{in: "", want: nil},
		{in: "img=alt,title; a=title;", want: map[string][]string{"img": {"alt", "title"}, "a": {"title"}}},
		{in: " IMG = ALT , title ; a = title ", want: map[string][]string{"img": {"alt", "title"}, "a": {"title"}}},
		{in: "img=alt; img=title,alt", want: map[string][]string{"img": {"alt", "title"}}},
		{in: "img=data-x", want: map[string][]string{"img": {"data-x"}}},
		{in: "img=", want: nil},
		{in: "img", err: `htmlstrip: html_index_attrs: want '=' after tag name img at end of "img"`},
		{in: "=alt", err: `htmlstrip: html_index_attrs: unexpected '=', want a tag name at offset 0 near "=alt"`},
		{in: "img=alt;;a=title", err: `htmlstrip: html_index_attrs: unexpected ';', want a tag name at offset 8 near ";a=title"`},
		{in: "img=alt title", err: `htmlstrip: html_index_attrs: unexpected 't', want ',' or ';' at offset 8 near "title"`},
		{in: "img=alt;a", err: `htmlstrip: html_index_attrs: want '=' after tag name a at end of "img=alt;a"`},
		{in: "img=alt,;", err: `htmlstrip: html_index_attrs: want an attribute name after ',' at offset 8 near ";"`},
		{in: "img=alt,", err: `htmlstrip: html_index_attrs: want an attribute name after ',' at end of "img=alt,"`},
	}
	for _, tc := range tests {
		got, err := ParseIndexAttrs(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, "%q", tc.in)
			continue
		}
		assert.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}
