package catalog

import (
	"sort"
	"strings"
)

// Schema is the name of the catalog's schema.
const Schema = "information_schema"

// TableInfo describes one user table for the catalog.
type TableInfo struct {
	Name    string
	Columns []ColumnInfo // in table order, the primary key (id) first
	Rows    int64        // the number of rows, or -1 when unknown
	Options string       // CREATE_OPTIONS: the table's settings, as SHOW CREATE TABLE writes them
	// Distributed: a distributed table, of engine DistributedEngine: its
	// rows are its shards', it has no columns of its own (Columns is
	// empty), and Rows is -1.
	Distributed bool
}

// EngineFormat is the table's ENGINE and ROW_FORMAT (NULL for a
// distributed table), as TABLES and SHOW TABLE STATUS show them.
func (t TableInfo) EngineFormat() (engine, rowFormat any) {
	if t.Distributed {
		return DistributedEngine, nil
	}
	return Engine, "Dynamic"
}

// ColumnInfo describes one column in MySQL's terms.
type ColumnInfo struct {
	Name       string
	DataType   string // DATA_TYPE: bigint, text, varchar, ...
	ColumnType string // COLUMN_TYPE: bigint unsigned, varchar(8192), ...
	Primary    bool   // the primary key (NOT NULL)
	// CharLength is CHARACTER_MAXIMUM_LENGTH for strings (0: not a string);
	// Precision and Scale are NUMERIC_PRECISION and NUMERIC_SCALE for
	// numbers (Precision 0: not a number; Scale -1: NULL, as for a float
	// without digits given).
	CharLength       int64
	Precision, Scale int64
	Comment          string
}

// Catalog names and their defaults.
const (
	Charset   = "utf8mb4"
	Collation = "utf8mb4_general_ci"
	Engine    = "glint"
	// DistributedEngine is a distributed table's engine: MySQL's
	// FEDERATED, the engine of tables whose rows live on other servers
	// (which mysqldump dumps without rows: a restore writes them to the
	// shards).
	DistributedEngine = "FEDERATED"
)

// def is a catalog table's definition: its columns, in MySQL 8.0's order.
type def struct {
	name string
	cols []Column
}

func cols(spec string) []Column {
	var out []Column
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		t := String
		switch typ {
		case "i":
			t = Int
		case "u":
			t = Uint
		}
		out = append(out, Column{Name: name, Type: t})
	}
	return out
}

