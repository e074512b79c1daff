package timing

import (
	"math"
	"slices"
)

// Anatomy is what one GPU call costs on a device apart from the work of
// any kernel: the API's round trip (encode, submit, wait, map) and the
// transfers, each measured the way a lean application makes its calls —
// one submit and one wait per call (compute.MeasureLatency). Times are in seconds,
// each the median of its calls with the 95% CI of the median.
//
// Readers use it as a prior for a call's fixed cost: Launch is what a call
// of one dispatch pays before any bytes move, PerDispatch what each further
// dispatch in the same submit adds, and UploadTime/ReadbackTime the
// transfer at a size (interpolated on the measured curve, extrapolated by
// its fit).
type Anatomy struct {
	Adapter string `json:"adapter"`
	// Empty is a call with nothing to do: an empty command buffer
	// submitted and waited for.
	Empty Summary `json:"empty_call"`
	// Tiny is the tiny call: a 16-byte uniform write, one dispatch of one
	// 64-invocation workgroup and a 4-byte readback, in one submit with
	// one wait, its value checked after every call.
	Tiny Summary `json:"tiny_call"`
	// Dispatches is the tiny call with K dispatches in its one submit.
	Dispatches []DispatchPoint `json:"dispatches"`
	// DispatchFit is t(K) = Overhead + K·PerItem over Dispatches: the
	// fixed launch cost and the cost of one more dispatch.
	DispatchFit LinearFit `json:"dispatch_fit"`
	// Readback is copying B bytes of a storage buffer to the host (copy,
	// submit, map, wait, memcpy), against B.
	Readback []TransferPoint `json:"readback"`
	// Upload is a queue write of B bytes made visible to the GPU (write,
	// submit, wait), against B.
	Upload []TransferPoint `json:"upload"`
	// ReadbackFit and UploadFit are t(B) = Overhead + B·PerItem: PerItem
	// is seconds per byte (1/rate).
	ReadbackFit LinearFit `json:"readback_fit"`
	UploadFit   LinearFit `json:"upload_fit"`
	// Calls is how many calls were timed in all (every one verified).
	Calls int `json:"calls"`
}

// DispatchPoint is the tiny call's time with K dispatches per submit.
type DispatchPoint struct {
	K    int     `json:"k"`
	Call Summary `json:"call"`
}

// TransferPoint is a transfer's time at a size, with the rate it implies
// (bytes over the median time, and over the CI's ends) in GB/s (10⁹ B/s).
type TransferPoint struct {
	Bytes  uint64  `json:"bytes"`
	Time   Summary `json:"time"`
	GBps   float64 `json:"gbps"`
	GBpsLo float64 `json:"gbps_lo"`
	GBpsHi float64 `json:"gbps_hi"`
}

// Launch is the fixed cost of a call (seconds): the fitted cost at K = 0
// dispatches, or the tiny call's median when there is no fit.
func (a *Anatomy) Launch() float64 {
	if a == nil {
		return 0
	}
	if a.DispatchFit.DoF > 0 && a.DispatchFit.Overhead > 0 {
		return a.DispatchFit.Overhead
	}
	return a.Tiny.Median
}

// PerDispatch is what one more dispatch in the same submit costs (seconds).
func (a *Anatomy) PerDispatch() float64 {
	if a == nil {
		return 0
	}
	return math.Max(0, a.DispatchFit.PerItem)
}

// ReadbackTime is the time to read n bytes back (seconds).
func (a *Anatomy) ReadbackTime(n uint64) float64 {
	if a == nil {
		return 0
	}
	return curveAt(a.Readback, a.ReadbackFit, n)
}

// UploadTime is the time to upload n bytes (seconds).
func (a *Anatomy) UploadTime(n uint64) float64 {
	if a == nil {
		return 0
	}
	return curveAt(a.Upload, a.UploadFit, n)
}

// RoundTrip is the cost of a call of dispatches dispatches that uploads up
// and reads back down bytes, less the kernels' own work: the launch, the
// further dispatches and the transfers beyond the tiny call's own.
func (a *Anatomy) RoundTrip(dispatches int, up, down uint64) float64 {
	if a == nil {
		return 0
	}
	t := a.Launch() + float64(max(dispatches, 1))*a.PerDispatch()
	// The tiny call already moved 16 bytes up and 4 down.
	t += math.Max(0, a.UploadTime(up)-a.UploadTime(16))
	t += math.Max(0, a.ReadbackTime(down)-a.ReadbackTime(4))
	return t
}

// curveAt interpolates the measured medians linearly in bytes between the
// two points around n; outside the measured sizes it follows the fit's
// slope from the nearest end.
func curveAt(pts []TransferPoint, fit LinearFit, n uint64) float64 {
	if len(pts) == 0 {
		return math.Max(0, fit.At(float64(n)))
	}
	i, _ := slices.BinarySearchFunc(pts, n, func(p TransferPoint, n uint64) int {
		switch {
		case p.Bytes < n:
			return -1
		case p.Bytes > n:
			return 1
		}
		return 0
	})
	slope := math.Max(0, fit.PerItem)
	switch {
	case i == 0:
		return math.Max(0, pts[0].Time.Median-slope*float64(pts[0].Bytes-n))
	case i == len(pts):
		last := pts[len(pts)-1]
		return last.Time.Median + slope*float64(n-last.Bytes)
	}
	lo, hi := pts[i-1], pts[i]
	f := float64(n-lo.Bytes) / float64(hi.Bytes-lo.Bytes)
	return lo.Time.Median + f*(hi.Time.Median-lo.Time.Median)
}
