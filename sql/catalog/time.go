package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // CONVERT_TZ's named zones, whatever the host has installed
)

// Date and time functions, as MySQL has them for the values they see here:
// a DATETIME is the text 'YYYY-MM-DD HH:MM:SS[.ffffff]', a TIME the text
// '[-]HH:MM:SS[.ffffff]' (hours past 24 allowed). The server's time zone
// is UTC (@@system_time_zone); a session's is its @@time_zone (Env.Zone). A value that is not what a function takes is
// an error naming the function and the value.

const dateTimeLayout = "2006-01-02 15:04:05"

// timeFunction compiles a date and time function; ok is false for a name
// that is not one. now is the statement's time, in loc, the session's
// time zone.
func timeFunction(name string, args []typed, argc func(lo, hi int) error, now func() time.Time, loc *time.Location) (t typed, ok bool, err error) {
	fn := strings.ToUpper(name)
	call := func(lo, hi int, typ Type, f func(vs []any) (any, error)) (typed, bool, error) {
		if err := argc(lo, hi); err != nil {
			return typed{}, true, err
		}
		return typed{eval: func(c *evalCtx) (any, error) {
			vs := make([]any, len(args))
			for i, a := range args {
				v, err := a.eval(c)
				if err != nil || v == nil {
					return nil, err // NULL in, NULL out
				}
				vs[i] = v
			}
			return f(vs)
		}, typ: typ, known: true}, true, nil
	}
	switch name {
	case "now", "current_timestamp", "localtime", "localtimestamp":
		return call(0, 0, String, func([]any) (any, error) {
			return now().Format(dateTimeLayout), nil
		})
	case "sysdate": // the time of the call, not of the statement, as in MySQL
		return call(0, 0, String, func([]any) (any, error) {
			return time.Now().In(loc).Format(dateTimeLayout), nil
		})
	case "curdate", "current_date":
		return call(0, 0, String, func([]any) (any, error) {
			return now().Format("2006-01-02"), nil
		})
	case "curtime", "current_time":
		return call(0, 0, String, func([]any) (any, error) {
			return now().Format("15:04:05"), nil
		})
	case "utc_timestamp":
		return call(0, 0, String, func([]any) (any, error) {
			return now().UTC().Format(dateTimeLayout), nil
		})
	case "utc_date":
		return call(0, 0, String, func([]any) (any, error) {
			return now().UTC().Format("2006-01-02"), nil
		})
	case "utc_time":
		return call(0, 0, String, func([]any) (any, error) {
			return now().UTC().Format("15:04:05"), nil
		})
	case "unix_timestamp":
		return call(0, 1, Int, func(vs []any) (any, error) {
			if len(vs) == 0 {
				return now().Unix(), nil
			}
			tm, err := dateTimeArg(fn, vs[0])
			// (A date and time is read in the session's time zone.)
			tm = time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), loc)
			return tm.Unix(), err
		})
	case "from_unixtime":
		return call(1, 2, String, func(vs []any) (any, error) {
			n, ok := toFloat(vs[0])
			if !ok {
				return nil, errorf(CodeWrongValue, "FROM_UNIXTIME(): %s is not a number of seconds", quoted(vs[0]))
			}
			tm := time.Unix(0, int64(n*1e9)).In(loc)
			if len(vs) == 1 {
				return tm.Format(dateTimeLayout), nil
			}
			return formatTime(fn, tm, 0, false, toString(vs[1]))
		})
	case "date_format":
		return call(2, 2, String, func(vs []any) (any, error) {
			tm, err := dateTimeArg(fn, vs[0])
			if err != nil {
				return nil, err
			}
			return formatTime(fn, tm, 0, false, toString(vs[1]))
		})
	case "time_format":
		return call(2, 2, String, func(vs []any) (any, error) {
			d, err := timeArg(fn, vs[0])
			if err != nil {
				return nil, err
			}
			return formatTime(fn, time.Time{}, d, true, toString(vs[1]))
		})
	case "timediff":
		return call(2, 2, String, func(vs []any) (any, error) {
			a, aTime := timeValue(vs[0])
			b, bTime := timeValue(vs[1])
			if ta, ok := parseDateTime(vs[0]); ok {
				tb, ok := parseDateTime(vs[1])
				if !ok {
					return nil, errorf(CodeWrongValue, "TIMEDIFF(): %s is not a date and time like %s", quoted(vs[1]), quoted(vs[0]))
				}
				return formatDuration(ta.Sub(tb)), nil
			}
			if !aTime || !bTime {
				return nil, errorf(CodeWrongValue, "TIMEDIFF() takes two times or two dates and times, got %s and %s", quoted(vs[0]), quoted(vs[1]))
			}
			return formatDuration(a - b), nil
		})
	case "date":
		return call(1, 1, String, func(vs []any) (any, error) {
			tm, err := datePartArg(fn, vs[0], loc)
			return tm.Format("2006-01-02"), err
		})
	case "year", "month", "day", "dayofmonth", "hour", "minute", "second", "quarter", "dayofweek", "dayofyear":
		return call(1, 1, Int, func(vs []any) (any, error) {
			tm, err := datePartArg(fn, vs[0], loc)
			if err != nil {
				return nil, err
			}
			return int64(datePart(name, tm)), nil
		})
	case "yearmonth", "yearmonthday":
		// The reference's: YYYYMM and YYYYMMDD as numbers, for grouping
		// by month or day.
		return call(1, 1, Int, func(vs []any) (any, error) {
			tm, err := datePartArg(fn, vs[0], loc)
			if err != nil {
				return nil, err
			}
			n := int64(tm.Year()*100 + int(tm.Month()))
			if name == "yearmonthday" {
				n = n*100 + int64(tm.Day())
			}
			return n, nil
		})
	case "convert_tz":
		return call(3, 3, String, func(vs []any) (any, error) {
			tm, err := dateTimeArg(fn, vs[0])
			if err != nil {
				return nil, err
			}
			from, err := zone(toString(vs[1]))
			if err != nil {
				return nil, err
			}
			to, err := zone(toString(vs[2]))
			if err != nil {
				return nil, err
			}
			local := time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), from)
			out := local.In(to)
			if out.Nanosecond() != 0 {
				return out.Format(dateTimeLayout + ".000000"), nil
			}
			return out.Format(dateTimeLayout), nil
		})
	}
	return typed{}, false, nil
}

