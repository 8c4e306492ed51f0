// Package history is the record of one run that the checkers read.
//
// # One history, from any source
//
// The schema (schema.go, event.go) is plain data, free of kernel types,
// versioned (SchemaVersion), and serialised as JSON lines by Writer and
// read back by Reader, a strict streaming reader: unknown, duplicate and
// missing fields, nulls, wrong types and values that break the rules below
// are refused with a *LineError naming the file, the line and the field
// ("history.jsonl:12: field "token": want a non-negative integer, got a
// string"). Whatever can produce it can be judged: leasesim's simulator,
// the goroutine host, lease/realtime, a foreign implementation through a
// recorder, a production log.
//
// Times are true time in integer nanoseconds since the run's start,
// supplied by the producer, as porcupine's Operation times are; on the
// wire every time and duration ends in _ns. A reading of a node's own
// clock is named "local" or "clock". A restarted process is a new actor:
// every record that names a process names its incarnation too, and P1 and
// P2 judge incarnations separately.
//
// A file is a header, events in any order, and an end record:
//
//	header      version, producer, spec, determinism (exact|verified|statistical),
//	            scenario, seed, lease {ttl_ns, rho_ppb, hold_ppb, renew_interval_ns, margin_ns,
//	            request_timeout_ns, backoff_max_ns, ttl_min_ns, ttl_max_ns, detect_bound_ns},
//	            lease_servers, fenced_servers, holders, resources, contended,
//	            start_ns, heal_ns
//	operation   client, incarnation, server, id, call_ns, processed_ns, return_ns,
//	            input, output, msg                                    P3, P4, P6
//	belief      holder, incarnation, resource, token, start_ns, end_ns, reason,
//	            local_deadline_ns, last_act_ns, inferred              P1
//	action      holder, incarnation, resource, token, at_ns, what, msg   P1
//	write       store, resource, key, writer, incarnation, token, at_ns,
//	            accepted, msg                                         P2
//	checkpoint  resource, writer, incarnation, token, at_ns, state, msg  P5
//	unit        task, index, worker, incarnation, token, at_ns        P6
//	effect      from, incarnation, resource, id, at_ns, msg           P6
//	sighting    reader, key, owner, at_ns                             P4 (registry)
//	fault       kind, nodes, start_ns, end_ns, detail                 evidence
//	task        id, units, unit_time_ns, arrival_ns, done_ns,
//	            done_unanswered_ns                                    P4, P6
//	premise     name, held, detail                                    every verdict
//	leader      server, members, term, start_ns, end_ns, extension_ns,
//	            checkpoint_interval_ns, check_period_ns               P3 (replicated store)
//	declaration detector, member, dead, at_ns, grace_ns               P7, P8 (detector)
//	end         at_ns, max_drift_ppb, store_syncs                     P1, metrics
//
// An operation's input and output are a Payload: a kind ("acquire",
// "set_nx_px", "cas", "keepalive", "write", …) and the fields that kind
// uses (resource, key, value, holder, holder_incarnation, token, ttl_ns, lease,
// revision, version, ok, err, clock_ns, remaining_ns, state, state_token,
// prefix, keys). The specification the header names gives the kinds
// their meaning; the schema only carries them.
//
// What each record means and who reads it:
//
//   - operation: one request a client sent and the reply a server produced
//     for it; a request processed twice is two operations. return_ns left
//     out means the reply never reached the client (the operation may have
//     taken effect); processed_ns left out means the producer could not see
//     when the server processed it. P3 checks the operations of the lease
//     store against the declared specification and those of the fenced
//     store against a fenced register; P4 and P6 find grants in them.
//   - belief: an interval in which a holder believed it held a resource
//     under a token, why it ended (deadline, release, lost, fenced, crash,
//     end), its deadline on its own clock where known, and its last action
//     under the token. P1 checks that two grants' beliefs never overlap in
//     true time. A holder of the header that was granted a lease but has no
//     belief makes P1 unknown, never ok.
//   - action: a holder acting under a token (sending a write, a checkpoint,
//     an effect). P1 uses it to show a belief was acted on.
//   - write: the fenced store accepting or refusing a write. P2 checks the
//     accepted tokens never go backwards and were issued to their writer.
//   - checkpoint: a checkpoint the lease store accepted. P5 checks no
//     accepted checkpoint is lost or overwritten by a stale holder.
//   - unit and task: units of work done under a token, and the tasks they
//     belong to. P6 checks every unit ran at least once and re-execution
//     stays within the work since the last checkpoint; P4 that tasks finish.
//   - effect: an unfenced side effect; P6 counts duplicates.
//   - sighting: a discovery reader seeing a registration; P4 checks the
//     registry in the service-registry scenario.
//   - fault: a fault in force over an interval; evidence for every
//     property, never a verdict on its own.
//   - premise: something the scenario's story needed to happen, and
//     whether it did; one that did not makes the run unknown.
//   - leader: an interval in which a member of a replicated lease store
//     led (raft's leader), with what the store declared about its leases'
//     timing: the extension a new leader adds to every lease, how often the
//     leader checkpoints remaining TTLs through the log, how often it
//     looks for expired leases. P3 bounds from it how long a lease may
//     outlive its last renewal across leader changes (model.LessorBound).
//   - declaration: a failure detector declaring a member dead (suspected)
//     or alive again, and the grace period it applied. For a history whose
//     lease configuration declares a detection bound (detect_bound_ns),
//     P7 checks that no member whose accepted renewals show it alive is
//     declared dead, and P8 that a member that stopped is declared dead
//     within the bound of its last accepted renewal.
//   - end: when the run ended and what is only known then: the largest
//     drift seen (beyond rho_ppb, P1's assumption is exceeded) and the
//     lease store's durable writes. A file without it was cut short, and
//     the reader says so.
//
// Optional msg fields carry kernel message ids, so an event can be joined
// to the trace.
//
// # The in-memory history
//
// History (history.go) is the same records held in memory, as a producer
// fills them while a run goes on (the event host's recorder, an adapter)
// and as the checkers read them: the header's spec and lease
// configuration, the operations, beliefs, units, tasks, effects,
// sightings, fault windows (their kinds named as FaultKinds lists them),
// premises, leader terms and a detector's declarations, and what the end
// record says. Its operations
// are read through its methods (ops.go: NumOps, Op, LoadOp, LoadOpHead,
// AllOps), because a producer may give them from its own compact records
// (OpSource) instead of holding millions of Operations; a small producer
// appends them (AppendOp, SetOps). The package imports nothing
// of leasesim but internal/strictjson, so neither do the checkers that
// read it. Recording never changes the run, so the trace hash is the same
// with checking on or off.
package history
