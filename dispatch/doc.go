// Package dispatch routes each call of an operation to the side (CPU,
// GPU, any executor) expected to finish it first.
//
// How to use it in a service: build a Route in one call from the plan
// (wgpu-prof plan --format json > plan.json) or a break-even report, with
// a function per side that serves your request type, and call Do from any
// goroutine:
//
//	type Query struct{ Vec, Scores []float32 }
//	route, err := dispatch.RouteFromReport("plan.json", `main\.similarity$`,
//		func(q Query) error { similarityCPU(q.Vec, q.Scores); return nil },
//		func(q Query) error { return gpu.Run(q.Vec, q.Scores) },
//		func(q Query) int { return len(q.Scores) })
//	...
//	out, err := route.Do(Query{Vec: v, Scores: s}) // out.Side: who served it
//
// Each request is served by the side's function with the request itself
// (no shared variables), a failed side's request is served by the next,
// and the route keeps learning each side's time from its calls. When the
// report holds the latency anatomy of its adapter (wgpu-prof run writes
// it, and plan --out with the GPU taxes), the GPU side is never predicted
// below the tiny call's round trip (ReportRoute.RoundTrip, Side.Floor).
// NewRoute builds one from models of your own; New gives the size-only
// Dispatcher underneath, whose executors receive only a call's size.
//
// How it decides: from the sides' measured profiles, and it keeps
// routing well as the machine changes. It routes over any number of sides
// (one or more): a CPU on one thread, a CPU on all threads, a GPU.
//
// The parts, each its own type and file:
//
//   - estimator (estimator.go): a side's prediction for a call of size n
//     is its profile (Side.Model, per regime) times a correction kept per
//     size bucket (powers of two) from the median of the side's last calls
//     there. A bucket's correction is trusted only after Config.MinCalls
//     calls; before, the side's prior stands (its profile, never below
//     the side's Floor — a GPU's measured round trip of a tiny call —
//     or the median of its last calls in any bucket when that is off
//     the profile by more than ShockRatio, unless the profile's shape is
//     unknown: Side.ShapeUnknown, a plan's own code known only at its
//     mean). Once trusted, a single call far outside the
//     estimate (beyond ShockRatio) does not enter it unless the next call
//     there agrees; it still counts toward shock detection. The estimates
//     are medians, while a stream's total is a sum of means: each side's
//     tail (tail.go: the mean of its last calls' ratios to their
//     estimates, clipped), relative to the lowest among the sides, scales
//     its estimates in the routing, so a side fast on its median call but
//     often several times slower loses.
//   - shock detector (shock.go): a side whose last calls run ShockRatio×
//     slower (all but two of 9) or faster (3 of 4) than their estimates
//     has changed everywhere (contention, clocks, a lost device are not
//     size-specific): its estimates are rescaled in every bucket, and a
//     recovery restores them from before the slow-down. A gradual
//     recovery shows as calls back within the hysteresis of those saved
//     estimates.
//   - prober (prober.go): sides not in use are re-probed at a bounded
//     rate (one probe per ProbeEvery calls, fewer while probes confirm the
//     routing) and within ProbeShare of the time spent; a side found
//     slower and given no sizes is watched on its own budget
//     (RecoveryShare). A probe of an idle side is two calls in a row and
//     only the second enters the estimates (the first pays a wake-up).
//   - retrier (retry.go): a call that fails on one side runs on the next
//     (no request is lost); the failed side is avoided for RetryAfter
//     calls, doubling while it keeps failing, then retried as a probe.
//   - router (router.go, route.go, observe.go): combines them. A call goes to the side with the
//     earliest predicted finish: its estimate, plus the time its queue
//     needs to drain (Side.Queue), plus the transfer of the call's bytes
//     at the side's upload and readback rates when the data is not
//     resident (Side.Bytes), as task runtimes' earliest-finish schedulers
//     do. A bucket moves a size to another side only when the estimates'
//     ratio moves by more than Config.Hysteresis (no flapping).
//   - history (history.go): the latest switches with their reasons, in a
//     ring, and counters of all of them, so memory stays bounded in
//     long-running use.
//
// The package measures nothing itself: executors report how long each
// call took, so simulated executors give deterministic tests. The package
// example (example_test.go) routes two simulated sides.
package dispatch
