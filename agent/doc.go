// Package agent is how a glintd coordinator talks to the agents of its
// distributed tables: the MySQL listeners of other glintd servers. A Pool
// keeps idle connections per agent address (go-sql-driver/mysql's, used
// through database/sql/driver without database/sql) and satisfies
// sql.Remote, which the SQL layer's distributed searches ask through:
//
//	pool := agent.New(agent.Options{User: "root"})
//	defer pool.Close()
//	eng.SetRemote(pool)
//	// SELECT ... FROM d, where d has agent='127.0.0.2:9306:t2', now runs
//	// its phases on 127.0.0.2:9306 over pooled connections.
//
// Each Query runs its statements in order on one connection (so SHOW META
// answers the SELECT before it), bounded by its context; errors the agent
// answers become *sql.AgentError, anything else means the mirror did not
// answer.
package agent
