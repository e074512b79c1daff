// Package report defines wgpu-prof's versioned result schema ("wgpu-prof/v1")
// and everything that turns a Report into output: JSON, aligned text tables,
// CSV, the Go benchmark format (so benchstat can compare two runs), plots,
// Chrome traces, and comparisons between two reports.
//
// It depends on timing for the statistics it prints, and on nothing that
// touches a GPU: it must not measure, call into wgpu-native or the host SIMD
// kernels, or decide what to run. Every writer takes an io.Writer; files are
// written through WriteAtomic so a crash never leaves half a report behind.
// Malformed input (a corrupt or foreign JSON file, NaN values, an unknown
// plot format) is an error, never a panic.
package report
