package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// The distributed stage measures what a distributed table costs (issue 26's
// figures): the same page of 20 highlighted rows from distDocs Brown-sized
// documents, asked of
//
//   - the coordinator's local table t (load.DistLocal);
//   - d1, a distributed table of one agent on 127.0.0.2 holding the same
//     documents as its table whole (load.DistRemote: the family's "remote
//     table", whose cost is its issue 1158);
//   - d4, a distributed table of four agents on 127.0.0.2 to 127.0.0.5, each
//     holding a quarter of the documents as its table part
//     (load.DistAgents: query then fetch).
//
// Five glintd run at once on the same CPUs; the three workloads take turns
// run by run (A/B interleaved, as the machine is shared and noisy).
const (
	distDocs   = 10_000
	distAgents = 4
)

// raceDistributed runs the distributed stage on the Brown documents (cycled
// to distDocs).
func raceDistributed(ctx context.Context, o options, brown []corpus.Doc, conc []int, tmp string) (reports []*load.Report, err error) {
	if len(brown) == 0 {
		return nil, errors.New("distributed: no Brown documents")
	}
	var servers []*server
	defer func() {
		for _, s := range servers {
			if stopErr := s.stop(); err == nil {
				err = stopErr
			}
		}
	}()
	for i := range 1 + distAgents {
		ip := fmt.Sprintf("127.0.0.%d", i+1)
		s, err := startGlintd(ctx, o, load.Glint, tmp, ip, fmt.Sprintf("glintd-distributed-%d.log", i))
		if err != nil {
			return nil, fmt.Errorf("distributed: starting glintd on %s: %w", ip, err)
		}
		servers = append(servers, s)
	}
	coord, agents := servers[0], servers[1:]
	fmt.Printf("glint  brown: distributed: filling the local table, the agent's whole copy and %d parts\n", distAgents)
	if err := load.FillRange(ctx, coord.mysql, load.DistTables[load.DistLocal], brown, 0, distDocs); err != nil {
		return nil, err
	}
	if err := load.FillRange(ctx, agents[0].mysql, "whole", brown, 0, distDocs); err != nil {
		return nil, err
	}
	part := distDocs / distAgents
	for k, a := range agents {
		if err := load.FillRange(ctx, a.mysql, "part", brown, k*part, part); err != nil {
			return nil, err
		}
	}
	four := make([]string, len(agents))
	for k, a := range agents {
		four[k] = "agent='" + a.mysql + ":part'"
	}
	db, err := load.Open(coord.mysql)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, ddl := range []string{
		"CREATE TABLE " + load.DistTables[load.DistRemote] + " type='distributed' agent='" + agents[0].mysql + ":whole'",
		"CREATE TABLE " + load.DistTables[load.DistAgents] + " type='distributed' " + strings.Join(four, " "),
	} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return nil, fmt.Errorf("distributed: %s: %w", ddl, err)
		}
	}

	base := load.Config{
		Target: load.Glint, MySQLAddr: coord.mysql, Corpus: string(corpus.Brown),
		Docs: brown, Queries: corpus.Queries(brown, corpus.DefaultSeed),
		Duration: o.duration, Warmup: o.warmup, ServerPID: coord.pid,
	}
	for _, a := range agents {
		base.OtherPIDs = append(base.OtherPIDs, a.pid) // all five servers' CPU, whichever table is asked
	}
	for _, c := range conc {
		for run := 1; run <= o.runs; run++ {
			for _, wl := range load.DistWorkloads {
				cfg := base
				cfg.Workload, cfg.Concurrency = wl, c
				r, err := runOnce(ctx, cfg, run, tmp)
				if r != nil {
					reports = append(reports, r)
				}
				if err != nil {
					return reports, err
				}
			}
		}
	}
	return reports, nil
}
