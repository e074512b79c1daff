package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// devices names every feature (no bare numbers), marks the one adapter a
// plain run picks and says why, and flags software adapters (llvmpipe,
// SwiftShader, WARP) plainly, in text and JSON.
func TestDevicesNamesFeaturesAndTheDefault(t *testing.T) {
	stdout, _, err := runCmd("devices")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "feature-0x") || strings.Contains(stdout, "unknown:0x") {
		t.Errorf("a feature printed as a number:\n%s", stdout)
	}
	if n := strings.Count(stdout, "[default]"); n != 1 || !strings.Contains(stdout, "\ndefault: [") {
		t.Errorf("%d adapters marked default, or no default line:\n%s", n, stdout)
	}
	js, _, err := runCmd("devices", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var r env.DevicesReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, a := range r.Adapters {
		if a.Default {
			defaults++
			if a.DefaultReason == "" {
				t.Errorf("[%d] is the default with no reason", a.Index)
			}
		}
		low := strings.ToLower(a.Name)
		if (strings.Contains(low, "llvmpipe") || strings.Contains(low, "swiftshader") || a.DeviceType == "cpu") && a.Software == "" {
			t.Errorf("[%d] %s (%s) is not flagged as software", a.Index, a.Name, a.DeviceType)
		}
		if a.Software != "" && !strings.Contains(stdout, "SOFTWARE") {
			t.Errorf("[%d] software but the text does not say so", a.Index)
		}
	}
	if defaults != 1 {
		t.Errorf("%d defaults in JSON", defaults)
	}
}
