package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRunRefusesBadOptions(t *testing.T) {
	good := options{glintd: "main.go", nemeses: "kill,stop", workloads: "register,set", runs: 1, clients: 4, nodes: 1,
		duration: time.Second, opTimeout: time.Second, scale: 1}
	for name, tc := range map[string]struct {
		change func(*options)
		err    string
	}{
		"unknown nemesis":  {func(o *options) { o.nemeses = "kill,flood" }, `unknown nemesis "flood"`},
		"no runs":          {func(o *options) { o.runs = 0 }, "-runs 0: at least 1"},
		"zero scale":       {func(o *options) { o.scale = 0 }, "-scale 0: must be positive"},
		"missing glintd":   {func(o *options) { o.glintd = "no/such/glintd" }, "make build makes bin/glintd"},
		"unknown workload": {func(o *options) { o.workloads = "register,bank" }, `unknown workload "bank"`},
		"wipe on one node": {func(o *options) { o.nemeses = "wipe" }, `nemesis "wipe" needs a cluster`},
		"three nodes":      {func(o *options) { o.nodes = 3 }, "3 nodes need ClusterConfig.PeerArgs"},
	} {
		t.Run(name, func(t *testing.T) {
			o := good
			tc.change(&o)
			_, err := run(context.Background(), o)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
