// Package mutants is the catalogue of deliberately broken lease
// implementations that proves the checkers bite. A harness that never fails
// proves nothing: each mutant reproduces one real-world bug class, and a
// sweep over the built-in scenarios must catch every one of them.
//
// Package lease carries no bug switches. Each mutant is a lease.Impl built
// from lease.Correct() in one small file, which wraps or replaces exactly
// one behaviour through the exported interfaces:
//
//   - the node's environment: a Storage in which some keys are volatile
//     (they vanish on a crash, because constructors run on every boot), a
//     Clock that reads the wall clock, a Transport that rewrites or drops
//     what the node sends, an Observer that watches the node's events;
//   - the node itself: a Deliver that rewrites what the node receives,
//     Grantor.Lookup to name the current lease;
//   - the Config a component is built with.
//
// The scenarios' recorder sits on the innermost transport, so a history
// shows what a mutant really sent and received.
//
// Mutants stay deterministic: no goroutines, no wall clock of the host, no
// global randomness.
//
// # The catalogue
//
//	mutant/unfenced-resource           the store accepts stale tokens               P2
//	mutant/expiry-from-receipt         holder counts from the reply's receipt       P1
//	mutant/no-drift-margin             holder ignores rho and the margin            P1
//	mutant/wall-clock-expiry           grantor expires by the wall clock            P1
//	mutant/token-not-persisted         token counters restart after a crash         P2, P3
//	mutant/no-restart-grace            grantor grants at once after a restart       P1
//	mutant/renew-after-expiry          grantor renews expired or re-granted leases  P1, P3
//	mutant/silent-keepalive-death      renewal loop dies, holder keeps believing    P1
//	mutant/stale-release               release frees the successor's lease          P1, P3
//	mutant/unfenced-checkpoint         grantor accepts stale holders' checkpoints   P5
//	mutant/lost-checkpoint-on-restart  accepted checkpoints vanish on a crash       P5
//	mutant/early-grantor-expiry        grantor expires at TTL×(1−rho)               P1, P3
//	mutant/per-key-fencing             store fences each key, not the lease         P2, P3
//	mutant/read-sees-refused-write     reads see a write the store refused          P3
//
// The last two live on paths that only multi-key-read-back takes: a lease
// over several keys, and reads at the fenced store.
//
// Each file's doc comment names the bug class and the technique. Select a
// mutant with `simrun run --impl mutant/NAME`, or in Go with Lookup and
// scenarios.WithImpl.
//
// # Tests
//
// The unit tests run each mutant next to the correct implementation on a
// lease/leasetest world and show the broken behaviour directly. The catch
// test runs each mutant over the scenarios its bug class points at and
// stops at the first violated property; the acceptance sweep searches every
// built-in scenario:
//
//	go test ./mutants -run TestMutantsAreCaught -args -mutants.sweep -mutants.seeds=300
package mutants
