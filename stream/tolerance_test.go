package stream

import (
	"strings"
	"testing"
)

// The element tolerance is BabelStream's 100 epsilon relative, no looser:
// an element 50 epsilon off passes, one 200 epsilon off fails, named, for
// each array and in float32 and float64 alike.
func TestElementToleranceIs100Epsilon(t *testing.T) {
	t.Run("float32", func(t *testing.T) { elementTolerance[float32](t) })
	t.Run("float64", func(t *testing.T) { elementTolerance[float64](t) })
}

func elementTolerance[T Float](t *testing.T) {
	const n, times = 64, 100
	ga, gb, gc, gs := Gold[T](times, n)
	eps := epsilon[T]()
	for _, arr := range []string{"a", "b", "c"} {
		for _, c := range []struct {
			off  T
			pass bool
		}{{50, true}, {-50, true}, {200, false}, {-200, false}} {
			a, b, cc := fill(n, ga), fill(n, gb), fill(n, gc)
			x := map[string][]T{"a": a, "b": b, "c": cc}[arr]
			x[17] *= 1 + c.off*eps
			err := Check(times, a, b, cc, gs)
			if c.pass && err != nil {
				t.Errorf("%s[17] %+v epsilon off: %v, want it within the 100-epsilon tolerance", arr, c.off, err)
			}
			if !c.pass && (err == nil || !strings.Contains(err.Error(), arr+"[17]")) {
				t.Errorf("%s[17] %+v epsilon off: %v, want it refused, named", arr, c.off, err)
			}
		}
	}
}
