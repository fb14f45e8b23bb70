package query

import (
	"errors"
	"regexp"
	"strings"
)

// CompileRegex compiles the pattern of REGEX(/pattern/) to match whole
// words: the reference anchors it at both ends (/te.*/ matches "test", not
// "site"). The syntax is RE2's, which Go's regexp reads; case matters, and
// the words it meets are folded (lower case under the default charset).
func CompileRegex(pattern string) (*regexp.Regexp, error) {
	// (The pattern alone first, so that an error quotes it as written.)
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, errors.New("not a regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return regexp.Compile("^(?:" + pattern + ")$")
}
