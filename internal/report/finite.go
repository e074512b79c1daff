package report

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// ErrNonFinite marks a report holding NaN or ±Inf: JSON has no such
// numbers, and a rate or time that is not finite is a measurement that
// went wrong (a duration of 0 s divided into bytes), not a result.
var ErrNonFinite = errors.New("not a finite number")

// CheckFinite returns an error wrapping ErrNonFinite naming the JSON path
// of every NaN or ±Inf in v (as "measurements[3].gb_per_s"), or nil.
func CheckFinite(v any) error {
	var bad []string
	walkFinite(reflect.ValueOf(v), "", &bad)
	if len(bad) == 0 {
		return nil
	}
	const show = 5
	more := ""
	if len(bad) > show {
		more = fmt.Sprintf(" (and %d more)", len(bad)-show)
		bad = bad[:show]
	}
	return fmt.Errorf("%w: %s%s", ErrNonFinite, strings.Join(bad, ", "), more)
}

// walkFinite appends "path = value" for each non-finite float under v,
// naming struct fields by their JSON names (fields JSON skips are
// skipped).
func walkFinite(v reflect.Value, path string, bad *[]string) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			*bad = append(*bad, fmt.Sprintf("%s = %v", strings.TrimPrefix(path, "."), f))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkFinite(v.Elem(), path, bad)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i), bad)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			walkFinite(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), bad)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag, ok := f.Tag.Lookup("json"); ok {
				if tag == "-" {
					continue
				}
				if n, _, _ := strings.Cut(tag, ","); n != "" {
					name = n
				}
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				walkFinite(v.Field(i), path, bad)
				continue
			}
			walkFinite(v.Field(i), path+"."+name, bad)
		}
	}
}
