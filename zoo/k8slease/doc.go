// Package k8slease is Kubernetes-style leader election, written from
// scratch for leasesim's callback environment and modelled on client-go's
// tools/leaderelection: a foreign implementation that goes through
// leasesim's door with its own messages, its own specification
// ("cas-record") and its own capabilities.
//
// # What it models
//
// The grantor node is the API server (with etcd behind it). It keeps
// coordination.k8s.io/v1 Lease records (holderIdentity,
// leaseDurationSeconds, acquireTime, renewTime, leaseTransitions) under
// optimistic concurrency: get, create, and update at a resourceVersion,
// which fails with a conflict if the record changed since. It never
// expires anything, and it syncs every change to its durable store before
// it answers.
//
// Each holder runs one leader elector per resource (client-go's
// LeaderElector): every RetryPeriod, jittered while it is a candidate, it
// runs tryAcquireOrRenew. It gets the record; if another holds it and the
// record has changed within LeaseDuration, measured on the candidate's own
// monotonic clock from when it saw the record change (observedTime), it
// waits; otherwise it updates the record under the version it read, with
// itself as holder and leaseTransitions+1 (or creates it). The leader
// renews by updating the record it last wrote (client-go's fast path),
// falling back to a get. The holder identity is the node's address and its
// boot number, as client-go users build it from a host name and a UUID per
// process, so a restarted holder is a new candidate.
//
// # How it maps onto leasesim
//
//   - Token: leaseTransitions after the holder's own write. The creation
//     counts as the first transition (client-go creates the record with
//     0; the harness reserves token 0 for "no token").
//   - Belief: the leader believes until RenewDeadline after it sent its
//     last successful renewal (client-go's renew loop gives up after
//     RenewDeadline). It reports EventGrant and EventRenew with that local
//     deadline, EventLost when the deadline passes or the record names
//     another holder, EventFenced when the store refuses its token, and
//     EventRelease. Valid agrees with the same deadline.
//   - Timing: LeaseDuration = TTL, RenewDeadline = 2/3 of it, RetryPeriod =
//     TTL×2/15, client-go's 15 s / 10 s / 2 s in proportion; requests time
//     out after the config's RequestTimeout. See Timing.
//   - Release (client-go's ReleaseOnCancel): belief ends at once, then the
//     record is written with no holder, under the version last seen.
//   - Writes go to the harness's fenced store under the token, after the
//     before-write failpoint; a refusal ends the belief. Side effects are
//     sent unfenced. There are no checkpoints and no registrations (a
//     Lease carries neither), so the catalogue's scenarios with workers or
//     registrants are skipped.
//   - Every message describes its part of a cas-record operation
//     (history.Described) and digests its contents (sim.Digester).
//
// # Which properties should hold, and why
//
// P1 (exclusivity) holds while drift stays within rho: a candidate takes
// over only after seeing one version of the record unchanged for
// LeaseDuration on its own clock, and the update it takes over with
// succeeds only if that version is still current, so the leader's last
// successful renewal was sent before the candidate first saw it. The
// leader's belief ends RenewDeadline after that send, the candidate's
// begins LeaseDuration after that sight, and RenewDeadline×(1+rho) <
// LeaseDuration×(1−rho) (true up to rho = 20% with these proportions; the
// catalogue's clock-drift-beyond drifts 15%, so P1 holds there too).
// client-go states the same rule: the ratio LeaseDuration/RenewDeadline is
// the clock-rate ratio tolerated.
//
// P1 judges beliefs, not the effects of actions: a leader that checked it
// leads and then paused longer than LeaseDuration − RenewDeadline (less
// drift) acts after another leader may have started. Kubernetes has no
// fencing for this (client-go says so: "does not guarantee that only one
// client is acting as a leader (a.k.a. fencing)"). With the fenced store
// and leaseTransitions as the token, P2 holds under every fault: the stale
// write is refused once the new leader has written. Without it (Unfenced),
// the kleppmann-gc-pause story overwrites the new leader's data.
//
// P3 is judged against the cas-record specification (no server-side
// expiry). P4 holds: after the faults stop, the record is renewed or
// expires on the candidates' clocks and one of them takes it.
//
// Mutant is client-go's renew loop before kubernetes/kubernetes PR #65094:
// no request timeout, and RenewDeadline checked only between attempts.
// RESULTS.md has the measured outcomes over seeds 1-200.
package k8slease
