// Package cluster replicates a state machine over a group of nodes with
// etcd's Raft (go.etcd.io/raft/v3): the consensus core of glint's clusters.
// It knows nothing of SQL or tables: what it replicates is opaque bytes, and
// what applies them is a StateMachine the caller gives it.
//
// A worked example, three nodes in one process over the in-memory network
// of the tests (a real deployment gives each node a Transport to the
// others):
//
//	nw := cluster.NewMemNetwork(1, cluster.Faults{})
//	var nodes []*cluster.Node
//	for _, id := range []uint64{1, 2, 3} {
//		opts := cluster.DefaultOptions(id, filepath.Join(dir, fmt.Sprint(id)))
//		opts.Peers = []uint64{1, 2, 3} // a new group: the same founders everywhere
//		n, _ := cluster.Open(opts, newMyStateMachine(id), nw.Endpoint(id))
//		nw.Attach(id, n) // what the network receives for id goes to n
//		nodes = append(nodes, n)
//	}
//	res, err := nodes[2].Propose(ctx, []byte("put k v")) // any node; applied on all
//	// err == nil: committed at res.Index, and res.Result is what Apply
//	// returned on node 3;
//	// errors.Is(err, cluster.ErrOutcomeUnknown): it may or may not happen.
//	_, err = nodes[1].ReadIndex(ctx) // now node 2's state has every write
//	// acknowledged before the call: read it locally, linearizably.
//
//	// A fourth node joins: it starts with no peers and is added as a
//	// learner; it gets a snapshot or the log, and the leader makes it a
//	// voter once it has caught up.
//	n4, _ := cluster.Open(cluster.DefaultOptions(4, dir4), sm4, nw.Endpoint(4))
//	nw.Attach(4, n4)
//	err = nodes[0].AddLearner(ctx, 4, []byte("10.0.0.4:9312")) // info for every state machine
//	err = nodes[0].RemoveNode(ctx, 2) // for good: ID 2 is never accepted again
//	st := nodes[0].Status() // State, Leader, Term, Commit, Applied, Voters, Learners
//
// # The loop
//
// Each Node runs one goroutine around a raft.RawNode. For every Ready it
// writes the received snapshot's metadata, the new entries and the
// HardState to its raft log in one badger batch, synced unless only the
// commit index moved (Storage; group commit: proposals and messages that
// arrive meanwhile go into the same Ready), then sends the messages, then restores the state machine from a
// received snapshot, then hands the committed entries to the applier, then
// advances. The applier, a goroutine of the node's, applies them in order,
// so that a slow Apply (a large write, a disk that stalls) does not keep
// the loop from ticking and answering: a leader whose followers answered
// nothing while they applied lost its quorum. A membership change is
// applied on the loop (it changes raft's configuration), as are a restore
// and the sync before a compaction, each once the applier has applied
// what it was handed.
//
// # Proposals
//
// Propose wraps the data with the proposing node's ID and a request ID;
// followers hand it to the leader through raft's proposal forwarding. When
// any node applies the entry, the proposing node finds its waiting caller
// and hands it Apply's result. A proposal no leader took is a definite
// failure (ErrNoLeader, retried on every tick until the context ends); once
// raft took it, the end of the context makes the outcome unknown
// (ErrOutcomeUnknown), since the entry may still commit.
//
// The envelope also carries the term the proposer was in when it handed
// the entry to raft. A leader that dies or steps down loses what was
// forwarded to it; once the proposer applies an entry of a later term, no
// entry of the earlier term can commit anymore, so it hands its pending
// proposals to raft again (retryStale). A copy that still arrives late is
// appended in a later term than it carries, and every member skips it in
// apply (the state machine sees an empty entry), so nothing applies twice.
//
// # Durability and restart
//
// The raft log lives in its own badger database, synced as raft requires
// (Ready.MustSync) and at every snapshot and compaction. The state
// machine need not sync its applies: it records its applied index with each
// entry's effects, and at start the node applies every committed entry after
// it. Every SnapshotEntries entries the node syncs the state machine
// (StateMachine.Sync), records a snapshot (index, term, membership) in the
// log, and compacts the log up to CatchUpEntries before it; a restart takes
// the membership of the recorded snapshot and replays the entries after it
// (membership changes into raft, the rest into the state machine past its
// applied index).
//
// # Snapshots
//
// A snapshot is metadata in raft's MsgSnap plus the state machine's image,
// sent out of band: the leader streams StateMachine.Snapshot through
// Transport.SendSnapshot, the receiver takes the image, then steps the
// message; when raft accepts the snapshot, the node records it in its log
// and restores the state machine from the image. A state machine that is a
// Preparer builds the image as it arrives and keeps it (synced) until it is
// installed: that copy is the only one. For any other the node writes the
// stream to a file under Dir/snap, synced, and restores from it. Either
// way the image is durable before the message is stepped, so a node that
// restarts with a snapshot recorded and not installed installs it at
// start; one that crashed while it received has recorded nothing, and raft
// sends it a snapshot again.
// The image is taken when it is sent, so it may be later than the
// metadata's index; the receiver skips the entries its restored state
// already holds.
//
// # Membership
//
// New nodes join as learners (AddLearner) and are promoted by the leader
// once their log is within PromoteLag entries of its own; RemoveNode moves
// the leadership away first when it removes the leader. Removed IDs are
// remembered in the log and in snapshots, and any change adding one again is
// refused by every member alike (ErrIDReused). Each change reaches the
// state machines as Entry.Change, with the info given to AddLearner, so the
// members' addresses can be replicated state like the rest.
//
// A removed node may miss the commit of its own removal (cut off, paused):
// the leader then sends it nothing more. So a node that hears no leader
// for askAfter election timeouts asks its peers (Transport.AskStanding,
// answered by Handler.Standing from each peer's applied state: the members
// its log names and the nodes its transport knows, so that a learner
// removed before it took anything from the group has someone to ask) and, when
// one says its removal is applied there, stops for good with ErrRemoved
// and Status.State StateRemoved; so does a node that applies its own
// removal. A leader asks the members it has not heard from for as long:
// members removed together (those a forced new cluster dropped, come back)
// elect a leader of their own, and the member that removed them drops
// their messages, so its silence is all they hear of it. A mark in Dir
// keeps it stopped across restarts. Only "removed"
// is believed: "member" or "unknown" may come from a peer that is behind.
// Options.ForceNewCluster is the only way out of a lost quorum: explicit,
// logged, never automatic.
//
// # Reads
//
// ReadIndex gives linearizable reads on any member, learners included:
// concurrent calls share one raft ReadIndex round (the leader confirms its
// leadership with a quorum), then wait until the local node has applied
// that index. WaitApplied gives read-your-writes on one node.
package cluster