func quoted(v any) string { return "'" + toString(v) + "'" }

// datePartArg reads the argument of a function that takes a part of a
// date: a date and time, or, as the reference's YEAR(ts) takes a timestamp
// attribute, a number of seconds since 1970, in the session's time zone.
func datePartArg(fn string, v any, loc *time.Location) (time.Time, error) {
	switch n := v.(type) {
	case int64:
		return time.Unix(n, 0).In(loc), nil
	case uint64:
		return time.Unix(int64(min(n, 1<<62)), 0).In(loc), nil
	case float64:
		return time.Unix(0, int64(n*1e9)).In(loc), nil
	}
	return dateTimeArg(fn, v)
}

// datePart is the part of tm that the function name returns, as MySQL
// numbers it (DAYOFWEEK: 1 for Sunday).
func datePart(name string, tm time.Time) int {
	switch name {
	case "year":
		return tm.Year()
	case "month":
		return int(tm.Month())
	case "quarter":
		return (int(tm.Month())-1)/3 + 1
	case "hour":
		return tm.Hour()
	case "minute":
		return tm.Minute()
	case "second":
		return tm.Second()
	case "dayofweek":
		return int(tm.Weekday()) + 1
	case "dayofyear":
		return tm.YearDay()
	}
	return tm.Day()
}

// parseDateTime reads a DATETIME (or DATE) value.
func parseDateTime(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	s = strings.TrimSpace(s)
	for _, layout := range []string{dateTimeLayout + ".999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm, true
		}
	}
	return time.Time{}, false
}

func dateTimeArg(fn string, v any) (time.Time, error) {
	tm, ok := parseDateTime(v)
	if !ok {
		return time.Time{}, errorf(CodeWrongValue, "%s(): %s is not a date and time ('YYYY-MM-DD HH:MM:SS')", fn, quoted(v))
	}
	return tm, nil
}

// timeValue reads a TIME value: [-]H:MM:SS[.ffffff], hours at most 838.
func timeValue(v any) (time.Duration, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	// MySQL's TIME range: -838:59:59 to 838:59:59.
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || h > 838 || m < 0 || m > 59 || !(sec >= 0 && sec < 60) {
		return 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*1e9)
	if neg {
		d = -d
	}
	return d, true
}

// timeArg reads a TIME, or the time of day of a DATETIME.
func timeArg(fn string, v any) (time.Duration, error) {
	if d, ok := timeValue(v); ok {
		return d, nil
	}
	if tm, ok := parseDateTime(v); ok {
		return tm.Sub(time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)), nil
	}
	return 0, errorf(CodeWrongValue, "%s(): %s is not a time ('HH:MM:SS')", fn, quoted(v))
}

// formatDuration writes a TIME: [-]HH:MM:SS[.ffffff].
func formatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, s)
	if us := int64(d % time.Second / time.Microsecond); us != 0 {
		out += fmt.Sprintf(".%06d", us)
	}
	return out
}