// defs are the catalog's tables. Those glint has nothing for are present
// and empty, so that tools that read them get their answer.
var defs = []def{
	{"SCHEMATA", cols("CATALOG_NAME SCHEMA_NAME DEFAULT_CHARACTER_SET_NAME DEFAULT_COLLATION_NAME SQL_PATH DEFAULT_ENCRYPTION")},
	{"TABLES", cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME TABLE_TYPE ENGINE VERSION:u ROW_FORMAT TABLE_ROWS:u AVG_ROW_LENGTH:u " +
		"DATA_LENGTH:u MAX_DATA_LENGTH:u INDEX_LENGTH:u DATA_FREE:u AUTO_INCREMENT:u CREATE_TIME UPDATE_TIME CHECK_TIME " +
		"TABLE_COLLATION CHECKSUM:i CREATE_OPTIONS TABLE_COMMENT")},
	{"COLUMNS", cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME ORDINAL_POSITION:u COLUMN_DEFAULT IS_NULLABLE DATA_TYPE " +
		"CHARACTER_MAXIMUM_LENGTH:i CHARACTER_OCTET_LENGTH:i NUMERIC_PRECISION:u NUMERIC_SCALE:u DATETIME_PRECISION:u " +
		"CHARACTER_SET_NAME COLLATION_NAME COLUMN_TYPE COLUMN_KEY EXTRA PRIVILEGES COLUMN_COMMENT GENERATION_EXPRESSION SRS_ID:u")},
	{"STATISTICS", cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME NON_UNIQUE:i INDEX_SCHEMA INDEX_NAME SEQ_IN_INDEX:u COLUMN_NAME " +
		"COLLATION CARDINALITY:i SUB_PART:i PACKED NULLABLE INDEX_TYPE COMMENT INDEX_COMMENT IS_VISIBLE EXPRESSION")},
	{"KEY_COLUMN_USAGE", cols("CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME " +
		"ORDINAL_POSITION:u POSITION_IN_UNIQUE_CONSTRAINT:u REFERENCED_TABLE_SCHEMA REFERENCED_TABLE_NAME REFERENCED_COLUMN_NAME")},
	{"TABLE_CONSTRAINTS", cols("CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_SCHEMA TABLE_NAME CONSTRAINT_TYPE ENFORCED")},
	{"REFERENTIAL_CONSTRAINTS", cols("CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME UNIQUE_CONSTRAINT_CATALOG " +
		"UNIQUE_CONSTRAINT_SCHEMA UNIQUE_CONSTRAINT_NAME MATCH_OPTION UPDATE_RULE DELETE_RULE TABLE_NAME REFERENCED_TABLE_NAME")},
	{"VIEWS", cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME VIEW_DEFINITION CHECK_OPTION IS_UPDATABLE DEFINER SECURITY_TYPE " +
		"CHARACTER_SET_CLIENT COLLATION_CONNECTION")},
	{"ROUTINES", cols("SPECIFIC_NAME ROUTINE_CATALOG ROUTINE_SCHEMA ROUTINE_NAME ROUTINE_TYPE DATA_TYPE CHARACTER_MAXIMUM_LENGTH:i " +
		"CHARACTER_OCTET_LENGTH:i NUMERIC_PRECISION:u NUMERIC_SCALE:u DATETIME_PRECISION:u CHARACTER_SET_NAME COLLATION_NAME " +
		"DTD_IDENTIFIER ROUTINE_BODY ROUTINE_DEFINITION EXTERNAL_NAME EXTERNAL_LANGUAGE PARAMETER_STYLE IS_DETERMINISTIC " +
		"SQL_DATA_ACCESS SQL_PATH SECURITY_TYPE CREATED LAST_ALTERED SQL_MODE ROUTINE_COMMENT DEFINER CHARACTER_SET_CLIENT " +
		"COLLATION_CONNECTION DATABASE_COLLATION")},
	{"PARAMETERS", cols("SPECIFIC_CATALOG SPECIFIC_SCHEMA SPECIFIC_NAME ORDINAL_POSITION:u PARAMETER_MODE PARAMETER_NAME DATA_TYPE " +
		"CHARACTER_MAXIMUM_LENGTH:i CHARACTER_OCTET_LENGTH:i NUMERIC_PRECISION:u NUMERIC_SCALE:i DATETIME_PRECISION:u " +
		"CHARACTER_SET_NAME COLLATION_NAME DTD_IDENTIFIER ROUTINE_TYPE")},
	{"TRIGGERS", cols("TRIGGER_CATALOG TRIGGER_SCHEMA TRIGGER_NAME EVENT_MANIPULATION EVENT_OBJECT_CATALOG EVENT_OBJECT_SCHEMA " +
		"EVENT_OBJECT_TABLE ACTION_ORDER:u ACTION_CONDITION ACTION_STATEMENT ACTION_ORIENTATION ACTION_TIMING " +
		"ACTION_REFERENCE_OLD_TABLE ACTION_REFERENCE_NEW_TABLE ACTION_REFERENCE_OLD_ROW ACTION_REFERENCE_NEW_ROW CREATED SQL_MODE " +
		"DEFINER CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION")},
	{"EVENTS", cols("EVENT_CATALOG EVENT_SCHEMA EVENT_NAME DEFINER TIME_ZONE EVENT_BODY EVENT_DEFINITION EVENT_TYPE EXECUTE_AT " +
		"INTERVAL_VALUE INTERVAL_FIELD SQL_MODE STARTS ENDS STATUS ON_COMPLETION CREATED LAST_ALTERED LAST_EXECUTED " +
		"EVENT_COMMENT ORIGINATOR:u CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION")},
	{"PARTITIONS", cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME PARTITION_NAME SUBPARTITION_NAME PARTITION_ORDINAL_POSITION:u " +
		"SUBPARTITION_ORDINAL_POSITION:u PARTITION_METHOD SUBPARTITION_METHOD PARTITION_EXPRESSION SUBPARTITION_EXPRESSION " +
		"PARTITION_DESCRIPTION TABLE_ROWS:u AVG_ROW_LENGTH:u DATA_LENGTH:u MAX_DATA_LENGTH:u INDEX_LENGTH:u DATA_FREE:u " +
		"CREATE_TIME UPDATE_TIME CHECK_TIME CHECKSUM:i PARTITION_COMMENT NODEGROUP TABLESPACE_NAME")},
	{"FILES", cols("FILE_ID:i FILE_NAME FILE_TYPE TABLESPACE_NAME TABLE_CATALOG TABLE_SCHEMA TABLE_NAME LOGFILE_GROUP_NAME " +
		"LOGFILE_GROUP_NUMBER:i ENGINE FULLTEXT_KEYS DELETED_ROWS:i UPDATE_COUNT:i FREE_EXTENTS:i TOTAL_EXTENTS:i EXTENT_SIZE:i " +
		"INITIAL_SIZE:u MAXIMUM_SIZE:u AUTOEXTEND_SIZE:u CREATION_TIME LAST_UPDATE_TIME LAST_ACCESS_TIME RECOVER_TIME:i " +
		"TRANSACTION_COUNTER:i VERSION:u ROW_FORMAT TABLE_ROWS:u AVG_ROW_LENGTH:u DATA_LENGTH:u MAX_DATA_LENGTH:u " +
		"INDEX_LENGTH:u DATA_FREE:u CREATE_TIME UPDATE_TIME CHECK_TIME CHECKSUM:i STATUS EXTRA")},
	{"ENGINES", cols("ENGINE SUPPORT COMMENT TRANSACTIONS XA SAVEPOINTS")},
	{"CHARACTER_SETS", cols("CHARACTER_SET_NAME DEFAULT_COLLATE_NAME DESCRIPTION MAXLEN:u")},
	{"COLLATIONS", cols("COLLATION_NAME CHARACTER_SET_NAME ID:u IS_DEFAULT IS_COMPILED SORTLEN:u PAD_ATTRIBUTE")},
	{"COLLATION_CHARACTER_SET_APPLICABILITY", cols("COLLATION_NAME CHARACTER_SET_NAME")},
	{"PLUGINS", cols("PLUGIN_NAME PLUGIN_VERSION PLUGIN_STATUS PLUGIN_TYPE PLUGIN_TYPE_VERSION PLUGIN_LIBRARY " +
		"PLUGIN_LIBRARY_VERSION PLUGIN_AUTHOR PLUGIN_DESCRIPTION PLUGIN_LICENSE LOAD_OPTION")},
	{"PROCESSLIST", cols("ID:u USER HOST DB COMMAND TIME:i STATE INFO")},
	{"USER_PRIVILEGES", cols("GRANTEE TABLE_CATALOG PRIVILEGE_TYPE IS_GRANTABLE")},
	{"SCHEMA_PRIVILEGES", cols("GRANTEE TABLE_CATALOG TABLE_SCHEMA PRIVILEGE_TYPE IS_GRANTABLE")},
	{"TABLE_PRIVILEGES", cols("GRANTEE TABLE_CATALOG TABLE_SCHEMA TABLE_NAME PRIVILEGE_TYPE IS_GRANTABLE")},
	{"COLUMN_PRIVILEGES", cols("GRANTEE TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME PRIVILEGE_TYPE IS_GRANTABLE")},
	{"CHECK_CONSTRAINTS", cols("CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME CHECK_CLAUSE")},
	{"KEYWORDS", cols("WORD RESERVED:i")},
	{"GLOBAL_VARIABLES", cols("VARIABLE_NAME VARIABLE_VALUE")},
	{"SESSION_VARIABLES", cols("VARIABLE_NAME VARIABLE_VALUE")},
}

