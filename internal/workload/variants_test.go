package workload

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

// Every GPU variant of every workload passes verification at the small
// shapes, its case names the variant, and distinct variants get distinct
// labels; an unknown variant is refused by CheckVariant.
func TestEveryVariantVerifies(t *testing.T) {
	g := openGPU(t)
	for _, d := range All() {
		if len(d.Variants) == 0 {
			t.Errorf("%s lists no GPU variants", d.Name)
			continue
		}
		c := small
		c.Defaults()
		pr, err := d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, v := range d.Variants {
			if err := d.CheckVariant(v); err != nil {
				t.Fatal(err)
			}
			cs := pr.At(pr.Size, Knobs{Variant: v})
			if !strings.Contains(cs.Variant, v) {
				t.Errorf("%s variant %s: case labelled %q", d.Name, v, cs.Variant)
			}
			if o, ok := labels[cs.Variant]; ok {
				t.Errorf("%s: variants %s and %s share the label %q", d.Name, o, v, cs.Variant)
			}
			labels[cs.Variant] = v
			gs, err := cs.GPU.BuildGPU(g)
			if errors.Is(err, compute.ErrUnsupported) {
				t.Logf("%s %s: %v", d.Name, v, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", d.Name, v, err)
			}
			if err := runSide(gs); err != nil {
				t.Fatalf("%s %s: %v", d.Name, v, err)
			}
		}
		if err := d.CheckVariant("no-such-design"); err == nil || !strings.Contains(err.Error(), d.Variants[0]) {
			t.Errorf("%s: unknown variant: %v", d.Name, err)
		}
	}
}
