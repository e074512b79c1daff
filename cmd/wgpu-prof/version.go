package main

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/experiment"
)

// toolVersion is the version of wgpu-prof itself.
const toolVersion = "0.1.0"

func versionString() string {
	return fmt.Sprintf("wgpu-prof %s (wgpu-native %s)", toolVersion, experiment.WgpuNativeVersion())
}
