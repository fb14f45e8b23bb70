package server

import (
	"testing"

	"github.com/go-mysql-org/go-mysql/client"
	gmysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/stretchr/testify/require"
)

// rawCommand sends one command packet of payload p (the command byte
// first, or nothing) and returns the first packet of the answer.
func rawCommand(t *testing.T, c *client.Conn, p []byte) []byte {
	t.Helper()
	c.ResetSequence()
	require.NoError(t, c.WritePacket(append(make([]byte, 4), p...)))
	data, err := c.ReadPacket()
	require.NoError(t, err)
	return data
}

// errorOf reads an error packet: its code and message.
func errorOf(t *testing.T, data []byte) (uint16, string) {
	t.Helper()
	require.NotEmpty(t, data)
	require.Equal(t, byte(0xff), data[0], "an error packet: % x", data)
	code := uint16(data[1]) | uint16(data[2])<<8
	return code, string(data[9:]) // (after '#' and the five bytes of SQL state)
}

// Commands go-mysql reads wrong or not at all are answered with an error,
// and the connection goes on: an empty command packet (go-mysql indexed
// its first byte and panicked, and the client saw the connection drop),
// COM_SET_OPTION with an option that is not multi-statements on or off.
func TestMalformedCommandsAnswered(t *testing.T) {
	ts := startServer(t, Config{})
	c, err := client.Connect(ts.mysqlAddr, "root", "", "")
	require.NoError(t, err)
	defer c.Close()

	code, msg := errorOf(t, rawCommand(t, c, nil))
	require.Equal(t, uint16(gmysql.ER_MALFORMED_PACKET), code)
	require.Equal(t, "malformed packet: a command packet without its command byte", msg)

	code, msg = errorOf(t, rawCommand(t, c, []byte{0x1b, 5, 0}))
	require.Equal(t, uint16(gmysql.ER_UNKNOWN_COM_ERROR), code)
	require.Equal(t, "COM_SET_OPTION: unknown option 0500 (0 and 1 are multi-statements on and off)", msg)
	require.NotEqual(t, byte(0xff), rawCommand(t, c, []byte{0x1b, 1, 0})[0])

	res, err := c.Execute("select 1")
	require.NoError(t, err)
	v, err := res.GetInt(0, 0)
	require.NoError(t, err)
	require.Equal(t, int64(1), v)
}
