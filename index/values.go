package index

import (
	"fmt"
	"math"
	"slices"
)

// normalize checks that v fits column c and returns it in its canonical form:
// nil becomes the column's zero value, a multi set is sorted and deduplicated
// (in a new slice).
func normalize(c *Column, v Value) (Value, error) {
	bad := func(format string, args ...any) error {
		return &ValueError{Column: c.Name, Msg: fmt.Sprintf(format, args...)}
	}
	switch c.Type {
	case TypeText, TypeString, TypeJSON:
		switch v := v.(type) {
		case nil:
			return "", nil
		case string:
			return v, nil
		}
		return nil, bad("want a string, got %T", v)
	case TypeFloat:
		switch v := v.(type) {
		case nil:
			return float64(0), nil
		case float64:
			return v, nil
		}
		return nil, bad("want a float64, got %T", v)
	case TypeUint, TypeTimestamp, TypeBool, TypeBigint:
		var x int64
		switch v := v.(type) {
		case nil:
		case int64:
			x = v
		default:
			return nil, bad("want an int64, got %T", v)
		}
		switch c.Type {
		case TypeUint, TypeTimestamp:
			if x < 0 || x > math.MaxUint32 {
				return nil, bad("%d is out of range 0..%d", x, uint32(math.MaxUint32))
			}
		case TypeBool:
			if x != 0 && x != 1 {
				return nil, bad("%d is not 0 or 1", x)
			}
		}
		return x, nil
	case TypeMulti, TypeMulti64:
		var set []int64
		switch v := v.(type) {
		case nil:
			return []int64(nil), nil
		case []int64:
			set = v
		default:
			return nil, bad("want an []int64, got %T", v)
		}
		if c.Type == TypeMulti {
			for _, x := range set {
				if x < 0 || x > math.MaxUint32 {
					return nil, bad("%d is out of range 0..%d", x, uint32(math.MaxUint32))
				}
			}
		}
		if len(set) == 0 {
			return []int64(nil), nil
		}
		set = slices.Clone(set) // the caller keeps its slice
		if !isStrictlySorted(set) {
			slices.Sort(set)
		}
		return slices.Clip(slices.Compact(set)), nil
	}
	return nil, bad("unknown column type %d", c.Type)
}

func isStrictlySorted(s []int64) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}
