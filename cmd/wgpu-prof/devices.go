package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runDevices(stdout, stderr io.Writer, args []string) error {
	f := newFlags("devices", stdout, stderr, "usage: wgpu-prof devices [--impl wgpu-native|dawn|browser] [--backend B] [--format text|json]\n"+
		"Lists every WebGPU adapter with its limits and features, and runs a tiny\n"+
		"dispatch with timestamp writes on each to show whether GPU timing works.\n"+
		"--impl browser asks a web browser, through a page wgpu-prof serves on\n"+
		"127.0.0.1: headless Chromium by default, or your own with --open none.",
		`  wgpu-prof devices
  wgpu-prof devices --backend vulkan --format json
  wgpu-prof devices --impl browser
  wgpu-prof devices --impl browser --open none --open-timeout 5m`)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if err := f.noArgs(); err != nil {
		return err
	}
	format := f.str("format")
	if format != "text" && format != "json" {
		return fmt.Errorf("--format %q: want text or json", format)
	}
	if isBrowserImpl(f.str("impl")) {
		return runBrowserDevices(stdout, stderr, f, format)
	}
	out, err := env.DevicesOf(f.str("impl"), f.str("backend"), versionString())
	if err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	writeDevicesText(stdout, out)
	return nil
}

func writeDevicesText(w io.Writer, out env.DevicesReport) {
	head := fmt.Sprintf("%s, %d adapter(s) through %s %s", out.Tool, len(out.Adapters), orDash(out.Implementation), orDash(out.ImplementationVersion))
	if out.Browser != nil {
		head = fmt.Sprintf("%s, %d adapter(s) through the browser", out.Tool, len(out.Adapters))
	}
	for _, l := range report.WrapBullet("", head, report.MaxLine) {
		fmt.Fprintln(w, l)
	}
	for _, r := range out.Adapters {
		if r.Default && out.Browser != nil {
			fmt.Fprintf(w, "default: [%d] %s (%s)\n", r.Index, r.Name, r.DefaultReason)
		} else if r.Default {
			for _, l := range report.WrapBullet("default: ", fmt.Sprintf("[%d] %s on %s (what a run picks without --adapter or --adapter-name: %s)", r.Index, r.Name, r.Backend, r.DefaultReason), report.MaxLine) {
				fmt.Fprintln(w, l)
			}
		}
	}
	if out.NoDefault != "" {
		fmt.Fprintf(w, "default: none: %s\n", out.NoDefault)
	}
	if out.Browser != nil {
		writeBrowserText(w, out.Browser)
	}
	for _, r := range out.Adapters {
		mark := ""
		if r.Default {
			mark = "  [default]"
		}
		backend := r.Backend
		if r.Browser != nil {
			backend = "browser"
		}
		fmt.Fprintf(w, "\n[%d] %s (%s)%s\n", r.Index, r.Name, backend, mark)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if r.Software != "" {
			fmt.Fprintf(tw, "  SOFTWARE\t%s: the GPU API implemented on this CPU; its 'GPU' figures measure the CPU, not a GPU\n", r.Software)
		}
		if b := r.Browser; b != nil {
			fmt.Fprintf(tw, "  backend\t-: the browser does not say\n")
			fmt.Fprintf(tw, "  type\t%s\n", r.DeviceType)
			fmt.Fprintf(tw, "  vendor\t%s, architecture %s\n", orDash(r.Vendor), orDash(b.Architecture))
			fmt.Fprintf(tw, "  description\t%s\n", orDash(b.Description))
			fmt.Fprintf(tw, "  requests\t%s\n", strings.Join(b.Requests, ", "))
			if b.SubgroupMinSize > 0 {
				fmt.Fprintf(tw, "  subgroup size\t%d to %d\n", b.SubgroupMinSize, b.SubgroupMaxSize)
			}
		} else {
			fmt.Fprintf(tw, "  backend\t%s\n", r.Backend)
			fmt.Fprintf(tw, "  type\t%s\n", r.DeviceType)
			fmt.Fprintf(tw, "  vendor\t%s (%s), device %s\n", orDash(r.Vendor), r.VendorID, r.DeviceID)
			fmt.Fprintf(tw, "  driver\t%s\n", orDash(r.Driver))
		}
		l := r.Limits
		fmt.Fprintf(tw, "  max storage binding\t%s\n", bytesIEC(l.MaxStorageBufferBindingSize))
		fmt.Fprintf(tw, "  max buffer\t%s\n", bytesIEC(l.MaxBufferSize))
		fmt.Fprintf(tw, "  max workgroup size\t%d x %d x %d, %d invocations\n", l.MaxComputeWorkgroupSizeX, l.MaxComputeWorkgroupSizeY, l.MaxComputeWorkgroupSizeZ, l.MaxComputeInvocationsPerWorkgroup)
		fmt.Fprintf(tw, "  max workgroup storage\t%s\n", bytesIEC(uint64(l.MaxComputeWorkgroupStorageSize)))
		fmt.Fprintf(tw, "  max workgroups/dim\t%d\n", l.MaxComputeWorkgroupsPerDimension)
		// Features wrapped within a terminal's width, the name column kept.
		for i, l := range report.WrapBullet("", strings.Join(r.Features, ", "), 90) {
			name := "features"
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, l)
		}
		ts := r.Timestamps
		if ts.OK {
			fmt.Fprintf(tw, "  timestamps\tworking: tiny dispatch %s by timestamps, %s by host clock\n", report.FormatDuration(ts.Kernel), report.FormatDuration(ts.Host))
		} else {
			fmt.Fprintf(tw, "  timestamps\tNOT working: %s\n", ts.Reason)
		}
		if r.Error != "" {
			fmt.Fprintf(tw, "  error\t%s\n", r.Error)
		}
		tw.Flush()
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func bytesIEC(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.4g %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