// Collations are the character sets and collations glint speaks: its text
// is UTF-8 and its names compare case-insensitively.
var Collations = []struct {
	Name, Charset string
	ID            uint64
	Default       bool
}{
	{"utf8mb4_general_ci", "utf8mb4", 45, true},
	{"utf8mb4_bin", "utf8mb4", 46, false},
	{"utf8mb4_unicode_ci", "utf8mb4", 224, false},
	{"utf8mb4_0900_ai_ci", "utf8mb4", 255, false},
	{"utf8mb3_general_ci", "utf8mb3", 33, true},
	{"utf8mb3_bin", "utf8mb3", 83, false},
	{"binary", "binary", 63, true},
}

// Charsets are the character sets of Collations, with their descriptions
// and largest character in bytes.
var Charsets = []struct {
	Name, Description string
	MaxLen            uint64
}{
	{"binary", "Binary pseudo charset", 1},
	{"utf8mb3", "UTF-8 Unicode", 3},
	{"utf8mb4", "UTF-8 Unicode", 4},
}

// EngineComment is glint's own row of ENGINES (and SHOW ENGINES);
// DistributedComment the row of DistributedEngine.
const (
	EngineComment      = "glint full-text tables: every statement commits on its own"
	DistributedComment = "glint distributed tables: a query over local tables and other glintd servers"
)

