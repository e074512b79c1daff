// Package buildcheck holds no code: its test proves that a program
// importing this module builds with nothing that scripts/setup.sh provides
// (no third_party folder, no CGO_CFLAGS or CGO_LDFLAGS), since wgpu-native
// is declared by compute/wgpu_abi.h and loaded at run time.
package buildcheck
