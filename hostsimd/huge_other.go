//go:build !linux

package hostsimd

func adviseHuge([]byte) {}
