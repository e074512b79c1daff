package compute_test

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
)

func TestMeasureOverhead(t *testing.T) {
	d := openDevice(t)
	o, err := compute.MeasureOverhead(d, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", o)
	if o.Calls != 10 || o.Upload <= 0 || o.BindGroup <= 0 || o.Submit <= 0 || o.Readback <= 0 {
		t.Fatalf("%+v: every part must be measured", o)
	}
	if d.HasTimestamps() && o.Kernel <= 0 {
		t.Fatalf("%+v: the device has timestamps; the kernel time must be measured", o)
	}
}
