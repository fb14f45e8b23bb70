// Package jepsen tests glintd the way Jepsen tests databases: clients run
// operations while a nemesis injects faults, every operation's invocation and
// outcome go into a history, and checkers decide at the end whether the
// history is one the system promised. It is a test tool (cmd/glint-jepsen,
// `make jepsen`, and e2e's TestJepsenShort); the product imports none of it.
//
// The parts, one file each:
//
//   - history.go: Op and History. An operation is invoked, then ends Ok (the
//     server acknowledged it), Fail (it certainly did not happen) or Unknown
//     (a timeout or a broken connection after it was sent: it may have).
//   - register.go: the register workload's checker: REPLACE and SELECT by id,
//     checked for linearizability with porcupine, partitioned per id.
//   - set.go: the set workload's checker: unique INSERTs against a final read
//     of every node: lost (acknowledged, missing), unexpected, and unknown
//     adds that turned out to have happened.
//   - proxy.go: a TCP fault proxy (delay, jitter, loss, one-way cuts,
//     partitions, heal), the stand-in for netem, which this kernel lacks.
//   - cluster.go: the nodes of a run and the Net of proxies between them;
//     node.go runs one glintd on fixed loopback ports (e2e/daemon starts it).
//   - client.go: the workloads' clients and how driver errors become outcomes.
//   - nemesis.go: kill -9, SIGSTOP, partition, one-way cut, wipe, slow and
//     lossy links, a member leaving and joining again, on a seeded schedule.
//   - converge.go: after the faults, every node of a cluster must answer
//     the same searches (WEIGHT() and HIGHLIGHT() included) byte for byte
//     alike over the set's rows, whose bodies are words of a fixed
//     vocabulary.
//   - run.go: one seeded run; summary.go adds runs up; glint.go makes a
//     run's nodes one glintd cluster (Replicated).
//
// One node tests durability (no acknowledged write lost across kill -9) and
// a linearizable register; with Replicated, three or five glintd replicate
// through per-pair fault proxies, and a wiped node or one that left joins
// again through ClusterConfig's Rejoin.
//
// Example:
//
//	res, err := jepsen.Run(ctx, jepsen.Config{
//		Cluster:     jepsen.ClusterConfig{Glintd: "bin/glintd", Nodes: 1, DataDir: dir},
//		Workloads:   []string{jepsen.WorkloadRegister, jepsen.WorkloadSet},
//		Duration:    60 * time.Second,
//		Nemeses:     []string{jepsen.NemesisKill, jepsen.NemesisPause},
//		Seed:        7,
//		CreateTable: jepsen.DefaultCreateTable,
//		Out:         "jepsen-results",
//	})
//	// res.Violations is empty when the run passed; res.Artifacts holds a
//	// failed run's history.jsonl, register.html and node logs.
package jepsen
