package server

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSON(t *testing.T) {
	for _, c := range []struct {
		name, in, err string
	}{
		{"empty", "  ", "the request body is empty: send a JSON object"},
		{"unclosed", `{"a": [1, 2}`, "malformed JSON at offset 11: invalid character '}' after array element"},
		{"truncated", `{"a": `, "malformed JSON: the body ends inside a value"},
		{"trailing", `{} {}`, "malformed JSON at offset 3: data after the end of the top-level value"},
		{"duplicate", `{"a": {"b": 1, "b": 2}}`, `a: member "b" is given twice`},
		{"latin1", "{\"title\": \"caf\xe9\"}", "malformed JSON at offset 14: the body is not UTF-8 (0xE9), which JSON text is"},
		{"cut sequence", "{\"t\": \"\xc3\"}", "malformed JSON at offset 7: the body is not UTF-8 (0xC3), which JSON text is"},
		{"lone high surrogate", `{"title": "a\ud800b"}`, `malformed JSON at offset 12: \ud800 is half of a UTF-16 surrogate pair, which is no character (write the pair, like \ud83d\ude00)`},
		{"lone low surrogate", `{"t": ["x", "\uDC00"]}`, `malformed JSON at offset 13: \uDC00 is half of a UTF-16 surrogate pair, which is no character (write the pair, like \ud83d\ude00)`},
		{"high then high", `{"t": "\ud83d\ud83d"}`, `malformed JSON at offset 7: \ud83d is half of a UTF-16 surrogate pair, which is no character (write the pair, like \ud83d\ude00)`},
		{"deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 64 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeJSON([]byte(c.in))
			require.EqualError(t, err, c.err)
		})
	}
	// A pair is one character, and an escaped backslash is no escape.
	v, err := decodeJSON([]byte(`{"t": "\ud83d\ude00 \\ud800"}`))
	require.NoError(t, err)
	x, err := v.obj[0].val.scalar()
	require.NoError(t, err)
	require.Equal(t, "\U0001F600 \\ud800", x)
	v, err = decodeJSON([]byte(` {"b": [1, "x", {"c": null}], "a": 2.5e0}`))
	require.NoError(t, err)
	require.Equal(t, "b", v.obj[0].key)
	require.Equal(t, "b[2].c", v.obj[0].val.arr[2].obj[0].val.path)
	require.Equal(t, `{"c": null}`, string(v.obj[0].val.arr[2].raw))
	require.Equal(t, int64(1), v.off)
	x, err = v.obj[1].val.scalar()
	require.NoError(t, err)
	require.Equal(t, 2.5, x)
}

func TestObjectMembers(t *testing.T) {
	v, err := decodeJSON([]byte(`{"match_all": {"x": 1}, "sort": {"order": "asc", "mode": "min"}}`))
	require.NoError(t, err)
	_, err = v.obj[0].val.object()
	require.EqualError(t, err, `match_all: unknown member "x" (expected an empty object)`)
	_, err = v.obj[1].val.object("order")
	require.EqualError(t, err, `sort: unknown member "mode" (expected one of order)`)
}

// FuzzJSONRequests: no body makes the request readers panic or hang, and
// every error names a place or says what is malformed.
func FuzzJSONRequests(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "e2e", "testdata", "http", "*.txt"))
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "{") {
				f.Add(line)
			}
		}
	}
	f.Add(`{"table":"t","query":{"bool":{"must":[{"match":{"*":"a"}}]}},"highlight":{"fields":{"a":{"limit":1}}}}`)
	f.Fuzz(func(t *testing.T, body string) {
		v, err := decodeJSON([]byte(body))
		if err != nil {
			return
		}
		_, _ = searchRequest(v)
		for _, k := range []writeKind{writeInsert, writeReplace, writeUpdate, writeDelete} {
			_, _ = readWrite(k, v)
		}
		_, _ = bulkAction([]byte(body))
	})
}

// TestDecodeJSONNonASCIIError: a character that is not ASCII where JSON
// has none is named as sent, at its own offset; a byte order mark is
// named as one.
func TestDecodeJSONNonASCIIError(t *testing.T) {
	_, err := decodeJSON([]byte("\xef\xbb\xbf{\"a\":1}"))
	require.EqualError(t, err, "malformed JSON at offset 0: a byte order mark (U+FEFF), which JSON text does not start with: send the body without it")
	_, err = decodeJSON([]byte(`{"a": é}`))
	require.EqualError(t, err, "malformed JSON at offset 6: invalid character 'é' (U+00E9) where a JSON value or punctuation belongs")
	_, err = decodeJSON([]byte(`{"a":1, ü:2}`))
	require.EqualError(t, err, "malformed JSON at offset 8: invalid character 'ü' (U+00FC) where a JSON value or punctuation belongs")
}

// TestDocIDWholeNumbers: an id written as a whole number with a fraction
// or an exponent is that number, read exactly (as a float, one past 2^53
// rounded to its neighbour); a fraction, a negative number or one past
// 2^64 written so is refused.
func TestDocIDWholeNumbers(t *testing.T) {
	for text, want := range map[string]uint64{`100.0`: 100, `1e3`: 1000, `"77"`: 77, `18446744073709551615`: math.MaxUint64,
		`9007199254740993.0`: 9007199254740993, `1e17`: 100000000000000000, `18446744073709551615.00`: math.MaxUint64} {
		v, err := decodeJSON([]byte(text))
		require.NoError(t, err)
		id, err := v.docID()
		require.NoError(t, err, text)
		assert.Equal(t, want, id, text)
	}
	for _, text := range []string{`1.5`, `-1`, `1e20`, `-0.5`, `18446744073709551616.0`, `1e100000000`, `9007199254740993.5`} {
		v, err := decodeJSON([]byte(text))
		require.NoError(t, err)
		_, err = v.docID()
		require.ErrorContains(t, err, "a document id is a non-negative integer below 2^64", text)
	}
	// Attribute values alike: exact integers, floats only when not whole.
	for text, want := range map[string]any{`9007199254740993.0`: int64(9007199254740993), `1e18`: int64(1000000000000000000),
		`18446744073709551615.0`: uint64(math.MaxUint64), `2.5`: 2.5, `1e300`: 1e300} {
		v, err := decodeJSON([]byte(text))
		require.NoError(t, err)
		x, err := v.scalar()
		require.NoError(t, err, text)
		assert.Equal(t, want, x, text)
	}
}
