package catalog

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		want string
	}{
		{"zero", 0, "00:00:00"},
		{"past a day", 25*time.Hour + 29*time.Minute + 45*time.Second, "25:29:45"},
		{"negative", -(2*time.Hour + 30*time.Minute), "-02:30:00"},
		{"microseconds", time.Second + 1500*time.Microsecond, "00:00:01.001500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, formatDuration(tt.d))
			back, ok := timeValue(tt.want)
			require.True(t, ok)
			require.Equal(t, tt.d, back)
		})
	}
}

func TestZone(t *testing.T) {
	for name, off := range map[string]int{"+05:30": 5*3600 + 1800, "-08:00": -8 * 3600, "SYSTEM": 0, "UTC": 0} {
		loc, err := zone(name)
		require.NoError(t, err, name)
		_, got := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Zone()
		require.Equal(t, off, got, name)
	}
	for _, bad := range []string{"", "Local", "+25:00", "Mars/Olympus", "+5:30"} {
		_, err := zone(bad)
		require.Error(t, err, bad)
	}
}

// FuzzTimeFunctions checks that the time parsers and formatters never
// panic, that a TIME they read is written back as it was read, and that
// formats give valid UTF-8 when given it.
func FuzzTimeFunctions(f *testing.F) {
	for _, s := range [][2]string{
		{"10:00:00", "%H:%i:%s %p"}, {"-838:59:59.5", "%T %r %f"}, {"2026-11-25 12:00:00", "%Y-%m-%d %W %j %%"},
		{"2026-02-30", "%"}, {"", "%x"}, {"99999999999:00:00", "%k"}, {"12:60:00", "é%H"}, {"Europe/Paris", "+14:59"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, value, format string) {
		if d, ok := timeValue(value); ok {
			back, ok := timeValue(formatDuration(d))
			require.True(t, ok, "%q read as %v, written as %q", value, d, formatDuration(d))
			require.Equal(t, d, back)
			out, err := formatTime("TIME_FORMAT", time.Time{}, d, true, format)
			require.True(t, err != nil || !utf8.ValidString(format) || utf8.ValidString(out), "%q", out)
		}
		if tm, ok := parseDateTime(value); ok {
			out, err := formatTime("DATE_FORMAT", tm, 0, false, format)
			require.True(t, err != nil || !utf8.ValidString(format) || utf8.ValidString(out), "%q", out)
		}
		_, _ = zone(value)
		_, _ = timeArg("TIME_FORMAT", value)
	})
}
