package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Hybrid is a replay of a stream of calls of mixed sizes through two sides
// under several routing strategies (wgpu-prof hybrid).
type Hybrid struct {
	Workload string   `json:"workload"`
	Sides    []string `json:"sides"`
	Requests int      `json:"requests"`
	// Repeats is how many times the stream was replayed.
	Repeats int `json:"repeats"`
	// Stream says where the sizes came from and their range.
	Stream string `json:"stream"`
	// Crossover is the measured crossover the static threshold uses, in
	// words.
	Crossover string `json:"crossover"`
	// Threshold is the static strategy's batch size (0: one side always).
	Threshold float64 `json:"threshold"`
	// Faults lists the injected faults, in words.
	Faults []string `json:"faults,omitempty"`
	// FixedCosts are the fixed costs the adaptive dispatcher's priors
	// give its GPU sides (one per GPU side; none without one), each
	// against the latency anatomy's round trip, with the anatomy's
	// source.
	FixedCosts []FixedCostCheck `json:"gpu_fixed_costs,omitempty"`
	Strategies []HybridStrategy `json:"strategies"`
	// Best is the index in Strategies of the better single side (fewer
	// lost requests, then the lower total), which VsBest compares with.
	Best int `json:"best"`
	// Switches are the adaptive dispatcher's latest switches, with
	// reasons (it keeps a bounded number); SwitchCount counts all of
	// them.
	Switches    []HybridSwitch `json:"switches,omitempty"`
	SwitchCount int            `json:"switch_count"`
	// Timed says what one request's time covers.
	Timed string `json:"timed"`
	// PerRequest compares the strategies on per-request medians: each
	// request's time is its median over the replays (no total carries a
	// preempted call), summed over the stream; Oracle is the sum of the
	// lower of the two single sides' medians, request by request: the
	// total of a router that knew every request's faster side, the most
	// any routing can gain on this stream.
	PerRequest *HybridPerRequest `json:"per_request,omitempty"`
	// Rows are every request of every replay and strategy, in the
	// order of Strategies, then replay, then the stream's order (for
	// --out's requests.csv: WriteHybridRequests); not in the JSON, where
	// it would be most of the report.
	Rows []HybridRequest `json:"-"`
}

// HybridRequest is one request of one replay through one strategy.
type HybridRequest struct {
	Strategy, Replay, Index, N int
	// Side is the side that answered (index as Sides; -1: lost).
	Side int
	// Seconds is the request's time, Routing included (as in the totals).
	Seconds, Routing float64
	// Probe: the dispatcher's call of the side not in use; Recovered:
	// answered by the other side after an error.
	Probe, Recovered bool
}

// HybridPerRequest is the strategies' sums of per-request medians
// (seconds), in the order of Strategies, and the oracle's.
type HybridPerRequest struct {
	Sums   []float64 `json:"sums"`
	Oracle float64   `json:"oracle"`
}

// HybridStrategy is one strategy's outcome over the whole stream.
type HybridStrategy struct {
	Name string `json:"name"`
	// Kind is "single" (one side alone), "static", "adaptive" or
	// "oracle" (routing by size with hindsight).
	Kind  string  `json:"kind"`
	Total float64 `json:"total"` // seconds, every request of one replay: the median over the replays
	// TotalSummary is the total's spread over the replays.
	TotalSummary timing.Summary `json:"total_summary"`
	// VsBest is the strategy's total over the better single side's, replay
	// by replay (the same replay's totals), summarized over the replays.
	VsBest timing.Summary `json:"vs_best"`
	P50    float64        `json:"p50"` // per-request seconds
	P99    float64        `json:"p99"`
	// Share counts the requests each side answered (index as Sides).
	Share []int `json:"share"`
	// Lost counts requests that got no verified answer; Recovered those
	// answered by the other side after an error.
	Lost      int `json:"lost"`
	Recovered int `json:"recovered"`
	// Probes counts calls the dispatcher spent probing the side not in use.
	Probes int `json:"probes,omitempty"`
	// Routing is the median per request of the strategy's own time outside
	// the sides' calls (seconds; included in the times above).
	Routing float64 `json:"routing"`
}

// HybridSwitch is one switch of the adaptive dispatcher.
type HybridSwitch struct {
	Request int    `json:"request"`
	Bucket  string `json:"bucket"`
	From    string `json:"from"`
	To      string `json:"to"`
	Reason  string `json:"reason"`
}

// WriteHybridRequests writes h's rows as CSV, one per request of each
// replay and strategy: strategy (its index in h.Strategies), replay,
// request (its index in the stream), n, side (its index in h.Sides; -1:
// lost), seconds (routing included), routing seconds, and 1 if it was a
// probe or recovered from an error (else 0). A strategy's seconds summed
// over one replay are that replay's total. Names stay in the report
// (report.json): a default stream's 240,000 rows take about 7 MB.
func WriteHybridRequests(w io.Writer, h *Hybrid) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"strategy", "replay", "request", "n", "side", "seconds", "routing_seconds", "probe", "recovered"})
	b01 := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	for _, r := range h.Rows {
		if r.Strategy < 0 || r.Strategy >= len(h.Strategies) || r.Side < -1 || r.Side >= len(h.Sides) {
			return fmt.Errorf("report: hybrid request %+v: strategy or side out of range", r)
		}
		cw.Write([]string{strconv.Itoa(r.Strategy), strconv.Itoa(r.Replay), strconv.Itoa(r.Index), strconv.Itoa(r.N), strconv.Itoa(r.Side),
			strconv.FormatFloat(r.Seconds, 'g', 6, 64), strconv.FormatFloat(r.Routing, 'g', 6, 64), b01(r.Probe), b01(r.Recovered)})
	}
	cw.Flush()
	return cw.Error()
}
