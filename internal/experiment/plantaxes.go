package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Rounds and sizes of the taxes' measurement.
const (
	taxRounds        = 15
	taxCallsPerRound = 20
	taxTransferBytes = 8 << 20
)

// overheadTaxes measures the GPU taxes on a device: the launch tax from
// compute.MeasureOverhead (a small queue write, the submit-and-wait of a
// one-workgroup pass less its kernel time, a 16-byte readback), the
// transfer rates from timed writes and reads of a large buffer less the
// same of 16 bytes.
type overheadTaxes struct{ d *wgpu.Device }

// Taxes returns the source of the GPU taxes on e's device.
func (e *Env) Taxes() TaxSource { return overheadTaxes{e.Device} }

// GPUTaxes measures the taxes: each a median over taxRounds rounds with
// the CI of that median; every transfer's bytes are checked.
func (o overheadTaxes) GPUTaxes() (GPUTaxes, error) {
	if o.d == nil {
		return GPUTaxes{}, errors.New("GPU taxes: no device")
	}
	var launch, up, down []float64
	for range taxRounds {
		ov, err := compute.MeasureOverhead(o.d, taxCallsPerRound)
		if err != nil {
			return GPUTaxes{}, err
		}
		launch = append(launch, (ov.Upload + ov.Submit + ov.Readback).Seconds())
	}
	size := uint64(taxTransferBytes)
	if l := o.d.Limits.MaxBufferSize; l > 0 && l < size {
		size = l &^ 15
	}
	buf, err := o.d.CreateBuffer("plan transfer", size, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst)
	if err != nil {
		return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
	}
	defer buf.Release()
	src, got, small := make([]byte, size), make([]byte, size), make([]byte, 16)
	for r := 0; r <= taxRounds; r++ { // round 0 warms up
		for i := range src {
			src[i] = byte(i*7 + r)
		}
		// Upload: the write and a 16-byte read that waits for it, less
		// a 16-byte write and the same read.
		t0 := time.Now()
		if err := o.d.Write(buf, 0, src); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		if err := o.d.Read(buf, size-16, small); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		t1 := time.Now()
		if err := o.d.Write(buf, 0, src[:16]); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		if err := o.d.Read(buf, size-16, small); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		t2 := time.Now()
		// Readback: the whole buffer less 16 bytes of it.
		for i := range got {
			got[i] = ^src[i]
		}
		if err := o.d.Read(buf, 0, got); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		t3 := time.Now()
		if err := o.d.Read(buf, 0, small); err != nil {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: %w", err)
		}
		t4 := time.Now()
		if !bytes.Equal(got, src) || !bytes.Equal(small, src[:16]) {
			return GPUTaxes{}, fmt.Errorf("GPU taxes: the %d bytes read back differ from those written: %w", size, compute.ErrVerify)
		}
		if r == 0 {
			continue
		}
		b := float64(size - 16)
		if du, dd := (t1.Sub(t0) - t2.Sub(t1)).Seconds(), (t3.Sub(t2) - t4.Sub(t3)).Seconds(); du > 0 && dd > 0 {
			up, down = append(up, b/du), append(down, b/dd)
		}
	}
	if len(up) < taxRounds/2 {
		return GPUTaxes{}, fmt.Errorf("GPU taxes: %d of %d transfer rounds took no longer than 16 bytes", taxRounds-len(up), taxRounds)
	}
	est := func(x []float64) report.Estimate {
		s := timing.Summarize(x)
		return report.Estimate{Value: s.Median, Lo: s.Lo, Hi: s.Hi}
	}
	return GPUTaxes{Launch: est(launch), Upload: est(up), Readback: est(down),
		Source: fmt.Sprintf("compute.MeasureOverhead (a 16-byte queue write, submit and wait of one workgroup less its kernel time, a 16-byte readback), median of %d rounds of %d calls; rates from %d MiB writes and reads less 16-byte ones", taxRounds, taxCallsPerRound, size>>20)}, nil
}

// GPURoof measures the GPU's read bandwidth and FMA ceilings over
// buffers of bytes (the roof a kernel's time is placed under) into rep's
// GPU ceilings, unless rep has them already.
func (e *Env) GPURoof(bytes uint64, rep *report.Report) (timing.Roof, error) {
	if g := rep.Ceilings.GPU; g["read_gbs"] > 0 && g["fma_gflops"] > 0 {
		return timing.Roof{PeakGFLOPs: g["fma_gflops"], BandwidthGBs: g["read_gbs"]}, nil
	}
	e.progress("gpu ceilings (read, write, copy, FMA)")
	gc, err := compute.MeasureCeilings(e.Device, compute.CeilingOptions{Bytes: bytes})
	if err != nil {
		return timing.Roof{}, fmt.Errorf("gpu ceilings: %w", err)
	}
	rep.Ceilings.GPU = map[string]float64{"read_gbs": gc.ReadGBs, "write_gbs": gc.WriteGBs, "copy_gbs": gc.CopyGBs, "fma_gflops": gc.PeakGFLOPs}
	return timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs}, nil
}
