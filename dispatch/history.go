package dispatch

// history keeps the latest switches in a ring and counts all of them, so
// a dispatcher that runs for days holds a bounded record
// (TestTenMillionCallsFlatMemory).
type history struct {
	ring   []Switch
	next   int
	counts SwitchCounts
}

// SwitchCounts counts every switch since the dispatcher started, by kind.
type SwitchCounts struct {
	Total int `json:"total"`
	// Moves: a bucket's sizes moved to another side by the estimates.
	Moves int `json:"moves"`
	// Failures: a side failed and the call fell back; Returns: a failed
	// side answered again.
	Failures int `json:"failures"`
	Returns  int `json:"returns"`
}

type switchKind int

const (
	kindMove switchKind = iota
	kindFailure
	kindReturn
)

func newHistory(size int) *history { return &history{ring: make([]Switch, 0, size)} }

func (h *history) add(kind switchKind, s Switch) {
	h.counts.Total = satInc(h.counts.Total)
	switch kind {
	case kindMove:
		h.counts.Moves = satInc(h.counts.Moves)
	case kindFailure:
		h.counts.Failures = satInc(h.counts.Failures)
	case kindReturn:
		h.counts.Returns = satInc(h.counts.Returns)
	}
	if len(h.ring) < cap(h.ring) {
		h.ring = append(h.ring, s)
		return
	}
	h.ring[h.next] = s
	h.next = (h.next + 1) % len(h.ring)
}

// list returns the switches kept, oldest first.
func (h *history) list() []Switch {
	out := make([]Switch, 0, len(h.ring))
	out = append(out, h.ring[h.next:]...)
	return append(out, h.ring[:h.next]...)
}

// satInc is x+1, saturating at the largest int.
func satInc(x int) int {
	if x == int(^uint(0)>>1) {
		return x
	}
	return x + 1
}
