package jepsen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzReadJSONL: any input is read or refused without a panic, and what is
// read is written and read back the same.
func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"index":0,"process":1,"type":"invoke","f":"write","workload":"register","key":3,"value":9,"node":0,"time":12}` + "\n")
	f.Add(`{"index":-1,"process":-1,"type":"info","f":"nemesis-start","key":0,"value":0,"node":0,"time":5,"nemesis":"kill"}`)
	f.Add("\n\n{}\n")
	f.Add(`{"index": "x"}`)
	f.Fuzz(func(t *testing.T, in string) {
		ops, err := ReadJSONL(strings.NewReader(in))
		if err != nil {
			return
		}
		var b bytes.Buffer
		require.NoError(t, WriteJSONL(&b, ops))
		back, err := ReadJSONL(&b)
		require.NoError(t, err)
		assert.Equal(t, ops, back)
		_, _ = Pairs(ops) // a corrupt history is an error, never a panic
	})
}

// FuzzParseNemeses: a list is read or refused with an error; what is read
// holds known names once each, and reads back the same.
func FuzzParseNemeses(f *testing.F) {
	for _, s := range []string{"kill,stop", "none", "", " partition , cut,wipe", "kill,,stop", "kill,kill"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		names, err := ParseNemeses(in)
		if err != nil || len(names) == 0 {
			return
		}
		back, err := ParseNemeses(strings.Join(names, ","))
		require.NoError(t, err)
		assert.Equal(t, names, back)
	})
}
