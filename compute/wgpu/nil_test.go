package wgpu_test

import (
	"fmt"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// TestNilReceiversAndArguments: every exported method of the binding's
// handles, called on a nil handle or with nil arguments, returns an error
// or a zero value; none panics.
func TestNilReceiversAndArguments(t *testing.T) {
	var d *wgpu.Device
	var b *wgpu.Buffer
	var a *wgpu.Adapter
	var i *wgpu.Instance
	var p *wgpu.Pipeline
	var tm *wgpu.Timer
	var m *wgpu.ShaderModule
	var bg *wgpu.BindGroup
	var info *wgpu.WGSLModuleInfo
	calls := map[string]func() error{
		"Device.CreateBuffer":       func() error { _, err := d.CreateBuffer("x", 16, wgpu.UsageStorage); return err },
		"Device.Write":              func() error { return d.Write(b, 0, make([]byte, 4)) },
		"Device.Read":               func() error { return d.Read(b, 0, make([]byte, 4)) },
		"Device.CheckWorkgroup":     func() error { return d.CheckWorkgroup(64) },
		"Device.NewTimer":           func() error { _, err := d.NewTimer(1); return err },
		"Device.Submit":             func() error { _, err := d.Submit(nil, nil, tm); return err },
		"Device.CreatePipeline":     func() error { _, err := d.CreatePipeline(m, "main", nil); return err },
		"Device.Pipeline":           func() error { _, err := d.Pipeline("x", "", "main", nil); return err },
		"Device.CreateBindGroup":    func() error { _, err := d.CreateBindGroup(p, 0, nil); return err },
		"Device.ProbeTimestamps":    func() error { _, err := d.ProbeTimestamps(); return err },
		"Device.CreateShaderModule": func() error { _, err := d.CreateShaderModule("x", ""); return err },
		"Device.Module":             func() error { _, err := d.Module("x", ""); return err },
		"Device.Wait":               func() error { return d.Wait() },
		"CheckLoopBudget":           func() error { return wgpu.CheckLoopBudget(d, 1<<40, "x") },
		"Adapter.RequestDevice":     func() error { _, err := a.RequestDevice(wgpu.DeviceOptions{}); return err },
		"Instance.Adapters":         func() error { _, err := i.Adapters(); return err },
		"SelectAdapter": func() error {
			_, err := wgpu.SelectAdapter([]*wgpu.Adapter{nil}, wgpu.AdapterQuery{Index: -1})
			return err
		},
		"WGSLModuleInfo.EvalInt": func() error { _, err := info.EvalInt("1", nil); return err },
	}
	for name, call := range calls {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("%s with nil: panic %v", name, v)
				}
			}()
			if err := call(); err == nil && name != "CheckLoopBudget" {
				t.Errorf("%s with nil: no error", name)
			}
		}()
	}
	zero := map[string]func() any{
		"Device.Adapter":         func() any { return d.Adapter() },
		"Device.HasFeature":      func() any { return d.HasFeature(wgpu.FeatureTimestampQuery) },
		"Device.HasTimestamps":   func() any { return d.HasTimestamps() },
		"Device.TimestampPeriod": func() any { return d.TimestampPeriod() },
		"Device.Err":             func() any { return d.Err() },
		"Device.LoopBudget":      func() any { return d.LoopBudget() },
		"Adapter.HasFeature":     func() any { return a.HasFeature(wgpu.FeatureTimestampQuery) },
		"Instance.Backend":       func() any { return i.Backend() },
		"WGSLModuleInfo.Uses":    func() any { return info.Uses("main", "x") },
		"releases": func() any {
			d.Destroy()
			d.Release()
			b.Release()
			a.Release()
			i.Release()
			p.Release()
			tm.Release()
			m.Release()
			bg.Release()
			return nil
		},
	}
	for name, call := range zero {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("%s with nil: panic %v", name, v)
				}
			}()
			_ = fmt.Sprint(call())
		}()
	}
}
