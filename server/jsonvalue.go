package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/glint-search/glint/sql"
)

// The JSON API reads request bodies into jval trees rather than Go structs:
// a tree keeps the order of members (highlight.fields, sort), knows where
// each value is (its path, such as query.bool.must[1].match, and its byte
// offset), keeps the JSON text of each value (json columns store it), and
// lets every reader refuse an unknown member or a wrong type with an error
// that names the place. Readers turn trees into the sql package's typed
// requests; no untyped map goes further in.

type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

var kindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

// jval is one decoded JSON value.
type jval struct {
	kind jkind
	b    bool
	num  json.Number
	str  string
	arr  []*jval
	obj  []jmember
	path string // where the value is in the request; "" at the top
	off  int64  // byte offset of its first character
	raw  []byte // its JSON text
}

type jmember struct {
	key string
	val *jval
}

// maxJSONDepth bounds the nesting of a request.
const maxJSONDepth = 64

// requestError is a bad request: 400 with the message.
func requestError(format string, args ...any) error {
	return sql.Errorf(sql.CodeSyntax, format, args...)
}

// where names a value's place in an error.
func (v *jval) where() string {
	if v.path == "" {
		return "request"
	}
	return v.path
}

// decodeJSON parses one JSON value (the whole body). Duplicate members,
// nesting deeper than maxJSONDepth and data after the value are errors.
func decodeJSON(body []byte) (*jval, error) {
	d := &jdecoder{dec: json.NewDecoder(bytes.NewReader(body)), body: body}
	d.dec.UseNumber()
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, requestError("the request body is empty: send a JSON object")
	}
	if !utf8.Valid(body) {
		// Go's decoder would put U+FFFD in the place of such bytes
		// without a word, and the text would be kept changed.
		at := sql.NotUTF8At(string(body))
		return nil, requestError("malformed JSON at offset %d: the body is not UTF-8 (0x%02X), which JSON text is", at, body[at])
	}
	if at := loneSurrogate(body); at >= 0 {
		// Go's decoder would put U+FFFD in its place, as for bytes
		// that are not UTF-8.
		return nil, requestError("malformed JSON at offset %d: %s is half of a UTF-16 surrogate pair, which is no character (write the pair, like \\ud83d\\ude00)", at, body[at:at+6])
	}
	v, err := d.value("", 0)
	if err != nil {
		return nil, err
	}
	off := d.dec.InputOffset()
	for off < int64(len(body)) && strings.IndexByte(" \t\r\n", body[off]) >= 0 {
		off++
	}
	if off < int64(len(body)) {
		return nil, requestError("malformed JSON at offset %d: data after the end of the top-level value", off)
	}
	return v, nil
}

// loneSurrogate returns the offset of the first \uXXXX escape that is
// half of a UTF-16 surrogate pair without its other half, or -1. (A
// backslash stands only inside strings in JSON; the decoder refuses the
// body when one stands elsewhere.)
func loneSurrogate(body []byte) int {
	for i := bytes.IndexByte(body, '\\'); i >= 0 && i+1 < len(body); {
		n := 2 // the escape's length
		if r, ok := escapedUnit(body, i); ok && utf16.IsSurrogate(r) {
			if r >= 0xDC00 {
				return i // a low half first
			}
			if low, ok := escapedUnit(body, i+6); !ok || low < 0xDC00 || low > 0xDFFF {
				return i
			}
			n = 12
		}
		next := bytes.IndexByte(body[i+n:], '\\')
		if next < 0 {
			break
		}
		i += n + next
	}
	return -1
}

// escapedUnit reads the escape \uXXXX at body[i:], if it is one.
func escapedUnit(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

type jdecoder struct {
	dec  *json.Decoder
	body []byte
}

// start is the offset of the next value's first character.
func (d *jdecoder) start() int64 {
	off := d.dec.InputOffset()
	for off < int64(len(d.body)) && strings.IndexByte(" \t\r\n,:", d.body[off]) >= 0 {
		off++
	}
	return off
}

func (d *jdecoder) token() (json.Token, error) {
	t, err := d.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			at := int(d.dec.InputOffset()) // (where the token that failed starts)
			for at < len(d.body) && strings.IndexByte(" \t\r\n:,", d.body[at]) >= 0 {
				at++
			}
			if at < len(d.body) && d.body[at] >= utf8.RuneSelf {
				// Go names the first byte of a character that is not
				// ASCII as if it were Latin-1 ('ï' for a byte order
				// mark's 0xEF): name the character sent, at its start.
				r, _ := utf8.DecodeRune(d.body[at:])
				if r == '\uFEFF' {
					return nil, requestError("malformed JSON at offset %d: a byte order mark (U+FEFF), which JSON text does not start with: send the body without it", at)
				}
				return nil, requestError("malformed JSON at offset %d: invalid character %q (U+%04X) where a JSON value or punctuation belongs", at, r, r)
			}
			return nil, requestError("malformed JSON at offset %d: %s", se.Offset, se.Error())
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil, requestError("malformed JSON: the body ends inside a value")
		}
		return nil, requestError("malformed JSON at offset %d: %v", d.dec.InputOffset(), err)
	}
	return t, nil
}

