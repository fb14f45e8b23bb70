package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// packet returns a physical packet: header (length, seq) and n payload bytes.
func packet(n int, seq byte) []byte {
	p := []byte{byte(n), byte(n >> 8), byte(n >> 16), seq}
	return append(p, make([]byte, n)...)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestPacketGuard(t *testing.T) {
	const limit = 100
	tests := []struct {
		name  string
		input []byte
		chunk int  // feed this many bytes at a time (0: all at once)
		pass  int  // bytes passed on in all (-1: not over)
		done  bool // the oversized packet was read to its end
		seq   byte // sequence id of its last header
	}{
		{"small packets", cat(packet(10, 0), packet(100, 0)), 0, -1, false, 0},
		{"over in one read", cat(packet(10, 0), packet(101, 0)), 0, 14, true, 0},
		{"over, header split across reads", cat(packet(10, 0), packet(101, 0)), 3, 15, true, 0},
		{"over, payload still coming", packet(101, 0)[:50], 0, 0, false, 0},
		{"continued packet", cat(packet(maxPhysical, 0), packet(5, 1)), 0, 0, true, 1},
		{"continued packet ended by an empty one", cat(packet(maxPhysical, 3), packet(0, 4)), 7, 0, true, 4},
		{"at the limit", packet(100, 0), 1, -1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := packetGuard{limit: limit}
			chunk := tt.chunk
			if chunk == 0 {
				chunk = len(tt.input)
			}
			passed, over := 0, false
			for i := 0; i < len(tt.input); i += chunk {
				b := tt.input[i:min(i+chunk, len(tt.input))]
				p, o := g.feed(b)
				if !over {
					passed += p
				}
				over = over || o
			}
			if tt.pass < 0 {
				assert.False(t, over)
				assert.Equal(t, len(tt.input), passed)
				assert.True(t, g.atBoundary())
				return
			}
			assert.True(t, over)
			assert.Equal(t, tt.pass, passed)
			assert.Equal(t, tt.done, g.done())
			if tt.done {
				assert.Equal(t, tt.seq, g.seq)
			}
		})
	}
}
