package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"runtime/cgo"
	"sync"
)

// One-shot callbacks get a cgo.Handle to a result struct, deleted when the
// callback fires. Device-level callbacks (lost, uncaptured error) look the
// device up in a registry by id, so a late callback after Release is ignored.

type requestDeviceResult struct {
	done   bool
	status int
	dev    C.WGPUDevice
	msg    string
}

//export goRequestDeviceDone
func goRequestDeviceDone(h C.uintptr_t, status C.int, dev C.WGPUDevice, msg *C.char, n C.size_t) {
	hd := cgo.Handle(h)
	r := hd.Value().(*requestDeviceResult)
	r.done, r.status, r.dev, r.msg = true, int(status), dev, goString(msg, n)
	hd.Delete()
}

type popResult struct {
	done    bool
	status  int
	errType int
	msg     string
}

//export goPopErrorScopeDone
func goPopErrorScopeDone(h C.uintptr_t, status, errType C.int, msg *C.char, n C.size_t) {
	hd := cgo.Handle(h)
	r := hd.Value().(*popResult)
	r.done, r.status, r.errType, r.msg = true, int(status), int(errType), goString(msg, n)
	hd.Delete()
}

var devices = struct {
	sync.Mutex
	next uintptr
	m    map[uintptr]*deviceState
}{next: 1, m: map[uintptr]*deviceState{}}

func registerDevice(s *deviceState) uintptr {
	devices.Lock()
	defer devices.Unlock()
	id := devices.next
	devices.next++
	devices.m[id] = s
	return id
}

func unregisterDevice(id uintptr) {
	devices.Lock()
	delete(devices.m, id)
	devices.Unlock()
}

func lookupDevice(id uintptr) *deviceState {
	devices.Lock()
	defer devices.Unlock()
	return devices.m[id]
}

//export goDeviceLost
func goDeviceLost(id C.uintptr_t, reason C.int, msg *C.char, n C.size_t) {
	if s := lookupDevice(uintptr(id)); s != nil {
		s.setLost(int(reason), goString(msg, n))
	}
}

//export goUncapturedError
func goUncapturedError(id C.uintptr_t, typ C.int, msg *C.char, n C.size_t) {
	if s := lookupDevice(uintptr(id)); s != nil {
		s.addError(&GPUError{Type: errorType(int(typ)), Message: goString(msg, n)})
	}
}
