package wgpu

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"
)

// BufferUsage is a set of ways a buffer may be used.
type BufferUsage uint64

const (
	UsageMapRead      BufferUsage = 0x1
	UsageCopySrc      BufferUsage = 0x4
	UsageCopyDst      BufferUsage = 0x8
	UsageUniform      BufferUsage = 0x40
	UsageStorage      BufferUsage = 0x80
	UsageQueryResolve BufferUsage = 0x200
)

// Buffer is GPU memory.
type Buffer struct {
	c     C.WGPUBuffer
	d     *Device
	Size  uint64
	Usage BufferUsage
	Label string
}

// CreateBuffer allocates a buffer of size bytes (rounded up to a multiple
// of 4). Sizes of zero or past the device's maxBufferSize are refused before
// any GPU call, with an error naming the value and the limit.
func (d *Device) CreateBuffer(label string, size uint64, usage BufferUsage) (*Buffer, error) {
	op := fmt.Sprintf("CreateBuffer(%q)", label)
	if err := d.check(op); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, fmt.Errorf("wgpu: %s: size 0: buffers must hold at least one element", op)
	}
	size = (size + 3) &^ 3
	if size > d.Limits.MaxBufferSize {
		return nil, fmt.Errorf("wgpu: %s: size %d bytes > maxBufferSize %d of adapter %q: %w",
			op, size, d.Limits.MaxBufferSize, d.Info.Name, ErrLimit)
	}
	b := &Buffer{d: d, Size: size, Usage: usage, Label: label}
	cl, n := cString(label)
	defer freeC(cl)
	err := d.scoped(op, func() {
		var desc C.WGPUBufferDescriptor
		desc.label = C.shim_sv(cl, n)
		desc.usage = C.WGPUBufferUsage(usage)
		desc.size = C.uint64_t(size)
		b.c = C.wgpuDeviceCreateBuffer(d.c, &desc)
	})
	if err != nil {
		if b.c != nil {
			C.wgpuBufferRelease(b.c)
		}
		return nil, err
	}
	if b.c == nil {
		return nil, fmt.Errorf("wgpu: %s: wgpu-native returned no buffer", op)
	}
	return b, nil
}

// Release frees the buffer's memory now; idempotent.
func (b *Buffer) Release() {
	if b == nil || b.c == nil {
		return
	}
	C.wgpuBufferDestroy(b.c)
	C.wgpuBufferRelease(b.c)
	b.c = nil
}

// Bytes views a slice of plain values (float32, uint32, ...) as bytes,
// without copying.
func Bytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// Write copies data into b at offset through the queue. The length must be
// a multiple of 4 bytes.
func (d *Device) Write(b *Buffer, offset uint64, data []byte) error {
	if b == nil {
		return fmt.Errorf("wgpu: Write: nil buffer: %w", ErrReleased)
	}
	// The operation's name is formatted only on an error: Write is on
	// every call's path.
	op := func() string { return fmt.Sprintf("Write(%q)", b.Label) }
	if err := d.check("Write"); err != nil {
		return fmt.Errorf("wgpu: %s: %w", op(), errors.Unwrap(err))
	}
	if b.c == nil {
		return fmt.Errorf("wgpu: %s: %w", op(), ErrReleased)
	}
	if len(data)%4 != 0 || offset%4 != 0 {
		return fmt.Errorf("wgpu: %s: offset %d and length %d must be multiples of 4", op(), offset, len(data))
	}
	if offset+uint64(len(data)) > b.Size {
		return fmt.Errorf("wgpu: %s: %d bytes at offset %d overflow the %d-byte buffer", op(), len(data), offset, b.Size)
	}
	if len(data) == 0 {
		return nil
	}
	C.wgpuQueueWriteBuffer(d.queue, b.c, C.uint64_t(offset), unsafe.Pointer(&data[0]), C.size_t(len(data)))
	return nil
}

// sizeClass rounds a staging size up to a power of two (at least 4 KiB) so
// pooled buffers are reused across sizes.
func sizeClass(n uint64) uint64 {
	if n <= 4096 {
		return 4096
	}
	return 1 << (64 - bits.LeadingZeros64(n-1))
}

func (d *Device) getStaging(n uint64) (*Buffer, error) {
	cls := sizeClass(n)
	d.mu.Lock()
	if list := d.staging[cls]; len(list) > 0 {
		b := list[len(list)-1]
		d.staging[cls] = list[:len(list)-1]
		d.mu.Unlock()
		return b, nil
	}
	d.mu.Unlock()
	if cls > d.Limits.MaxBufferSize {
		cls = (n + 3) &^ 3
	}
	return d.CreateBuffer("staging", cls, UsageMapRead|UsageCopyDst)
}

func (d *Device) putStaging(b *Buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		b.Release()
		return
	}
	d.staging[b.Size] = append(d.staging[b.Size], b)
}

// Read copies len(dst) bytes of b from offset into dst through a pooled
// staging buffer: Run with one readback (one copy command, one
// submission, one map and one wait bounded by the device's timeout).
func (d *Device) Read(b *Buffer, offset uint64, dst []byte) error {
	if b == nil {
		return fmt.Errorf("wgpu: Read: nil buffer: %w", ErrReleased)
	}
	if len(dst) == 0 {
		return nil
	}
	_, err := d.Run(Call{Reads: []Readback{{Src: b, Offset: offset, Dst: dst}}})
	return err
}
