package load

import (
	"fmt"
	"time"

	"github.com/glint-search/glint/bench/corpus"
)

// Target names the kind of server under test: their SQL differs in table setup
// and highlighting.
type Target string

// The targets.
const (
	Glint  Target = "glint"
	Sphinx Target = "sphinx" // Sphinx 2.2.11 with the indexes of scripts/sphinx.sh
	// Bleve is the Go library driven in-process by bench/bleve (its own module):
	// no protocol or network cost, so a ceiling for a server rather than a peer
	// figure. Run cannot drive it; its reports come from RunInProcess.
	Bleve Target = "bleve (in-process, no protocol cost)"
	// GlintStem is glintd with the table created with morphology='stem_en',
	// the counterpart of the peers that stem (PostgreSQL, SQLite FTS5).
	GlintStem Target = "glint stem_en"
	// Postgres is PostgreSQL's full-text search (tsvector, GIN, ts_headline),
	// driven by bench/peers (its own module) through its own protocol.
	Postgres Target = "postgres"
	// SQLite is SQLite's FTS5 driven in-process by bench/peers: like Bleve,
	// no protocol or network cost.
	SQLite Target = "sqlite fts5 (in-process, no protocol cost)"
)

// IsGlint says that t is glintd, with either table setting.
func IsGlint(t Target) bool { return t == Glint || t == GlintStem }

// The workloads.
const (
	Insert             = "load"                  // INSERT batches of BatchSize documents into an emptied table
	Search             = "search"                // SELECT id ... WHERE MATCH(?) LIMIT 20
	SearchHL           = "search+highlight"      // the same with highlighted text (Sphinx: its stored index)
	Snippets           = "snippets"              // CALL SNIPPETS over SnippetDocs documents, limit 256
	SnippetsNoLimit    = "snippets-limit0"       // the same with 0 AS limit: whole documents, marked
	JSONSearchHL       = "json-search+highlight" // POST /search with "highlight": {} (glint only)
	Ladder             = "ladder"                // CALL SNIPPETS over the one document of Docs (a rung of the field-size ladder)
	GroupBy            = "groupby"               // SELECT gid, COUNT(*) ... WHERE MATCH(?) GROUP BY gid ORDER BY COUNT(*) DESC
	Facet              = "facet"                 // a search and two facets of it: glint's FACET, Sphinx's three statements in one query
	DefaultTable       = "t"
	StoredTable        = "t_stored" // Sphinx's index that keeps content as a string attribute
	DefaultBatch       = 1000
	DefaultSnippetDocs = 10
)

// Distributed is the race's distributed-table stage (glint only): the
// search+highlight statement (HIGHLIGHT(), LIMIT 20) on a local table
// (DistLocal), through a distributed table of one remote agent holding the
// same documents (DistRemote), and through one of four agents each holding
// a quarter of them (DistAgents); the three interleaved run by run.
const (
	Distributed = "distributed"
	DistLocal   = "distributed: local table"
	DistRemote  = "distributed: 1 remote agent"
	DistAgents  = "distributed: 4 agents"
)

// Workloads lists every workload in the order a race runs them.
var Workloads = []string{Insert, Search, SearchHL, Snippets, SnippetsNoLimit, JSONSearchHL, GroupBy, Facet, Distributed, Ladder}

// DistWorkloads are the three workloads of the Distributed stage, in its
// order, and DistTables the table each searches on the coordinator.
var (
	DistWorkloads = []string{DistLocal, DistRemote, DistAgents}
	DistTables    = map[string]string{DistLocal: DefaultTable, DistRemote: "d1", DistAgents: "d4"}
)

// IsDistributed says that a workload is one of the Distributed stage's.
func IsDistributed(workload string) bool { return DistTables[workload] != "" }

// UnitOf is the unit a workload's throughput is counted in: "docs" for the
// workloads that insert or highlight given documents, "queries" for searches.
func UnitOf(workload string) string {
	switch workload {
	case Insert, Snippets, SnippetsNoLimit, Ladder:
		return "docs"
	}
	return "queries"
}

// Config is one benchmark run's setting.
type Config struct {
	Target      Target
	Workload    string
	MySQLAddr   string // host:port of the MySQL protocol listener
	HTTPAddr    string // host:port of glint's HTTP listener (json-search+highlight)
	Corpus      string // the corpus's name, for the report
	Docs        []corpus.Doc
	Queries     []corpus.Query
	Concurrency int           // workers, one connection each; default 1
	Duration    time.Duration // measured phase; default 10 s
	Warmup      time.Duration // uncounted phase before it; 0 for none
	BatchSize   int           // documents per INSERT; default DefaultBatch
	SnippetDocs int           // documents per CALL SNIPPETS; default DefaultSnippetDocs
	ServerPID   int           // the server's process id, for its CPU time; 0 for none
	// OtherPIDs are more processes whose CPU time is the server's: the
	// agents of a distributed table.
	OtherPIDs []int
}

func (c *Config) setDefaults() error {
	if !IsGlint(c.Target) && c.Target != Sphinx {
		return fmt.Errorf("load: unknown target %q (want %s, %s or %s)", c.Target, Glint, GlintStem, Sphinx)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatch
	}
	if c.SnippetDocs <= 0 {
		c.SnippetDocs = DefaultSnippetDocs
	}
	if len(c.Docs) == 0 {
		return fmt.Errorf("load: no documents")
	}
	if c.Workload == Ladder && len(c.Docs) != 1 {
		return fmt.Errorf("load: workload %s highlights one document; got %d", Ladder, len(c.Docs))
	}
	if c.Workload != Insert && len(c.Queries) == 0 {
		return fmt.Errorf("load: workload %s needs queries", c.Workload)
	}
	return nil
}
