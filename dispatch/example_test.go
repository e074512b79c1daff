package dispatch_test

import (
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// Two sides: one with a low overhead and a high cost per item, one the
// opposite. The dispatcher sends each size to the side that finishes it
// first.
func Example() {
	small := dispatch.Func(func(n int) (time.Duration, error) { return time.Duration(2000 + 100*n), nil })
	large := dispatch.Func(func(n int) (time.Duration, error) { return time.Duration(20000 + 10*n), nil })
	d, err := dispatch.New([]dispatch.Side{
		{Name: "cpu", Exec: small, Model: dispatch.Linear(2e-6, 100e-9)},
		{Name: "gpu", Exec: large, Model: dispatch.Linear(20e-6, 10e-9)},
	}, dispatch.Profile{}, dispatch.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []int{10, 100, 1000, 10000} {
		o, err := d.Do(n)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("n=%d on side %d\n", n, o.Side)
	}
	// Output:
	// n=10 on side 0
	// n=100 on side 0
	// n=1000 on side 1
	// n=10000 on side 1
}
