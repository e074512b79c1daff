package compute

// ParamError is a parameter of a library call that is out of its range:
// the parameter's name (as the library knows it, e.g. "entry", "buffer",
// "d"), the value given, already formatted (may be empty when the limit
// says it), and the limit it broke. Only a command-line front end knows
// which flag sets a parameter; it finds the error with errors.As and
// names the flag.
type ParamError struct {
	Name  string
	Value string
	Limit string
}

func (e *ParamError) Error() string {
	if e.Value == "" {
		return e.Name + ": " + e.Limit
	}
	return e.Name + " " + e.Value + ": " + e.Limit
}