func (d *jdecoder) value(path string, depth int) (*jval, error) {
	off := d.start()
	t, err := d.token()
	if err != nil {
		return nil, err
	}
	v := &jval{path: path, off: off}
	switch x := t.(type) {
	case nil:
		v.kind = jNull
	case bool:
		v.kind, v.b = jBool, x
	case json.Number:
		v.kind, v.num = jNumber, x
	case string:
		v.kind, v.str = jString, x
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, requestError("%s: nested deeper than %d levels", v.where(), maxJSONDepth)
		}
		if x == '[' {
			v.kind = jArray
			for d.dec.More() {
				e, err := d.value(fmt.Sprintf("%s[%d]", path, len(v.arr)), depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
		} else {
			v.kind = jObject
			for d.dec.More() {
				kt, err := d.token()
				if err != nil {
					return nil, err
				}
				key := kt.(string)
				for _, m := range v.obj {
					if m.key == key {
						return nil, requestError("%s: member %q is given twice", v.where(), key)
					}
				}
				sub := key
				if path != "" {
					sub = path + "." + key
				}
				e, err := d.value(sub, depth+1)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, jmember{key, e})
			}
		}
		if _, err := d.token(); err != nil { // the closing delimiter
			return nil, err
		}
	}
	v.raw = d.body[off:d.dec.InputOffset()]
	return v, nil
}

// typeError says that a value is not of the kind wanted.
func (v *jval) typeError(want string) error {
	return requestError("%s: expected %s, got %s", v.where(), want, kindNames[v.kind])
}

// object checks that v is an object whose members are all known, and
// returns them by name.
func (v *jval) object(known ...string) (map[string]*jval, error) {
	if v.kind != jObject {
		return nil, v.typeError("an object")
	}
	out := make(map[string]*jval, len(v.obj))
	for _, m := range v.obj {
		ok := false
		for _, k := range known {
			ok = ok || k == m.key
		}
		switch {
		case !ok && len(known) == 0:
			return nil, requestError("%s: unknown member %q (expected an empty object)", v.where(), m.key)
		case !ok:
			return nil, requestError("%s: unknown member %q (expected one of %s)", v.where(), m.key, strings.Join(known, ", "))
		}
		out[m.key] = m.val
	}
	return out, nil
}

// single checks that v is an object with exactly one member and returns it.
func (v *jval) single(what string) (string, *jval, error) {
	if v.kind != jObject {
		return "", nil, v.typeError("an object")
	}
	if len(v.obj) != 1 {
		return "", nil, requestError("%s: expected one %s, got %d members", v.where(), what, len(v.obj))
	}
	return v.obj[0].key, v.obj[0].val, nil
}

func (v *jval) text() (string, error) {
	if v.kind != jString {
		return "", v.typeError("a string")
	}
	return v.str, nil
}

// integer reads a whole number from lo to hi.
func (v *jval) integer(lo, hi int64) (int64, error) {
	if v.kind != jNumber {
		return 0, v.typeError("an integer")
	}
	n, err := strconv.ParseInt(string(v.num), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(v.num), 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			return 0, requestError("%s: expected an integer, got %s", v.where(), v.num)
		}
		n = int64(f)
	}
	if n < lo || n > hi {
		return 0, requestError("%s: must be from %d to %d, got %d", v.where(), lo, hi, n)
	}
	return n, nil
}

// docID reads a document id: a non-negative integer (or a string of digits,
// which some clients send for 64-bit ids).
func (v *jval) docID() (uint64, error) {
	s := string(v.num)
	if v.kind == jString {
		s = v.str
	} else if v.kind != jNumber {
		return 0, v.typeError("a document id (a non-negative integer)")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil && v.kind == jNumber {
		// A whole number written with a fraction or an exponent (100.0,
		// 1e3), read exactly, as integer members take it.
		if w, ok := wholeNumber(s); ok && w.Sign() >= 0 && w.IsUint64() {
			return w.Uint64(), nil
		}
	}
	if err != nil {
		return 0, requestError("%s: a document id is a non-negative integer below 2^64, got %s", v.where(), v.raw)
	}
	return n, nil
}

// scalar is a JSON value as the sql package takes it: nil, bool, int64,
// uint64, float64, string, or []any of those.
func (v *jval) scalar() (any, error) {
	switch v.kind {
	case jNull:
		return nil, nil
	case jBool:
		return v.b, nil
	case jString:
		return v.str, nil
	case jNumber:
		s := string(v.num)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n, nil
		}
		// A whole number with a fraction or an exponent (1e18, 2.0) is
		// that integer, exactly: as a float, one past 2^53 would round
		// to its neighbour.
		if w, ok := wholeNumber(s); ok {
			if w.IsInt64() {
				return w.Int64(), nil
			}
			if w.IsUint64() {
				return w.Uint64(), nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, requestError("%s: number %s is out of range", v.where(), s)
		}
		return f, nil
	case jArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			if e.kind == jArray || e.kind == jObject {
				return nil, e.typeError("a number or a string")
			}
			x, err := e.scalar()
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	return nil, v.typeError("a number, a string, a boolean or an array")
}

// wholeNumber is the JSON number s (written with a fraction or an
// exponent) as an integer when it is a whole number, read exactly. An
// exponent of more than 40 either way is never taken (a whole number of
// 64 bits needs none; 1e1000000 would take long to read exactly).
func wholeNumber(s string) (*big.Int, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp > 40 || exp < -40 {
			return nil, false
		}
	}
	if len(s) > 100 {
		return nil, false
	}
	q, ok := new(big.Rat).SetString(s)
	if !ok || !q.IsInt() {
		return nil, false
	}
	return q.Num(), true
}

// list reads a value that may be one item or an array of items.
func (v *jval) list() []*jval {
	if v.kind == jArray {
		return v.arr
	}
	return []*jval{v}
}

// isJSONText reports whether s is one JSON value.
func isJSONText(s string) bool { return json.Valid([]byte(s)) }
