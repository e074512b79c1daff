package hostsimd_test

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// One query against a few stored rows, then the best two: the CPU side of
// the cosine-single and top-k workloads, at the best level this CPU has.
func ExampleCosineSingle() {
	const d = 4
	q := []float32{1, 0, 0, 0}
	v := []float32{ // four rows of d floats, row-major
		1, 0, 0, 0, // same direction: 1
		0, 1, 0, 0, // orthogonal: 0
		-2, 0, 0, 0, // opposite: -1
		1, 1, 0, 0, // 45 degrees: 0.707
	}
	scores := make([]float32, len(v)/d)
	if err := hostsimd.CosineSingle(q, v, d, scores); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3f\n", scores)
	for _, p := range hostsimd.TopK(scores, 2) {
		fmt.Printf("row %d: %.3f\n", p.Index, p.Score)
	}

	// A shape that does not fit is an error naming the bad value.
	fmt.Println(hostsimd.CosineSingle(q, v[:5], d, scores) != nil)
	// Output:
	// [1.000 0.000 -1.000 0.707]
	// row 0: 1.000
	// row 3: 0.707
	// true
}
