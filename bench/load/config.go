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
)

// The workloads.
const (
	Insert             = "load"                  // INSERT batches of BatchSize documents into an emptied table
	Search             = "search"                // SELECT id ... WHERE MATCH(?) LIMIT 20
	SearchHL           = "search+highlight"      // the same with highlighted text (Sphinx: its stored index)
	Snippets           = "snippets"              // CALL SNIPPETS over SnippetDocs documents, limit 256
	JSONSearchHL       = "json-search+highlight" // POST /search with "highlight": {} (glint only)
	DefaultTable       = "t"
	StoredTable        = "t_stored" // Sphinx's index that keeps content as a string attribute
	DefaultBatch       = 1000
	DefaultSnippetDocs = 20
)

// Workloads lists every workload in the order a race runs them.
var Workloads = []string{Insert, Search, SearchHL, Snippets, JSONSearchHL}

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
}

func (c *Config) setDefaults() error {
	if c.Target != Glint && c.Target != Sphinx {
		return fmt.Errorf("load: unknown target %q (want glint or sphinx)", c.Target)
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
	if c.Workload != Insert && len(c.Queries) == 0 {
		return fmt.Errorf("load: workload %s needs queries", c.Workload)
	}
	return nil
}
