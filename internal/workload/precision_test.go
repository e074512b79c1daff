package workload

import (
	"errors"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// Every precision of the cosine workloads passes verification on both
// sides, every variant of the GPU design, and a poisoned unrun side fails.
func TestPrecisionsBothSides(t *testing.T) {
	g := openGPU(t)
	for _, d := range []*Descriptor{CosineSingle, CosineTopK} {
		for _, p := range Precisions {
			c := small
			c.Precision = p
			c.Defaults()
			pr, err := d.Prepare(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range d.Variants {
				if v == "subgroup-per-row" && p != PrecisionF32 {
					continue // f32 rows only
				}
				cs := pr.At(pr.Size/2+1, Knobs{Variant: v})
				if want := float64(BytesPerValue(p) * (pr.Size/2 + 1) * c.Dim); cs.Bytes < want {
					t.Fatalf("%s %s: Bytes %v, want at least the stored rows' %v", d.Name, p, cs.Bytes, want)
				}
				gs, err := cs.GPU.BuildGPU(g)
				if err != nil {
					if p == PrecisionF16 && errors.Is(err, compute.ErrNoShaderF16) {
						continue
					}
					t.Fatal(err)
				}
				if err := runSide(gs); err != nil {
					t.Fatalf("%s %s %s gpu: %v", d.Name, p, v, err)
				}
				for _, l := range hostsimd.Available() {
					cpu, _ := cs.CPU.BuildCPU(hostsimd.Host{Level: l, FixLevel: true})
					if err := runSide(cpu); err != nil {
						t.Fatalf("%s %s cpu %v: %v", d.Name, p, l, err)
					}
				}
				cpu, _ := cs.CPU.BuildCPU(hostsimd.Host{})
				cpu.Poison()
				if err := cpu.Verify(); err == nil {
					t.Fatalf("%s %s: a poisoned, unrun CPU side passed verification", d.Name, p)
				}
			}
		}
	}
}

// cosine-batch and hnsw in f16 and int8 (hnsw in every metric): every
// GPU design verifies (each has f16 and int8 kernels; only a design that
// needs a device feature, the subgroup broadcast, may be unsupported on
// the adapter), every host level verifies, the rows name their precision
// and count its bytes, and a poisoned unrun side fails.
func TestBatchAndHNSWPrecisionsBothSides(t *testing.T) {
	g := openGPU(t)
	for _, p := range []string{PrecisionF16, PrecisionInt8} {
		for _, m := range []string{"l2sq", "ip", "cosine", ""} {
			d := HNSW
			c := small
			c.Precision, c.Metric, c.Candidates = p, m, CandidatesRandom
			if m == "" {
				d = CosineBatch
			}
			c.Defaults()
			pr, err := d.Prepare(c)
			if err != nil {
				t.Fatalf("%s %s %s: %v", d.Name, p, m, err)
			}
			checkPrecisionSides(t, g, d, pr, p)
		}
	}
}

func checkPrecisionSides(t *testing.T, g GPU, d *Descriptor, pr *Prepared, p string) {
	t.Helper()
	ran := 0
	for _, v := range d.Variants {
		cs := pr.At(pr.Size, Knobs{Variant: v})
		if !strings.HasSuffix(cs.Variant, "-"+p) || cs.Params[len(cs.Params)-1].Value != p {
			t.Fatalf("%s %s: variant %q params %v do not name the precision", d.Name, p, cs.Variant, cs.Params)
		}
		gs, err := cs.GPU.BuildGPU(g)
		if errors.Is(err, compute.ErrUnsupported) && strings.HasSuffix(v, "-bcast") {
			t.Logf("%s %s %s: %v", d.Name, p, v, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := runSide(gs); err != nil {
			t.Fatalf("%s %s %s gpu: %v", d.Name, p, v, err)
		}
		ran++
	}
	if ran == 0 {
		t.Fatalf("%s %s: no GPU design ran", d.Name, p)
	}
	cs := pr.At(pr.Size, Knobs{})
	for _, l := range hostsimd.Available() {
		cpu, _ := cs.CPU.BuildCPU(hostsimd.Host{Level: l, FixLevel: true})
		if err := runSide(cpu); err != nil {
			t.Fatalf("%s %s cpu %v: %v", d.Name, p, l, err)
		}
	}
	cpu, _ := cs.CPU.BuildCPU(hostsimd.Host{})
	cpu.Poison()
	if err := cpu.Verify(); err == nil {
		t.Fatalf("%s %s: a poisoned, unrun CPU side passed verification", d.Name, p)
	}
}

// A stored reference that disagrees at one row fails an int8 side.
func TestPlantedInt8ReferenceErrorIsCaught(t *testing.T) {
	data := newCosineData(3, 300, 32)
	st, err := data.stored(PrecisionInt8)
	if err != nil {
		t.Fatal(err)
	}
	st.ref.want[17] += 0.001
	cpu, _ := cosineSingleCase(data, st, 300, Knobs{}).CPU.BuildCPU(hostsimd.Host{})
	if err := runSide(cpu); !errors.Is(err, ErrMismatch) {
		t.Fatalf("got %v, want a mismatch at row 17", err)
	}
}
