package wgpu

import "fmt"

// CheckWorkgroup checks a one-dimensional workgroup size against the
// device's limits on the host, before any pipeline exists: wgpu-native 29
// does not re-check workgroup limits after override constants are applied
// (gfx-rs/wgpu#8946). A size past a limit is ErrLimit; the one place
// runners, sweeps and flags check it.
func (d *Device) CheckWorkgroup(wg int) error {
	if err := d.check("CheckWorkgroup"); err != nil {
		return err
	}
	if wg < 1 || wg&(wg-1) != 0 {
		return fmt.Errorf("workgroup size %d: must be a power of two", wg)
	}
	lim := d.Limits
	if uint32(wg) > lim.MaxComputeInvocationsPerWorkgroup || uint32(wg) > lim.MaxComputeWorkgroupSizeX {
		return fmt.Errorf("workgroup size %d > maxComputeInvocationsPerWorkgroup %d (maxComputeWorkgroupSizeX %d): %w",
			wg, lim.MaxComputeInvocationsPerWorkgroup, lim.MaxComputeWorkgroupSizeX, ErrLimit)
	}
	return nil
}
