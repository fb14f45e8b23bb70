package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestStmtCommands: the guard keeps the start of each COM_STMT_EXECUTE by
// the command's ordinal, with whether data was streamed for its statement
// since its last execution; unreadable names an execution that does not
// send its parameter types again and one after long data, and passes one
// that sends them.
func TestStmtCommands(t *testing.T) {
	command := func(seq byte, payload ...byte) []byte {
		n := len(payload)
		return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
	}
	// Two parameters: a null bitmap of one byte, then the flag.
	withTypes := command(0, 0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 8, 0, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0)
	withoutTypes := command(0, 0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0)
	longData := command(0, 0x18, 7, 0, 0, 0, 1, 0, 'x', 'y')
	query := command(0, 0x03, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1')
	var g packetGuard
	g.limit = 1 << 20
	stream := cat(withTypes, query, withoutTypes, longData, withTypes, withTypes)
	for i := 0; i < len(stream); i += 3 { // (the bytes come in pieces)
		g.feed(stream[i:min(i+3, len(stream))])
	}
	for _, c := range []struct {
		ord  int
		want string
	}{{1, ""}, {3, "does not send its parameter types again"}, {5, "COM_STMT_SEND_LONG_DATA"}, {6, ""}} {
		ord, want := c.ord, c.want
		e, ok := g.stmts.execOf(ord)
		require.True(t, ok, "command %d", ord)
		if want == "" {
			require.Empty(t, e.unreadable(2), "command %d", ord)
		} else {
			require.Contains(t, e.unreadable(2), want, "command %d", ord)
		}
	}
	_, ok := g.stmts.execOf(2)
	require.False(t, ok, "a query is no execution, and earlier ones are forgotten")
}
