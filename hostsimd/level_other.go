//go:build noasm || !amd64

package hostsimd

// registerArch adds nothing: this build only has the Generic level.
// TODO(arm64): NEON kernels; arm64 runs Generic for now.
func registerArch() {}
