package jepsen

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Convergence: once the faults are healed, every node of a cluster holds
// the same documents, so every search answers alike on every node, bytes
// and all: the rows, their order (weights included) and the snippets that
// HIGHLIGHT() cuts. The set workload's rows carry a body of words drawn
// from vocab (bodyOf), which the queries of convergeQueries search.

// vocab is the words of the set's bodies: common English words, so that
// searches match many rows and a few match in phrases.
var vocab = strings.Fields(`the jury said an investigation of recent election produced
no evidence that any irregularities took place city executive committee had charge
deserves praise thanks manner which was conducted term end presentments grand county
friday primary atlanta fulton further over all both election new law would help
state department many more than some local people who could work home`)

// bodyOf is the text of set row id: 6 to 13 words of vocab, the same for
// the same id on every run.
func bodyOf(id int64) string {
	x := uint64(id)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	next := func() uint64 {
		x ^= x >> 29
		x *= 0xBF58476D1CE4E5B9
		x ^= x >> 32
		return x
	}
	n := 6 + int(next()%8)
	words := make([]string, n)
	for i := range words {
		words[i] = vocab[next()%uint64(len(vocab))]
	}
	return strings.Join(words, " ")
}

// convergeQueries are the searches every node must answer alike on table
// (each ending with option, the read option that makes a node catch up
// first).
func convergeQueries(table, option string) []string {
	var qs []string
	for _, m := range []string{"election", "jury | city", `"the city"`, "evidence -law", "county state"} {
		qs = append(qs, fmt.Sprintf("SELECT id, WEIGHT(), HIGHLIGHT({limit=60}) FROM %s WHERE MATCH('%s') ORDER BY WEIGHT() DESC, id ASC LIMIT 40%s",
			table, strings.ReplaceAll(m, `'`, `\'`), option))
	}
	qs = append(qs, fmt.Sprintf("SELECT COUNT(*), SUM(v), MIN(id), MAX(id) FROM %s%s", table, option))
	return qs
}

// checkConverged asks every node the convergence queries and returns a
// violation for each answer that differs from node 0's, and the first
// error that kept a node from answering.
func checkConverged(ctx context.Context, c *Cluster, table, option string) ([]string, error) {
	var violations []string
	for _, q := range convergeQueries(table, option) {
		var want string
		for i := range c.Nodes {
			var got string
			err := retry(ctx, 60*time.Second, func(ctx context.Context) error {
				var err error
				got, err = answer(ctx, c.ClientAddr(i), q)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("jepsen: convergence query on node %d: %s: %w", i, q, err)
			}
			if i == 0 {
				want = got
				continue
			}
			if got != want {
				violations = append(violations, "converge: "+difference(q, want, got, i))
			}
		}
	}
	return violations, nil
}

// answer is a query's rows as text, a row a line, columns by tabs.
func answer(ctx context.Context, addr, q string) (string, error) {
	db, err := openDB(addr, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer func() { _ = db.Close() }()
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(qctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v.Valid {
				b.WriteString(v.String)
			} else {
				b.WriteString("NULL")
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// difference says where node i's answer to q first differs from node 0's.
func difference(q, want, got string, i int) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	line := func(l []string) string {
		if k < len(l)-1 { // (the last is the empty string after the last line)
			return fmt.Sprintf("%q", l[k])
		}
		return "(no row)"
	}
	return fmt.Sprintf("node %d answers %s unlike node 0 (%d rows against %d); first at row %d: node 0 %s, node %d %s",
		i, q, len(b)-1, len(a)-1, k+1, line(a), i, line(b))
}
