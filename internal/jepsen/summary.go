package jepsen

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary adds up runs.
type Summary struct {
	Runs, Passed           int
	Ops, Ok, Fail, Unknown int
	LostWrites             int // acknowledged adds lost, over the runs
	Unexpected             int // ids that appeared without a successful or unknown add
	RecoveredUnknown       int
	NonLinearizable        int // runs whose register history is not linearizable
	Inconclusive           int // runs porcupine could not decide in time
	ConvergeChecked        int // cluster runs whose nodes were asked the convergence queries
	Diverged               int // and answered some of them differently
	Faults                 map[string]int
	Failovers              []time.Duration
	Restarts               []time.Duration
	FailedSeeds            []int64
	Artifacts              []string
}

// Summarize adds up results.
func Summarize(results []*Result) Summary {
	s := Summary{Faults: map[string]int{}}
	for _, r := range results {
		s.Runs++
		if len(r.Violations) == 0 {
			s.Passed++
		} else {
			s.FailedSeeds = append(s.FailedSeeds, r.Seed)
			if r.Artifacts != "" {
				s.Artifacts = append(s.Artifacts, r.Artifacts)
			}
		}
		s.Ops += r.Ops
		s.Ok += r.Ok
		s.Fail += r.Fail
		s.Unknown += r.Unkn
		s.LostWrites += r.LostWrites()
		for _, set := range r.Sets {
			s.Unexpected += len(set.Unexpected)
		}
		if len(r.Sets) > 0 {
			s.RecoveredUnknown += r.Sets[0].RecoveredUnknown
		}
		if r.Register != nil {
			if r.Register.Inconclusive {
				s.Inconclusive++
			} else if !r.Register.Linearizable {
				s.NonLinearizable++
			}
		}
		if r.ConvergeChecked {
			s.ConvergeChecked++
			if !r.Converged {
				s.Diverged++
			}
		}
		for name, n := range r.Faults {
			s.Faults[name] += n
		}
		s.Failovers = append(s.Failovers, r.Failovers...)
		s.Restarts = append(s.Restarts, r.Restarts...)
	}
	return s
}

// OK reports whether every run passed.
func (s Summary) OK() bool { return s.Runs > 0 && s.Passed == s.Runs }

// Percentile returns the p-th percentile (0-100) of the failover times, the
// nearest rank; 0 with none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Write prints the summary as a table.
func (s Summary) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var faults []string
	for name, n := range s.Faults {
		faults = append(faults, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(faults)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
	rows := [][2]string{
		{"runs", fmt.Sprintf("%d (%d passed)", s.Runs, s.Passed)},
		{"operations", fmt.Sprintf("%d: %d ok, %d fail, %d unknown", s.Ops, s.Ok, s.Fail, s.Unknown)},
		{"faults", strings.Join(faults, ", ")},
		{"lost acknowledged writes", fmt.Sprint(s.LostWrites)},
		{"unexpected ids", fmt.Sprint(s.Unexpected)},
		{"unknown adds that happened", fmt.Sprint(s.RecoveredUnknown)},
		{"linearizability violations", fmt.Sprintf("%d (%d undecided)", s.NonLinearizable, s.Inconclusive)},
		{"nodes diverged (convergence)", fmt.Sprintf("%d of %d cluster runs", s.Diverged, s.ConvergeChecked)},
		{"failover (kill -9 to next ack)", fmt.Sprintf("n=%d p50 %s p99 %s max %s, %d over %v", len(s.Failovers),
			ms(Percentile(s.Failovers, 50)), ms(Percentile(s.Failovers, 99)), ms(Percentile(s.Failovers, 100)),
			s.FailoversOver(FailoverBound), FailoverBound)},
		{"restart (kill -9 to ready)", fmt.Sprintf("n=%d p50 %s p99 %s max %s", len(s.Restarts),
			ms(Percentile(s.Restarts, 50)), ms(Percentile(s.Restarts, 99)), ms(Percentile(s.Restarts, 100)))},
	}
	if len(s.FailedSeeds) > 0 {
		rows = append(rows, [2]string{"failed seeds", fmt.Sprint(s.FailedSeeds)})
	}
	for _, a := range s.Artifacts {
		rows = append(rows, [2]string{"history and HTML", a})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

// FailoverBound is the longest a failover (kill -9 of the leader to the
// next acknowledged write) should take. With a hundred failovers in a
// campaign the p99 is its slowest one or two, so the summary also counts
// those over the bound.
const FailoverBound = 2 * time.Second

// FailoversOver is the number of failovers that took longer than d.
func (s *Summary) FailoversOver(d time.Duration) int {
	n := 0
	for _, f := range s.Failovers {
		if f > d {
			n++
		}
	}
	return n
}
