package ops_test

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// A CSR graph stores the edges into each node; Validate checks the shape
// before any kernel reads it.
func ExampleCSR_Validate() {
	// Three nodes: 0 ← 1 (0.5), 0 ← 2 (0.5), 1 ← 2 (1), nothing into 2.
	g := &ops.CSR{
		Offsets: []int32{0, 2, 3, 3},
		Cols:    []int32{1, 2, 2},
		Weights: []float32{0.5, 0.5, 1},
	}
	fmt.Println(g.N(), g.Validate())

	g.Cols[2] = 7 // a source node past N
	fmt.Println(g.Validate() != nil)
	// Output:
	// 3 <nil>
	// true
}

// Binary16 keeps 11 significant bits: values round to the nearest
// representable one.
func ExampleF32ToF16() {
	for _, f := range []float32{1, 0.1, 65504, 1e6} {
		h := ops.F32ToF16(f)
		fmt.Printf("%g -> %#04x -> %g\n", f, h, ops.F16ToF32(h))
	}
	// Output:
	// 1 -> 0x3c00 -> 1
	// 0.1 -> 0x2e66 -> 0.099975586
	// 65504 -> 0x7bff -> 65504
	// 1e+06 -> 0x7c00 -> +Inf
}

func ExampleParseMetric() {
	m, err := ops.ParseMetric("cosine")
	fmt.Println(m, err)
	_, err = ops.ParseMetric("manhattan")
	fmt.Println(err != nil)
	// Output:
	// cosine <nil>
	// true
}
