package compute_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

func TestOpenRefusesBadOptionsBeforeAnyWork(t *testing.T) {
	for _, o := range []compute.Options{{UseIndex: true, Index: -1}, {TimerPasses: -3}} {
		if d, err := compute.Open(context.Background(), o); !errors.Is(err, compute.ErrInvalidOption) {
			d.Release()
			t.Errorf("Open(%+v) = %v, want ErrInvalidOption", o, err)
		}
	}
}

func TestOpenNamesAMissingAdapter(t *testing.T) {
	_, err := compute.Open(context.Background(), compute.Options{Name: "no adapter is called this"})
	if !errors.Is(err, wgpu.ErrNoAdapter) {
		t.Fatalf("err = %v, want ErrNoAdapter", err)
	}
}

func TestOpenStopsOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := compute.Open(ctx, compute.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenReleaseIsIdempotent(t *testing.T) {
	d, err := compute.Open(context.Background(), compute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Device == nil || d.Adapter == nil {
		t.Fatal("Open returned no device or adapter")
	}
	d.Release()
	d.Release()
	var none *compute.Device
	none.Release()
}
