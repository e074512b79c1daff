//go:build noasm || !(amd64 || arm64)

package hostsimd

// registerArch adds nothing: this build only has the Generic level
// (amd64 and arm64 add theirs in level_amd64.go and level_arm64.go).
func registerArch() {}
