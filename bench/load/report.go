package load

import (
	"encoding/json"
	"os"
	"slices"
	"time"
)

// Report is what one run measured. Throughput is in Unit per second; MBPerSec
// counts the text (title and content) of the documents inserted or snippeted.
type Report struct {
	Target      Target    `json:"target"`
	Workload    string    `json:"workload"`
	Corpus      string    `json:"corpus"`
	Run         int       `json:"run"`
	Concurrency int       `json:"concurrency"`
	StartedAt   time.Time `json:"started_at"`
	Seconds     float64   `json:"seconds"` // length of the measured phase
	Ops         int64     `json:"ops"`     // statements or requests that succeeded
	Docs        int64     `json:"docs"`    // documents inserted or snippeted
	Bytes       int64     `json:"bytes"`
	Rows        int64     `json:"rows,omitempty"` // rows the answers of those operations held (not counted for json-search+highlight)
	Errors      int64     `json:"errors"`
	FirstError  string    `json:"first_error,omitempty"`
	Unit        string    `json:"unit"` // "docs" or "queries"
	Throughput  float64   `json:"throughput"`
	MBPerSec    float64   `json:"mb_per_s,omitempty"`
	FieldBytes  int64     `json:"field_bytes,omitempty"` // ladder runs: the size of the one document highlighted
	P50Ms       float64   `json:"p50_ms"`
	P99Ms       float64   `json:"p99_ms"`
	// ServerCPUSeconds is the user+system CPU time the server spent during the
	// measured phase, and ServerCPUPerOp that divided by Ops; both 0 without a pid.
	ServerCPUSeconds float64 `json:"server_cpu_s"`
	ServerCPUPerOp   float64 `json:"server_cpu_s_per_op"`
}

// WriteFile writes the report as indented JSON.
func (r *Report) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// finish fills in the derived figures.
func (r *Report) finish(latencies []time.Duration, cpu float64) {
	if r.Seconds > 0 {
		units := float64(r.Ops)
		if r.Unit == "docs" {
			units = float64(r.Docs)
		}
		r.Throughput = units / r.Seconds
		if r.Bytes > 0 {
			r.MBPerSec = float64(r.Bytes) / 1e6 / r.Seconds
		}
	}
	r.P50Ms = percentileMs(latencies, 0.50)
	r.P99Ms = percentileMs(latencies, 0.99)
	r.ServerCPUSeconds = cpu
	if r.Ops > 0 {
		r.ServerCPUPerOp = cpu / float64(r.Ops)
	}
}

// percentileMs is the nearest-rank percentile p (0..1) of d, in milliseconds; it
// sorts d.
func percentileMs(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(p*float64(len(d)) + 0.5)
	i = min(max(i-1, 0), len(d)-1)
	return float64(d[i].Microseconds()) / 1000
}