// formatTime renders MySQL's DATE_FORMAT/TIME_FORMAT specifiers: of tm, or
// with isTime of the duration d (TIME_FORMAT, where hours may pass 23 and
// date specifiers are errors).
func formatTime(fn string, tm time.Time, d time.Duration, isTime bool, format string) (string, error) {
	var hour, minute, second, micro int64
	neg := false
	if isTime {
		if d < 0 {
			neg, d = true, -d
		}
		hour, minute, second = int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
		micro = int64(d % time.Second / time.Microsecond)
	} else {
		hour, minute, second, micro = int64(tm.Hour()), int64(tm.Minute()), int64(tm.Second()), int64(tm.Nanosecond()/1000)
	}
	h12 := hour % 12
	if h12 == 0 {
		h12 = 12
	}
	ampm := "AM"
	if hour%24 >= 12 {
		ampm = "PM"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		spec := format[i]
		switch spec {
		case 'H':
			fmt.Fprintf(&b, "%02d", hour)
		case 'k':
			fmt.Fprintf(&b, "%d", hour)
		case 'h', 'I':
			fmt.Fprintf(&b, "%02d", h12)
		case 'l':
			fmt.Fprintf(&b, "%d", h12)
		case 'i':
			fmt.Fprintf(&b, "%02d", minute)
		case 's', 'S':
			fmt.Fprintf(&b, "%02d", second)
		case 'f':
			fmt.Fprintf(&b, "%06d", micro)
		case 'p':
			b.WriteString(ampm)
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", hour, minute, second)
		case 'r':
			fmt.Fprintf(&b, "%02d:%02d:%02d %s", h12, minute, second, ampm)
		case '%':
			b.WriteByte('%')
		default:
			if isTime {
				return "", errorf(CodeWrongValue, "%s(): %%%c is not a time specifier (%%H %%k %%h %%I %%l %%i %%s %%S %%f %%p %%T %%r)", fn, spec)
			}
			if !dateSpecifier(&b, tm, spec) {
				return "", errorf(CodeWrongValue, "%s(): unknown specifier %%%c", fn, spec)
			}
		}
	}
	return b.String(), nil
}

// dateSpecifier writes a date specifier of DATE_FORMAT.
func dateSpecifier(b *strings.Builder, tm time.Time, spec byte) bool {
	switch spec {
	case 'Y':
		fmt.Fprintf(b, "%04d", tm.Year())
	case 'y':
		fmt.Fprintf(b, "%02d", tm.Year()%100)
	case 'm':
		fmt.Fprintf(b, "%02d", int(tm.Month()))
	case 'c':
		fmt.Fprintf(b, "%d", int(tm.Month()))
	case 'd':
		fmt.Fprintf(b, "%02d", tm.Day())
	case 'e':
		fmt.Fprintf(b, "%d", tm.Day())
	case 'M':
		b.WriteString(tm.Month().String())
	case 'b':
		b.WriteString(tm.Month().String()[:3])
	case 'W':
		b.WriteString(tm.Weekday().String())
	case 'a':
		b.WriteString(tm.Weekday().String()[:3])
	case 'j':
		fmt.Fprintf(b, "%03d", tm.YearDay())
	default:
		return false
	}
	return true
}

// zones are the time zones ParseZone read, by name: a name of the IANA
// database costs a read of the embedded database each time otherwise.
var zones sync.Map // string -> *time.Location

// ParseZone reads a time zone as MySQL names one: SYSTEM (the server's:
// UTC), an offset from UTC from '-13:59' to '+14:00', or a name of the
// IANA database ('Europe/Paris', 'UTC'); ok is false for anything else.
func ParseZone(name string) (loc *time.Location, ok bool) {
	if strings.EqualFold(name, "SYSTEM") || strings.EqualFold(name, "UTC") {
		return time.UTC, true
	}
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), true
	}
	if len(name) == 6 && (name[0] == '+' || name[0] == '-') && name[3] == ':' {
		h, err1 := strconv.Atoi(name[1:3])
		m, err2 := strconv.Atoi(name[4:6])
		if err1 != nil || err2 != nil || m > 59 || h*60+m > 14*60 || name[0] == '-' && h > 13 {
			return nil, false
		}
		off := (h*60 + m) * 60
		if name[0] == '-' {
			off = -off
		}
		loc = time.FixedZone(name, off)
	} else {
		var err error
		if loc, err = time.LoadLocation(name); err != nil || name == "" || name == "Local" {
			return nil, false
		}
	}
	zones.Store(name, loc)
	return loc, true
}

// zone is ParseZone for CONVERT_TZ(), whose error names it.
func zone(name string) (*time.Location, error) {
	loc, ok := ParseZone(name)
	if !ok {
		return nil, errorf(CodeWrongValue, "CONVERT_TZ(): unknown time zone '%s' (an offset like '+02:00', 'SYSTEM' or a name like 'Europe/Paris')", name)
	}
	return loc, nil
}