// Information is the data the catalog is built from.
type Information struct {
	Database  string        // the one user database
	Tables    []TableInfo   // its tables
	Variables [][2]string   // GLOBAL_ and SESSION_VARIABLES, name and value
	Processes []ProcessInfo // PROCESSLIST: the server's client connections
}

// ProcessInfo is one row of PROCESSLIST; "" DB or Info is NULL.
type ProcessInfo struct {
	ID                      uint64
	User, Host, DB, Command string
	Time                    int64
	State, Info             string
}

// InformationSchema builds the catalog's tables of info, by upper-case name.
func InformationSchema(info Information) map[string]*Table {
	out := map[string]*Table{}
	for _, d := range defs {
		out[d.name] = &Table{Name: d.name, Columns: d.cols, Rows: [][]any{}}
	}
	add := func(table string, row ...any) { out[table].Rows = append(out[table].Rows, row) }
	for _, s := range []string{Schema, info.Database} {
		add("SCHEMATA", "def", s, Charset, Collation, nil, "NO")
	}
	for _, d := range defs {
		add("TABLES", "def", Schema, d.name, "SYSTEM VIEW", nil, uint64(10), nil, nil, nil, nil, nil, nil, nil, nil,
			nil, nil, nil, "utf8mb3_general_ci", nil, "", "")
	}
	for _, d := range defs {
		for i, c := range SchemaColumns(d.name) {
			var charLen, octets, prec, scale, charset, collation any
			if c.CharLength > 0 {
				charLen, octets, charset, collation = c.CharLength, c.CharLength*3, "utf8mb3", "utf8mb3_general_ci"
			} else {
				prec, scale = uint64(c.Precision), uint64(0)
			}
			add("COLUMNS", "def", Schema, d.name, c.Name, uint64(i+1), nil, "YES", c.DataType, charLen, octets,
				prec, scale, nil, charset, collation, c.ColumnType, "", "", "select", "", "", nil)
		}
	}
	for _, t := range info.Tables {
		var rows any
		if t.Rows >= 0 {
			rows = uint64(t.Rows)
		}
		engine, format := t.EngineFormat()
		add("TABLES", "def", info.Database, t.Name, "BASE TABLE", engine, uint64(10), format, rows, nil, nil, nil, nil,
			nil, nil, nil, nil, nil, Collation, nil, t.Options, "")
		for i, c := range t.Columns {
			var charLen, octets, prec, scale, charset, collation any
			if c.CharLength > 0 {
				charLen, octets, charset, collation = c.CharLength, c.CharLength*4, Charset, Collation
				if c.CharLength*4 < 0 || c.CharLength > 1<<40 || strings.HasSuffix(c.DataType, "text") {
					octets = c.CharLength // (a TEXT type's length is in bytes already, as MySQL tells it)
				}
			}
			if c.Precision > 0 {
				prec = uint64(c.Precision)
				if c.Scale >= 0 {
					scale = uint64(c.Scale)
				}
			}
			nullable, key, privileges := "YES", "", "select,insert,update,references"
			if c.Primary {
				nullable, key = "NO", "PRI"
			}
			add("COLUMNS", "def", info.Database, t.Name, c.Name, uint64(i+1), nil, nullable, c.DataType, charLen, octets,
				prec, scale, nil, charset, collation, c.ColumnType, key, "", privileges, c.Comment, "", nil)
			if c.Primary {
				add("STATISTICS", "def", info.Database, t.Name, int64(0), info.Database, "PRIMARY", uint64(1), c.Name,
					"A", t.Rows, nil, nil, "", "BTREE", "", "", "YES", nil)
				add("KEY_COLUMN_USAGE", "def", info.Database, "PRIMARY", "def", info.Database, t.Name, c.Name,
					uint64(1), nil, nil, nil, nil)
				add("TABLE_CONSTRAINTS", "def", info.Database, "PRIMARY", info.Database, t.Name, "PRIMARY KEY", "YES")
			}
		}
	}
	for _, p := range info.Processes {
		db, info := any(nil), any(nil)
		if p.DB != "" {
			db = p.DB
		}
		if p.Info != "" {
			info = p.Info
		}
		add("PROCESSLIST", p.ID, p.User, p.Host, db, p.Command, p.Time, p.State, info)
	}
	add("ENGINES", Engine, "DEFAULT", EngineComment, "NO", "NO", "NO")
	add("ENGINES", DistributedEngine, "YES", DistributedComment, "NO", "NO", "NO")
	for _, c := range Charsets {
		def := ""
		for _, co := range Collations {
			if co.Charset == c.Name && co.Default {
				def = co.Name
			}
		}
		add("CHARACTER_SETS", c.Name, def, c.Description, c.MaxLen)
	}
	for _, c := range Collations {
		isDefault := ""
		if c.Default {
			isDefault = "Yes"
		}
		add("COLLATIONS", c.Name, c.Charset, c.ID, isDefault, "Yes", uint64(1), "NO PAD") // (trailing spaces count: 'a' <> 'a ')
		add("COLLATION_CHARACTER_SET_APPLICABILITY", c.Name, c.Charset)
	}
	vars := append([][2]string(nil), info.Variables...)
	sort.Slice(vars, func(i, j int) bool { return vars[i][0] < vars[j][0] })
	for _, v := range vars {
		add("GLOBAL_VARIABLES", strings.ToUpper(v[0]), v[1])
		add("SESSION_VARIABLES", strings.ToUpper(v[0]), v[1])
	}
	return out
}

// SchemaColumns describes the columns of the catalog table name (upper
// case) in MySQL's terms, or returns nil for no such table: its strings are
// varchar(64) (names) and its numbers bigint.
func SchemaColumns(name string) []ColumnInfo {
	for _, d := range defs {
		if d.name != name {
			continue
		}
		out := make([]ColumnInfo, len(d.cols))
		for i, c := range d.cols {
			out[i] = ColumnInfo{Name: c.Name, DataType: "varchar", ColumnType: "varchar(64)", CharLength: 64}
			switch c.Type {
			case Int:
				out[i] = ColumnInfo{Name: c.Name, DataType: "bigint", ColumnType: "bigint", Precision: 19}
			case Uint:
				out[i] = ColumnInfo{Name: c.Name, DataType: "bigint", ColumnType: "bigint unsigned", Precision: 20}
			}
		}
		return out
	}
	return nil
}
