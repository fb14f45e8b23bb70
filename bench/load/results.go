package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// Summary is a race's results file (bench/results/<timestamp>.json): every
// run's report and the medians the table and the charts are drawn from.
type Summary struct {
	StartedAt time.Time `json:"started_at"`
	Quick     bool      `json:"quick"`
	CPUs      int       `json:"cpus"`
	Machine   string    `json:"machine,omitempty"` // CPU model, OS/arch: where the figures come from
	Notes     []string  `json:"notes,omitempty"`   // targets skipped and why
	Sizes     []Size    `json:"sizes,omitempty"`
	Reports   []*Report `json:"reports"`
	Medians   []Median  `json:"medians"`
}

// Size is what a server keeps on disk after the corpus was loaded once into
// a fresh table: its data directory (the index and the stored text), in
// blocks allocated, against the corpus's text (titles and contents).
type Size struct {
	Target    Target `json:"target"`
	Corpus    string `json:"corpus"`
	Docs      int    `json:"docs"`
	RawBytes  int64  `json:"raw_bytes"`
	DiskBytes int64  `json:"disk_bytes"`
}

// Median is one cell of the table: the median run of a target on a corpus,
// workload and concurrency (and, for the ladder, field size).
type Median struct {
	Target      Target  `json:"target"`
	Corpus      string  `json:"corpus"`
	Workload    string  `json:"workload"`
	Concurrency int     `json:"concurrency"`
	FieldBytes  int64   `json:"field_bytes,omitempty"`
	Unit        string  `json:"unit"`
	Throughput  float64 `json:"throughput"`
	MBPerSec    float64 `json:"mb_per_s,omitempty"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	CPUPerOp    float64 `json:"server_cpu_s_per_op"`
	Runs        int     `json:"runs"`
	Ops         int64   `json:"ops"` // operations that succeeded, over all runs
	// RowsPerOp is the mean number of rows an operation's answer held in the
	// median run: with the same queries on every target, it shows whether
	// they did the same work (0 for the workloads that return nothing, and
	// for json-search+highlight, whose answers are not parsed).
	RowsPerOp  float64 `json:"rows_per_op,omitempty"`
	Errors     int64   `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
}

// Failed says that no operation of any run succeeded: the target does not
// support the workload (yet), or it broke.
func (m Median) Failed() bool { return m.Ops == 0 && m.Errors > 0 }

// FailureLabel is what the table and the charts show for a target that ran a
// workload and failed it: glint's failures are capabilities it does not have
// yet ("not supported yet"); a peer's are failures ("failed").
func FailureLabel(t Target) string {
	if IsGlint(t) {
		return "not supported yet"
	}
	return "failed"
}

// Medians groups reports by target, corpus, workload, concurrency and field size,
// in the order the groups first appear, and takes the run with the median
// throughput of each group.
func Medians(reports []*Report) []Median {
	type key struct {
		target           Target
		corpus, workload string
		c                int
		field            int64
	}
	groups := map[key][]*Report{}
	var order []key
	for _, r := range reports {
		k := key{r.Target, r.Corpus, r.Workload, r.Concurrency, r.FieldBytes}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]Median, 0, len(order))
	for _, k := range order {
		g := slices.Clone(groups[k])
		slices.SortStableFunc(g, func(a, b *Report) int { return cmp.Compare(a.Throughput, b.Throughput) })
		m := g[len(g)/2]
		med := Median{Target: k.target, Corpus: k.corpus, Workload: k.workload, Concurrency: k.c,
			FieldBytes: k.field, Unit: m.Unit, Throughput: m.Throughput, MBPerSec: m.MBPerSec,
			P50Ms: m.P50Ms, P99Ms: m.P99Ms, CPUPerOp: m.ServerCPUPerOp, Runs: len(g)}
		if m.Ops > 0 {
			med.RowsPerOp = float64(m.Rows) / float64(m.Ops)
		}
		for _, r := range groups[k] {
			med.Ops += r.Ops
			med.Errors += r.Errors
			if med.FirstError == "" {
				med.FirstError = r.FirstError
			}
		}
		out = append(out, med)
	}
	return out
}

// AbsentLabel says why a target has no median for a workload: a workload the
// target has no counterpart of (json-search+highlight needs glint's HTTP
// JSON API, the distributed workloads its distributed tables), or else one the race did not run there ("not run").
func AbsentLabel(t Target, workload string) string {
	if (workload == Distributed || IsDistributed(workload)) && !IsGlint(t) {
		return "glint's distributed tables"
	}
	if workload == JSONSearchHL {
		switch t {
		case Sphinx:
			return "no HTTP API"
		case Postgres:
			return "no HTTP JSON API"
		case SQLite:
			return "a library: no HTTP API"
		}
	}
	return "not run"
}

// ReadSummary reads a results file.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("load: %s: %w", path, err)
	}
	return &s, nil
}
