// Package zipftext makes texts of made-up words whose frequencies follow
// Zipf's law, as a natural text's do: the documents of the distributed
// benchmarks (sql's in one process, e2e's over five servers), which the
// same seed makes the same in both.
package zipftext

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Words returns a maker of texts: each call gives n words ("w0" to
// "w19999", the first most frequent) joined by spaces, drawn from one
// sequence that the seed fixes.
func Words(seed uint64) func(n int) string {
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, 1)), 1.1, 1, 19999)
	return func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = "w" + strconv.FormatUint(zipf.Uint64(), 10)
		}
		return strings.Join(w, " ")
	}
}
