package sql

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Autocommit answers from the default without systemVariables' map, and
// agrees with it.
func TestAutocommit(t *testing.T) {
	s := newTestSession(t)
	require.Equal(t, truthy(s.systemVariables()["autocommit"]), s.Autocommit())
	require.True(t, s.Autocommit())
	for _, tc := range []struct {
		set  string
		want bool
	}{
		{"SET autocommit=0", false}, {"SET autocommit=1", true}, {"SET @@autocommit = false", false}, {"SET AUTOCOMMIT = true", true},
		{"SET autocommit=OFF", false}, {"SET autocommit=ON", true}, {"SET autocommit='off'", false}, {"SET autocommit = 'ON'", true},
		{"SET SESSION autocommit=Off", false}, {"SET @@autocommit=on", true}, {"SET @@session.autocommit=0", false},
		{"SET autocommit=`on`", true}, {"SET autocommit=FALSE", false}, {"SET autocommit=DEFAULT", true},
		{"SET autocommit=0", false}, {"SET autocommit=1+0", true},
	} {
		mustExec(t, s, tc.set)
		require.Equal(t, tc.want, s.Autocommit(), tc.set)
		v, _ := s.variable("autocommit")
		require.Equal(t, boolValue(tc.want), v, tc.set)
	}
}

// TestSetBooleanRefused: a value MySQL refuses for a boolean variable is
// its error, and the statement sets nothing (the variable before it in the
// same SET included).
func TestSetBooleanRefused(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "SET autocommit=0")
	for _, tc := range []struct {
		set  string
		code Code
		msg  string
	}{
		{"SET autocommit=2", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of '2'"},
		{"SET autocommit='maybe'", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of 'maybe'"},
		{"SET AUTOCOMMIT=maybe", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of 'maybe'"},
		{"SET autocommit=-1", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of '-1'"},
		{"SET autocommit='1'", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of '1'"},
		{"SET autocommit=NULL", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of 'NULL'"},
		{"SET autocommit=@never_set", CodeWrongVariableValue, "Variable 'autocommit' can't be set to the value of 'NULL'"},
		{"SET autocommit=1.0", CodeWrongVariableType, "Incorrect argument type to variable 'autocommit'"},
		{"SET performance_schema = 1", CodeReadOnlyVariable, "Variable 'performance_schema' is a read only variable"},
		{"SET @@session.Version = 'x'", CodeReadOnlyVariable, "Variable 'version' is a read only variable"},
		{"SET sql_notes = 0, port = 1", CodeReadOnlyVariable, "Variable 'port' is a read only variable"},
		{"SET @x=5, autocommit=1, foreign_key_checks='yes'", CodeWrongVariableValue, "Variable 'foreign_key_checks' can't be set to the value of 'yes'"},
		{"SET sql_safe_updates=3", CodeWrongVariableValue, "Variable 'sql_safe_updates' can't be set to the value of '3'"},
	} {
		requireCode(t, s, tc.set, tc.code, tc.msg)
		require.False(t, s.Autocommit(), tc.set)
		require.Nil(t, s.userVars["x"], tc.set)
	}
	number, state := CodeWrongVariableValue.MySQL()
	require.Equal(t, [2]any{uint16(1231), "42000"}, [2]any{number, state})
	number, state = CodeWrongVariableType.MySQL()
	require.Equal(t, [2]any{uint16(1232), "42000"}, [2]any{number, state})
	number, state = CodeReadOnlyVariable.MySQL()
	require.Equal(t, [2]any{uint16(1238), "HY000"}, [2]any{number, state})
	v, _ := s.variable("performance_schema")
	require.Equal(t, int64(0), v, "a refused SET sets nothing")
}

// TestSetBooleanVariables: the other boolean variables take the same
// spellings, read back as 1 or 0, and start at MySQL's defaults, so a
// dump's save and restore of them works.
func TestSetBooleanVariables(t *testing.T) {
	s := newTestSession(t)
	for name, def := range booleanVariables {
		v, ok := s.variable(name)
		require.True(t, ok, name)
		require.Equal(t, def, v, name)
		for _, tc := range []struct {
			value string
			want  int64
		}{{"ON", 1}, {"'off'", 0}, {"TRUE", 1}, {"0", 0}, {"'On'", 1}, {"OFF", 0}} {
			mustExec(t, s, "SET SESSION "+name+" = "+tc.value)
			v, _ := s.variable(name)
			require.Equal(t, tc.want, v, name+"="+tc.value)
		}
		mustExec(t, s, "SET "+name+" = DEFAULT")
		v, _ = s.variable(name)
		require.Equal(t, def, v, name)
	}
	// mysqldump's preamble and epilogue.
	mustExec(t, s, "SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0")
	v, _ := s.variable("foreign_key_checks")
	require.Equal(t, int64(0), v)
	mustExec(t, s, "SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS")
	v, _ = s.variable("foreign_key_checks")
	require.Equal(t, int64(1), v)
}

// COM_FIELD_LIST of a table that does not exist names it as every other
// statement does, without the storage layer's words.
func TestFieldListUnknownTable(t *testing.T) {
	s := newTestSession(t)
	_, err := s.FieldList("nosuch")
	require.EqualError(t, err, "unknown table 'nosuch'")
}
