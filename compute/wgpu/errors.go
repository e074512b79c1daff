package wgpu

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Sentinel errors, to be checked with errors.Is.
var (
	// ErrNoAdapter: no WebGPU adapter could be found (no driver installed).
	ErrNoAdapter = errors.New("no WebGPU adapter found")
	// ErrDeviceLost: the device was lost; it cannot be used any more.
	ErrDeviceLost = errors.New("device lost")
	// ErrTimeout: the GPU did not finish within the wait's timeout.
	ErrTimeout = errors.New("timed out waiting for the GPU")
	// ErrReleased: the object was used after Release.
	ErrReleased = errors.New("use of released object")
	// ErrLimit: a request exceeds one of the adapter's limits.
	ErrLimit = errors.New("exceeds adapter limit")
	// ErrNoTimestamps: the device was created without timestamp queries.
	ErrNoTimestamps = errors.New("timestamp queries not available")
)

// ErrorType classifies a WebGPU error.
type ErrorType int

const (
	ErrorValidation ErrorType = iota + 1
	ErrorOutOfMemory
	ErrorInternal
	ErrorUnknown
)

func errorType(t int) ErrorType {
	switch t {
	case 2:
		return ErrorValidation
	case 3:
		return ErrorOutOfMemory
	case 4:
		return ErrorInternal
	}
	return ErrorUnknown
}

func (t ErrorType) String() string {
	switch t {
	case ErrorValidation:
		return "validation"
	case ErrorOutOfMemory:
		return "out of memory"
	case ErrorInternal:
		return "internal"
	}
	return "unknown"
}

// GPUError is an error reported by the WebGPU implementation, through an
// error scope or the uncaptured-error callback.
type GPUError struct {
	Type    ErrorType
	Message string
}

func (e *GPUError) Error() string {
	return fmt.Sprintf("%s error: %s", e.Type, oneLine(e.Message))
}

// oneLine folds wgpu's multi-line "Validation Error / Caused by:" reports
// into one line, keeping the informative parts.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		switch l {
		case "", "Validation Error", "Caused by:", "Internal Error", "Out of Memory":
			continue
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, ": ")
}

// CompilationMessageType is the severity of a shader compilation message.
type CompilationMessageType int

const (
	MessageError CompilationMessageType = iota + 1
	MessageWarning
	MessageInfo
)

func compilationMessageType(t int) CompilationMessageType {
	return CompilationMessageType(t)
}

// CompilationMessage is one message of the WGSL compiler.
type CompilationMessage struct {
	Type    CompilationMessageType
	Line    int // 1-based; 0 when unknown
	Column  int // 1-based; 0 when unknown
	Message string
}

// ShaderError is a WGSL compilation failure, with the position of the first
// error.
type ShaderError struct {
	Label    string
	Line     int
	Column   int
	Message  string
	Messages []CompilationMessage
}

func (e *ShaderError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("shader %q:%d:%d: %s", e.Label, e.Line, e.Column, e.Message)
	}
	return fmt.Sprintf("shader %q: %s", e.Label, e.Message)
}

// naga reports positions in its messages as "┌─ wgsl:3:5" (file:line:col).
var posRE = regexp.MustCompile(`(?:wgsl|\.wgsl)?:(\d+):(\d+)`)

// shaderErrorFrom builds a ShaderError from compiler messages, or, when the
// implementation gave none, from the text of a validation error.
func shaderErrorFrom(label string, msgs []CompilationMessage, scopeErr error) *ShaderError {
	for _, m := range msgs {
		if m.Type == MessageError {
			return &ShaderError{Label: label, Line: m.Line, Column: m.Column, Message: firstLine(m.Message), Messages: msgs}
		}
	}
	if scopeErr == nil {
		return nil
	}
	text := scopeErr.Error()
	se := &ShaderError{Label: label, Message: summarizeNaga(text), Messages: msgs}
	if m := posRE.FindStringSubmatch(text); m != nil {
		se.Line, _ = strconv.Atoi(m[1])
		se.Column, _ = strconv.Atoi(m[2])
	}
	return se
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// summarizeNaga keeps the informative lines of a naga diagnostic.
func summarizeNaga(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "│") || t == "=" {
			continue
		}
		keep = append(keep, t)
		if len(keep) == 6 {
			break
		}
	}
	return strings.Join(keep, " ")
}
