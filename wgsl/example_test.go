package wgsl_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// Source serves a kernel's text by name, ready for a shader module; Names
// lists every name it serves, and an unknown name is an error.
func ExampleSource() {
	src, err := wgsl.Source("cosine_single")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(slices.Contains(wgsl.Names(), "cosine_single"))
	fmt.Println(strings.Contains(src, "@compute"), strings.Contains(src, "@group(0) @binding(0)"))

	_, err = wgsl.Source("no_such_kernel")
	fmt.Println(err != nil)
	// Output:
	// true
	// true true
	// true
}
